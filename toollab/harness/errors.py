"""Error results written for the model: each says what was wrong and what is allowed."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any

from toollab.tools import ArgumentProblem, Tool

# Values of ToolResultMessage.error_kind.
UNKNOWN_TOOL = "unknown_tool"
INVALID_JSON = "invalid_json"
PARSE_ERROR = "parse_error"
INVALID_ARGUMENTS = "invalid_arguments"
DENIED = "denied"
TOOL_ERROR = "tool_error"
TIMEOUT = "timeout"
CANCELLED = "cancelled"
INTERRUPTED = "interrupted"
BUDGET = "budget"
TOOLS_DISABLED = "tools_disabled"
NOT_ALONE = "not_alone"  # the finish action came beside tool calls


def unknown_tool(name: Any, valid: Sequence[str]) -> str:
    shown = json.dumps(name) if isinstance(name, str) else repr(name)
    text = f"Unknown tool {shown}."
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6) if isinstance(name, str) else []
    if close:
        text += f" Did you mean {close[0]!r}?"
    return text + " Valid tools: " + (", ".join(valid) if valid else "none") + "."


def unparsable(detail: str) -> str:
    return f"Your tool call could not be read: {detail}"


def example_arguments(tool: Tool) -> str:
    """A JSON object naming the tool's required fields, to show the expected shape."""
    props = tool.parameters.get("properties", {})
    required = tool.parameters.get("required", list(props)[:1])
    return "{" + ", ".join(f'"{name}": ...' for name in required) + "}"


def unreadable_arguments(tool: Tool, problem: str) -> str:
    """`problem` as `toollab.harness.arguments` words it: "not valid JSON (...)", "a JSON array, not an object"."""
    return f"Arguments for {tool.name!r} are {problem}. Send a JSON object such as {example_arguments(tool)}."


def invalid_arguments(tool: Tool, problems: Sequence[ArgumentProblem]) -> str:
    lines = [f"Invalid arguments for {tool.name!r}:"]
    lines += [f"- {p}" for p in problems]
    return "\n".join(lines)


def tool_failed(tool: Tool, exc: BaseException) -> str:
    detail = str(exc).strip()
    return f"Tool {tool.name!r} failed: {type(exc).__name__}" + (f": {detail}" if detail else "")


def timed_out(tool: Tool, seconds: float) -> str:
    return f"Tool {tool.name!r} timed out after {seconds:g} s and was stopped; its result is unknown."


def denied(tool: Tool, has_approver: bool) -> str:
    if not has_approver:
        return f"Tool {tool.name!r} was not run: it has side effects and needs approval, and no approver is set."
    return f"Tool {tool.name!r} was not run: the approver denied this call."


def cancelled(name: str) -> str:
    return f"Call to {name!r} was cancelled before it finished; its result is unknown."


def interrupted(name: str) -> str:
    return f"Call to {name!r} was interrupted (the run stopped) and was not re-run; its result is unknown."


def budget_exhausted(name: str, limit: int) -> str:
    return f"Call to {name!r} was not run: the run's budget of {limit} tool calls is used up."


def not_alone(name: str) -> str:
    return (
        f"Call to {name!r} was not run: it must come alone, in a turn of its own, once the results of your other "
        "calls are back. Read them, then call it again."
    )


def tools_disabled(name: str) -> str:
    return f"Call to {name!r} was not run: tools are disabled now; answer with what you know."
