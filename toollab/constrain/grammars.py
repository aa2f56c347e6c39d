"""The grammar of a constrained turn: a tool set, a wire format and a tool choice, as an xgrammar structural tag.

hermes uses xgrammar's built-in Qwen 3 structural tag (the same `<tool_call>` envelope, byte for byte); `text`
and `pythonic` have structural tags of their own here. Each names only the offered tools and holds each tool's
arguments to its schema exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollab.constrain.choice import ToolChoice
from toollab.constrain.pythonic_grammar import pythonic_grammar
from toollab.tools import ToolSpec

SUPPORTED = ("hermes", "text", "pythonic")
# What starts a call in each format: text before it is free (in "auto"), and "none" forbids it.
TRIGGERS = {"hermes": "<tool_call>", "text": "CALL ", "pythonic": "["}


def _function_tools(tools: Sequence[ToolSpec]) -> list[Any]:
    return [{"type": "function", "function": t.to_dict()} for t in tools]


def _arguments(tool: ToolSpec) -> dict[str, Any]:
    # At most one whitespace character in a row: ", " and ": " as json.dumps writes them, but no pretty-printing
    # (a small model otherwise spends a newline and four spaces a field).
    return {"type": "json_schema", "json_schema": tool.parameters, "max_whitespace_cnt": 1}


def _chosen(tools: Sequence[ToolSpec], choice: ToolChoice) -> list[ToolSpec]:
    if choice.tool is None:
        return list(tools)
    chosen = [t for t in tools if t.name == choice.tool]
    if not chosen:
        raise ValueError(f"tool choice {choice.tool!r} names no offered tool ({', '.join(t.name for t in tools)})")
    return chosen


def _hermes(tools: Sequence[ToolSpec], choice: ToolChoice) -> dict[str, Any]:
    # The envelope of xgrammar's built-in "qwen_3" tag, byte for byte. The built-in tag itself is not used: it
    # lets free text follow the calls, and a turn must end where its calls end.
    return _tags(
        [
            (
                f'<tool_call>\n{{"name": "{t.name}", "arguments": ',
                _arguments(t),
                "}\n</tool_call>",
            )
            for t in _chosen(tools, choice)
        ],
        choice,
        TRIGGERS["hermes"],
    )


def _tags(
    begin_end: list[tuple[str, dict[str, Any], str]], choice: ToolChoice, trigger: str, one_block: bool = False
) -> dict[str, Any]:
    """Calls as tags separated by newlines, nothing after them; in "auto", free text (without the trigger) may
    come first. `one_block`: the format writes all calls in one block (pythonic lists), so one tag at most."""
    calls = {
        "type": "tags_with_separator",
        "tags": [{"type": "tag", "begin": begin, "content": content, "end": end} for begin, content, end in begin_end],
        "separator": "\n",
        "at_least_one": choice.mode != "auto",
        "stop_after_first": one_block or not choice.parallel,
    }
    if choice.mode != "auto":  # required, or a named tool: calls and nothing else
        return {"type": "structural_tag", "format": calls}
    text = {"type": "any_text", "excludes": [trigger]}
    return {"type": "structural_tag", "format": {"type": "sequence", "elements": [text, calls]}}


def _text(tools: Sequence[ToolSpec], choice: ToolChoice) -> dict[str, Any]:
    return _tags(
        [(f'CALL {{"tool": "{t.name}", "args": ', _arguments(t), "}") for t in _chosen(tools, choice)],
        choice,
        TRIGGERS["text"],
    )


def _pythonic(tools: Sequence[ToolSpec], choice: ToolChoice) -> dict[str, Any]:
    # the whole call list is one tag: "[" opens it, "]" closes it
    content = {"type": "grammar", "grammar": pythonic_grammar(_chosen(tools, choice), choice.parallel, brackets=False)}
    return _tags([("[", content, "]")], choice, TRIGGERS["pythonic"], one_block=True)


def structural_tag(format: str, tools: Sequence[ToolSpec], choice: ToolChoice) -> dict[str, Any]:
    """The structural tag (as JSON) for one turn."""
    if format not in SUPPORTED:
        raise ValueError(f"constrained decoding supports the formats {', '.join(SUPPORTED)}, not {format!r}")
    if choice.mode == "none" or not tools:
        return {"type": "structural_tag", "format": {"type": "any_text", "excludes": [TRIGGERS[format]]}}
    if format == "hermes":
        return _hermes(tools, choice)
    if format == "text":
        return _text(tools, choice)
    return _pythonic(tools, choice)
