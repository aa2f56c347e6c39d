"""The lab's experiments, each `async run(Settings) -> Report`; `toollab lab NAME` runs one."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from toollab.lab.experiments import (
    codeact,
    critique,
    descriptions,
    errors,
    injection,
    planning,
    protocol,
    rag,
    retrieval,
    retriever,
    stages,
    tamper,
    toolformer,
)
from toollab.lab.experiments.common import Report, Settings

EXPERIMENTS: dict[str, Callable[[Settings], Coroutine[Any, Any, Report]]] = {
    "protocol": protocol.run,
    "stages": stages.run,
    "descriptions": descriptions.run,
    "errors": errors.run,
    "planning": planning.run,
    "critique": critique.run,
    "tamper": tamper.run,
    "codeact": codeact.run,
    "injection": injection.run,
    "retrieval": retrieval.run,
    "retriever": retriever.run,
    "toolformer": toolformer.run,
    "rag": rag.run,
}

__all__ = ["EXPERIMENTS", "Report", "Settings"]
