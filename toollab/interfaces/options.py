"""What the `toollab` commands share: options, and how a command refuses bad input."""

from __future__ import annotations

import dataclasses
from typing import Annotated

import typer
from rich.console import Console

from toollab.models.local import MAX_NEW_TOKENS
from toollab.models.switches import Switches
from toollab.scale import Executor, executor_for

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
ToolChoiceOption = Annotated[
    str | None,
    typer.Option(
        "--tool-choice",
        help="The tool choice of a turn that answers the user: auto, required, none or a tool name "
        "(default: the model's policy).",
    ),
]
AfterResults = Annotated[
    str | None,
    typer.Option(help="The tool choice of a turn that follows tool results (default: the model's policy)."),
]
SwitchesOption = Annotated[
    str,
    typer.Option(
        "--switches",
        help="Local models: turn the measured switches on or off, e.g. 'gate=off,one_call=on' "
        f"({', '.join(f.name for f in dataclasses.fields(Switches))}; README).",
    ),
]
AdapterOption = Annotated[
    str | None,
    typer.Option(
        help="Local models: a LoRA adapter folder written by `toollab train` (its adapter/ folder), `shipped` or "
        "`none` (the base weights); the embedded model runs with the shipped adapter by default."
    ),
]
TokensOption = Annotated[
    int | None,
    typer.Option(min=1, help=f"Tokens a local model may write per request (default: the model's, {MAX_NEW_TOKENS})."),
]
ToolsPerTurnOption = Annotated[
    int | None,
    typer.Option(min=1, help="Show the model only the K tools that fit the request best (BM25 and MiniLM, fused)."),
]
Parallel = Annotated[
    bool | None,
    typer.Option("--parallel/--one-call", help="Several calls in a turn, or one (default: the model's policy)."),
]
ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where items run: local (this process) or ray (Ray actors that each load the model once; a cluster "
        "on this machine, bound to 127.0.0.1, unless --address names one).",
    ),
]
WorkersOption = Annotated[
    int | None, typer.Option(min=1, help="--executor ray: workers (default: the cluster's CPUs / --worker-cpus).")
]
WorkerCpusOption = Annotated[float, typer.Option(min=0.1, help="--executor ray: CPUs (and torch threads) per worker.")]
AddressOption = Annotated[
    str | None, typer.Option(help="--executor ray: a running cluster's address (host:port or ray://host:port).")
]


def make_executor(
    name: str, concurrency: int, workers: int | None, address: str | None, worker_cpus: float = 1
) -> Executor:
    """The executor the options name, or a clear error."""
    try:
        return executor_for(name, concurrency=concurrency, workers=workers, address=address, worker_cpus=worker_cpus)
    except (ValueError, ImportError) as exc:
        hint = " (pip install 'toollab[ray]')" if isinstance(exc, ImportError) else ""
        raise fail(f"{exc}{hint}") from None
