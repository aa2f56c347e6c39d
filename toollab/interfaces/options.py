"""What the `toollab` commands share: options, and how a command refuses bad input."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from toollab.models.registry import is_local, require_local

stderr = Console(stderr=True)  # messages for the user; stdout carries results (--json)


def fail(message: str) -> typer.Exit:
    """Say what was wrong on stderr; the command exits with status 2 (`raise fail(...)`)."""
    stderr.print(f"[red]error:[/red] {message}")
    return typer.Exit(2)


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
