"""The `toollab` command line."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import io
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from toollab.formats import FORMATS
from toollab.harness import Agent, ContextBudget, RunResult, RunStatus
from toollab.harness.model import ModelError
from toollab.harness.request import policy_of
from toollab.interfaces import eval_cli, lab_cli, rag_cli, serve_cli, toolformer_cli, train_cli, workflow_cli
from toollab.interfaces.live import RoundPrinter, result_json, show_result
from toollab.interfaces.loading import load_local, load_tools
from toollab.interfaces.options import (
    AdapterOption,
    AfterResults,
    Constrained,
    Parallel,
    SwitchesOption,
    TokensOption,
    ToolChoiceOption,
    ToolsPerTurnOption,
    fail,
    stderr,
)
from toollab.memory import NoteStore, memory_tools
from toollab.models.registry import MODEL_FORMS, is_local, load_model
from toollab.models.switches import Switches
from toollab.rag import AGENT, LOCAL_STRATEGY, PIPELINES, pipeline, rag_strategy, rag_tools, search_first
from toollab.rag import SYSTEM_PROMPT as RAG_PROMPT
from toollab.retrieval import Catalogue
from toollab.sandbox import SandboxedPython
from toollab.tools import add, calculator, multiply

app = typer.Typer(help="Build, run and measure tool-using LLM agents.", no_args_is_help=True, add_completion=False)
app.add_typer(eval_cli.app, name="eval")
app.command("lab")(lab_cli.lab)
app.add_typer(serve_cli.mcp_app, name="mcp")
app.add_typer(serve_cli.rest_app, name="rest")
app.command("gateway")(serve_cli.gateway)
app.command("serve")(serve_cli.serve)
app.command("train-data")(train_cli.train_data)
app.command("train")(train_cli.train)
app.command("train-export")(train_cli.train_export)
app.command("train-int4")(train_cli.train_int4)
app.add_typer(toolformer_cli.app, name="toolformer")
app.add_typer(workflow_cli.app, name="workflow")
app.add_typer(rag_cli.app, name="rag")


@app.callback()
def _output_never_fails() -> None:
    """Build, run and measure tool-using LLM agents."""
    # What a model writes reaches the terminal; a lone surrogate in it (possible through a provider's JSON) cannot
    # be encoded as UTF-8 and would end the command. Written as an escape instead, which also keeps --json valid.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


console = Console()

DEFAULT_TOOLS = [add, multiply, calculator]


async def _run_agent(agent: Agent, prompt: str, log: Path | None, sandbox: SandboxedPython | None) -> RunResult:
    try:
        return await agent.run(prompt, log=log)
    finally:
        if sandbox is not None:
            await sandbox.close()


@app.command()
def run(
    prompt: Annotated[str, typer.Argument(help="The task for the agent.")],
    model: Annotated[str, typer.Option(help=f"Model: {MODEL_FORMS}.")] = "local",
    format: Annotated[
        str | None, typer.Option(help=f"Tool-call format for local models: {', '.join(FORMATS)}.")
    ] = None,
    max_new_tokens: TokensOption = None,
    tools: Annotated[str | None, typer.Option(help="Your tools, as MODULE:ATTR or FILE.py:ATTR.")] = None,
    max_steps: Annotated[int, typer.Option(min=0, help="Rounds of tool calls before a final answer.")] = 10,
    log: Annotated[Path | None, typer.Option(help="Write the JSONL event log here.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the run result as one JSON object.")] = False,
    constrained: Constrained = None,
    tool_choice: ToolChoiceOption = None,
    after_results: AfterResults = None,
    parallel: Parallel = None,
    switches: SwitchesOption = "",
    adapter: AdapterOption = None,
    code_actions: Annotated[
        bool, typer.Option(help="The model writes Python programs that call the tools (run in a sandbox).")
    ] = False,
    flag_instructions: Annotated[
        bool, typer.Option(help="Flag tool results that read like instructions to the model (prompt injection).")
    ] = False,
    tools_per_turn: ToolsPerTurnOption = None,
    memory: Annotated[
        Path | None, typer.Option(help="Give the agent remember/recall/forget over notes kept in this SQLite file.")
    ] = None,
    docs: Annotated[
        Path | None, typer.Option(help="Answer from this folder of documents (its index is built when missing).")
    ] = None,
    rag: Annotated[
        str,
        typer.Option(
            help="How --docs is searched: agent (the model chooses among the retrieval tools) or a fixed pipeline "
            f"({', '.join(PIPELINES)}); auto: {LOCAL_STRATEGY} for local models, agent for others."
        ),
    ] = "auto",
    context_budget: Annotated[
        int | None, typer.Option(min=64, help="Keep each request under this many tokens (old rounds summarised).")
    ] = None,
) -> None:
    """Run an agent on PROMPT, showing every round as it happens."""
    try:
        local = is_local(model)
        chosen = load_model(
            model,
            format=format,
            max_new_tokens=max_new_tokens,
            constrained=constrained,
            switches=Switches.parse(switches),
            adapter=adapter,
        )
        strategy = rag_strategy(rag, local)
        tool_set = load_tools(tools) if tools else [] if docs else DEFAULT_TOOLS
        documents = rag_cli.load_or_build(docs, stderr if json_output else console) if docs is not None else None
        if documents is not None:
            tool_set = [*tool_set, *rag_tools(documents, chosen)]
        if memory is not None:
            tool_set = [*tool_set, *memory_tools(NoteStore(memory))]
        sandbox = SandboxedPython(warm=1) if code_actions else None
        agent = Agent(
            chosen,
            Catalogue(tool_set) if tools_per_turn else tool_set,
            max_steps=max_steps,
            policy=(search_first(chosen) if docs else policy_of(chosen)).updated(tool_choice, after_results, parallel),
            on_event=None if json_output else RoundPrinter(console),
            code_actions=sandbox,
            flag_instructions=flag_instructions,
            tools_per_turn=tools_per_turn,
            context_budget=ContextBudget(context_budget) if context_budget else None,
            system_prompt=RAG_PROMPT if docs else None,
        )
    except (ValueError, sqlite3.Error) as exc:
        raise fail(str(exc)) from None
    if not json_output and model == "scripted":
        console.print(
            "[dim]model: scripted (replays a fixed demo script; --model scripted:FILE.json for your own turns)[/dim]"
        )
    if local:
        try:
            pipeline_run = documents is not None and strategy != AGENT
            load_local(chosen, stderr if json_output else console, agent.policy, calls=not pipeline_run)
        except ModelError as exc:
            raise fail(str(exc)) from None
    if documents is not None and strategy != AGENT:
        flow = pipeline(strategy, documents, chosen)
        flow.on_event = None if json_output else RoundPrinter(console)
        result: RunResult = asyncio.run(flow.run(prompt, log=log))
    else:
        result = asyncio.run(_run_agent(agent, prompt, log, sandbox))
    if json_output:
        print(json.dumps(result_json(result), ensure_ascii=False))
    else:
        show_result(console, result)
    if result.status == RunStatus.MODEL_ERROR:
        raise typer.Exit(1)


@app.command("tools")
def show_tools(
    ref: Annotated[
        str | None, typer.Argument(help="MODULE:ATTR or FILE.py:ATTR; the default tools if omitted.")
    ] = None,
) -> None:
    """Print the tool specs (name, description, JSON Schema) exactly as a model is shown them."""
    try:
        tool_set = load_tools(ref) if ref else DEFAULT_TOOLS
    except ValueError as exc:
        raise fail(str(exc)) from None
    print(json.dumps([t.spec.to_dict() for t in tool_set], indent=2, ensure_ascii=False))


def main() -> None:
    """The `toollab` console script: the app, then an exit that skips the interpreter's teardown of native code.

    Why: a command that had finished and written its output aborted now and then while the interpreter tore down
    torch's, xgrammar's and tokenizers' native threads and libraries ("terminate called without an active
    exception", SIGABRT; about one exit in a hundred under load, and it sank a CI run). Python's own shutdown still
    runs first (atexit handlers: Ray's shutdown, logging, temporary folders) and the output is flushed; only the
    native teardown after it is left to the operating system. An uncaught exception exits as usual."""
    try:
        app()
        code: int | str | None = 0
    except SystemExit as stop:
        code = stop.code
    if isinstance(code, str):  # sys.exit("message"): Python prints it and exits with 1
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()  # what a normal exit runs before tearing the interpreter down
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(ValueError, OSError):  # closed, or a pipe whose reader left
            stream.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    main()
