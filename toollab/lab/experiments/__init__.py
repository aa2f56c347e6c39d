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


# The experiments whose tasks go through the settings' executor (`solve_all`), so `--executor ray` shards them; the
# others run in one process (they build indexes or train on the way).
SHARDED = ("protocol", "stages", "descriptions", "errors", "planning", "critique", "tamper", "codeact", "injection")

__all__ = ["EXPERIMENTS", "SHARDED", "Report", "Settings"]
