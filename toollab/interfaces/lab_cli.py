"""`toollab lab NAME`: run one of the lab's experiments and print its tables; plots and outcomes go to --out."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from toollab.formats import FORMATS
from toollab.harness.model import Model, ModelError
from toollab.harness.request import CallPolicy
from toollab.interfaces.loading import progress_bar, ready_to_run
from toollab.interfaces.options import (
    AdapterOption,
    AddressOption,
    AfterResults,
    Constrained,
    ExecutorOption,
    Parallel,
    SwitchesOption,
    TokensOption,
    ToolChoiceOption,
    WorkerCpusOption,
    WorkersOption,
    fail,
    make_executor,
)
from toollab.lab import EXPERIMENTS, SimulatedModel
from toollab.lab.experiments import SHARDED, Settings
from toollab.models.registry import MODEL_FORMS, load_model
from toollab.models.switches import Switches

console = Console()
SIMULATED = "sim"


def lab_model(
    spec: str,
    *,
    seed: int,
    format: str | None,
    constrained: bool | None,
    max_new_tokens: int | None,
    switches: Switches | None = None,
    policy: CallPolicy | None = None,
    adapter: str | None = None,
) -> Model:
    """The simulated model (`sim`) or any model string `toollab run` takes, with the project's defaults
    (`load_model`), `switches` and `policy` put in."""
    if spec == SIMULATED:
        return SimulatedModel(seed=seed, format=format)
    return load_model(
        spec,
        format=format,
        max_new_tokens=max_new_tokens,
        constrained=constrained,
        switches=switches,
        policy=policy,
        adapter=adapter,
    )


def lab(
    name: Annotated[str, typer.Argument(help=f"The experiment: {', '.join(EXPERIMENTS)}.")],
    model: Annotated[str, typer.Option(help=f"Model: {SIMULATED} (the simulated model), {MODEL_FORMS}.")] = SIMULATED,
    n: Annotated[int, typer.Option(min=1, help="Tasks per condition.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the tasks (and of the simulated model's draws).")] = 0,
    format: Annotated[str | None, typer.Option(help=f"Wire format: {', '.join(FORMATS)}.")] = None,
    out: Annotated[Path | None, typer.Option(help="Folder for outcomes, summary and plots.")] = None,
    max_new_tokens: TokensOption = None,
    constrained: Constrained = None,
    tool_choice: ToolChoiceOption = None,
    after_results: AfterResults = None,
    parallel: Parallel = None,
    switches: SwitchesOption = "",
    adapter: AdapterOption = None,
    concurrency: Annotated[
        int,
        typer.Option(
            min=1,
            help="Tasks in flight at once (per worker with --executor ray): a local model decodes them together "
            "(rag, retrieval, retriever and toolformer run one at a time).",
        ),
    ] = 1,
    executor: ExecutorOption = "local",
    workers: WorkersOption = None,
    worker_cpus: WorkerCpusOption = 1,
    address: AddressOption = None,
) -> None:
    """Run a lab experiment and print its tables with Wilson 95% intervals."""
    if name not in EXPERIMENTS:
        raise fail(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}")
    if executor != "local" and name not in SHARDED:
        raise fail(f"{name} runs in one process; --executor {executor} applies to {', '.join(SHARDED)}")
    where = make_executor(executor, concurrency, workers, address, worker_cpus)
    try:
        levers = Switches.parse(switches)
        chosen = lab_model(
            model,
            seed=seed,
            format=format,
            constrained=constrained,
            max_new_tokens=max_new_tokens,
            switches=levers,
            policy=levers.policy().updated(tool_choice, after_results, parallel),
            adapter=adapter,
        )
        ready_to_run(where, [(chosen, model, None)], console)
    except (ValueError, ModelError, ConnectionError) as exc:
        where.close()
        raise fail(str(exc)) from None
    folder = out or Path("runs") / "lab" / f"{name}-{model.replace(':', '-').replace('/', '-')}"
    with progress_bar(console) as progress:
        bar = progress.add_task(name, total=None)
        settings = Settings(
            chosen,
            n=n,
            seed=seed,
            out=folder,
            on_progress=lambda done, total: progress.update(bar, completed=done, total=total),
            concurrency=concurrency,
            executor=where,
        )
        try:
            report = asyncio.run(EXPERIMENTS[name](settings))
        finally:
            where.close()
    if report.model.startswith(SIMULATED):
        console.print("[dim]model: simulated (knob-driven; token counts approximate, latency simulated)[/dim]")
    if report.transcript:
        console.print(Panel(Text(report.transcript), title="on the wire", border_style="dim"))
    for table in report.tables:
        console.print(table)
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {note}")
    console.print(f"[dim]{', '.join(str(f) for f in report.files)}[/dim]")
