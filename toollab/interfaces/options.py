"""Command-line options shared by `toollab run` and `toollab eval`."""

from __future__ import annotations

from typing import Annotated

import typer

from toollab.models.registry import is_local, require_local

Constrained = Annotated[
    bool | None,
    typer.Option(
        "--constrained/--no-constrained",
        help="Grammar-constrained decoding; on by default for local models (HTTP backends have their own).",
    ),
]

Parallel = Annotated[
    bool, typer.Option("--parallel/--one-call", help="With --constrained: several calls in a turn, or one.")
]


def constrained_for(model: str, flag: bool | None) -> bool:
    """Whether to constrain `model`: the flag if given, else on for local models. HTTP backends are refused."""
    if flag:
        require_local(model)
    return is_local(model) if flag is None else flag
