"""`toollab workflow run` and `resume`: a workflow written with `toollab.workflows`, run with the live view."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from toollab.harness import RunStatus
from toollab.interfaces.live import RoundPrinter, result_json, show_result
from toollab.interfaces.loading import load_object
from toollab.interfaces.options import fail
from toollab.workflows import Step, Workflow, WorkflowResult

app = typer.Typer(help="Run workflows: chains, routes, parallel steps, orchestrators, evaluator loops.",
                  no_args_is_help=True)  # fmt: skip
console = Console()

Ref = Annotated[str, typer.Argument(help="The workflow, as MODULE:ATTR or FILE.py:ATTR (a Workflow or a step).")]
JsonOutput = Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")]


def _workflow(ref: str, json_output: bool) -> Workflow:
    try:
        found = load_object(ref)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if isinstance(found, Workflow):
        flow = found
    elif isinstance(found, Step):
        flow = Workflow(found)
    else:
        raise fail(f"{ref} is a {type(found).__name__}, not a toollab Workflow or workflow step")
    if not json_output:
        flow.on_event = RoundPrinter(console)
    return flow


def _show(result: WorkflowResult, json_output: bool) -> None:
    if json_output:
        print(json.dumps(result_json(result) | {"failures": [asdict(f) for f in result.failures]}, ensure_ascii=False))
    else:
        for failure in result.failures:
            console.print(f"[yellow]failed, reported to the next step:[/yellow] {failure.step}: {failure.error}")
        show_result(console, result)
    if result.status == RunStatus.MODEL_ERROR:
        raise typer.Exit(1)


@app.command()
def run(
    ref: Ref,
    task: Annotated[str, typer.Argument(help="The input of the workflow.")],
    log: Annotated[Path | None, typer.Option(help="Write the JSONL event log here (for resume).")] = None,
    json_output: JsonOutput = False,
) -> None:
    """Run the workflow REF on TASK, showing every step as it happens."""
    flow = _workflow(ref, json_output)
    try:
        result = flow.run_sync(task, log=log)
    except ValueError as exc:
        raise fail(str(exc)) from None
    _show(result, json_output)


@app.command()
def resume(ref: Ref, log: Annotated[Path, typer.Argument(help="The event log of the killed run.")],
           json_output: JsonOutput = False) -> None:  # fmt: skip
    """Continue the run of REF recorded in LOG: finished steps are read back, the rest run."""
    flow = _workflow(ref, json_output)
    try:
        result = flow.resume_sync(log)
    except (ValueError, FileNotFoundError) as exc:
        raise fail(str(exc)) from None
    _show(result, json_output)
