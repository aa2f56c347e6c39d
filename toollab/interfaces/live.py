"""The command line's view of a run: each round as its events arrive, and the result as a panel or as JSON."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from toollab.formats import to_openai
from toollab.harness import RunResult
from toollab.harness.events import (
    ContextTrimmed,
    Event,
    MessageAdded,
    ModelResponded,
    RoundEnded,
    StepFailed,
    ToolReported,
    ToolReturned,
)


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class RoundPrinter:
    """Prints each round as its events arrive: raw output, parsed calls, results, tokens and time."""

    def __init__(self, out: Console):
        self.out = out

    def __call__(self, event: Event) -> None:
        if isinstance(event, ModelResponded):
            self.out.rule(f"round {event.round + 1}" + (f": {event.step}" if event.step else ""), style="cyan")
            if event.raw:
                self.out.print(Panel(Text(event.raw), title="raw model output", border_style="dim"))
            if event.message.content:
                self.out.print(Text(event.message.content))
            if event.stop_reason == "invented_result":
                self.out.print(Text("harness: the model began writing a tool result itself; cut there", "yellow"))
            for c in event.message.tool_calls:
                self.out.print(Text.assemble(("call", "bold"), f" {c.name}({_short(c.arguments)})  ", (c.id, "dim")))
        elif isinstance(event, ToolReturned):
            r = event.result
            style = "red" if r.is_error else "green"
            self.out.print(
                Text.assemble(
                    ("  error" if r.is_error else "  result", style),
                    f" {r.name}: {_short(r.content)}  ",
                    (f"{r.call_id}, {event.seconds * 1000:.1f} ms", "dim"),
                )
            )
        elif isinstance(event, RoundEnded):
            done, u = event.round, event.round.usage
            self.out.print(
                f"[dim]tokens in {u.input_tokens} (cached {u.cached_input_tokens}), out {u.output_tokens}; "
                f"model {done.model_seconds:.2f} s, tools {done.tool_seconds:.3f} s[/dim]"
            )
        elif isinstance(event, MessageAdded):
            self.out.print(Text.assemble(("harness", "yellow"), f": {event.message.content}"))
        elif isinstance(event, ToolReported):
            if event.kind == "progress":
                of = f" of {event.total:g}" if event.total is not None else ""
                said = f"{event.done:g}{of}" + (f": {event.message}" if event.message else "")
            else:
                said = f"{event.level}: {event.message}"
            self.out.print(Text.assemble((f"  {event.kind}", "dim"), f" {said}  ", (event.call_id, "dim")))
        elif isinstance(event, StepFailed):
            self.out.print(Text.assemble(("step failed", "red"), f" {event.step}: {event.error}"))
        elif isinstance(event, ContextTrimmed):
            self.out.print(
                Text(
                    f"harness: {event.dropped} old messages left out of the request ({event.tokens} tokens sent)",
                    "yellow",
                )
            )


def summary(result: RunResult) -> str:
    return (
        f"status {result.status}, {len(result.rounds)} rounds, {len(result.tool_calls)} tool calls, "
        f"{result.usage.input_tokens} tokens in, {result.usage.output_tokens} out, "
        f"{result.duration_seconds:.2f} s"
    )


def result_json(result: RunResult) -> dict[str, Any]:
    """The run as one JSON object: messages in the OpenAI Chat Completions shape, usage per round."""
    return {
        "answer": result.answer,
        "status": str(result.status),
        "messages": to_openai(result.messages),
        "usage": [r.to_dict() for r in result.rounds],
        "total_usage": result.usage.model_dump(),
        "duration_seconds": result.duration_seconds,
        "error": result.error,
    }


def show_result(out: Console, result: RunResult) -> None:
    """The answer, the error if any, and the summary line."""
    out.rule(style="cyan")
    if result.answer is not None:
        out.print(Panel(Text(result.answer), title="answer", border_style="green"))
    if result.error:
        out.print(f"[red]{result.error_source} error:[/red] {result.error}")
    out.print(summary(result))
