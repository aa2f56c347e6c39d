"""The grammar of a constrained turn: a tool set, a wire format and a tool choice, as an xgrammar structural tag.

A format's `envelope` says how it wraps calls; the tags here hold the text between envelopes to what the choice
allows and each call's arguments to its tool's schema. JSON envelopes (hermes, text) get one tag per tool;
pythonic calls are one bracketed list with an EBNF grammar inside. Calls are separated by newlines and nothing
may follow them (xgrammar's built-in `qwen_3` tag has hermes's envelope but lets free text follow the calls).
"""

from __future__ import annotations

from typing import Any

from toollab.constrain.pythonic_grammar import pythonic_grammar
from toollab.formats import FORMATS, Format
from toollab.harness.request import RequestParams
from toollab.tools import ToolSpec


def constrainable() -> list[str]:
    """The formats constrained decoding can write: those that declare their call envelope."""
    return [name for name, cls in FORMATS.items() if cls.envelope is not None]


def _arguments(tool: ToolSpec) -> dict[str, Any]:
    # At most one whitespace character in a row: ", " and ": " as json.dumps writes them, but no pretty-printing
    # (a small model otherwise spends a newline and four spaces a field).
    return {"type": "json_schema", "json_schema": tool.parameters, "max_whitespace_cnt": 1}


def _chosen(params: RequestParams) -> list[ToolSpec]:
    named = params.named_tool
    if named is None:
        return list(params.tools)
    chosen = [t for t in params.tools if t.name == named]
    if not chosen:
        offered = ", ".join(t.name for t in params.tools)
        raise ValueError(f"tool choice {named!r} names no offered tool ({offered})")
    return chosen


def _tags(
    begin_end: list[tuple[str, dict[str, Any], str]], params: RequestParams, trigger: str, one_block: bool = False
) -> dict[str, Any]:
    """Calls as tags separated by newlines, nothing after them; in "auto", free text (without the trigger) may
    come first. `one_block`: the format writes all calls in one block (pythonic lists), so one tag at most."""
    calls = {
        "type": "tags_with_separator",
        "tags": [{"type": "tag", "begin": begin, "content": content, "end": end} for begin, content, end in begin_end],
        "separator": "\n",
        "at_least_one": params.tool_choice != "auto",
        "stop_after_first": one_block or not params.parallel,
    }
    if params.tool_choice != "auto":  # required, or a named tool: calls and nothing else
        return {"type": "structural_tag", "format": calls}
    text = {"type": "any_text", "excludes": [trigger]}
    return {"type": "structural_tag", "format": {"type": "sequence", "elements": [text, calls]}}


def structural_tag(format: Format, params: RequestParams) -> dict[str, Any]:
    """The structural tag (as JSON) for one turn."""
    envelope = format.envelope
    if envelope is None:
        raise ValueError(f"constrained decoding supports the formats {', '.join(constrainable())}, not {format.name!r}")
    if params.tool_choice == "none" or not params.tools:
        return {"type": "structural_tag", "format": {"type": "any_text", "excludes": [envelope.trigger]}}
    chosen = _chosen(params)
    if envelope.arguments == "pythonic":  # the whole call list is one tag: its brackets open and close it
        content = {"type": "grammar", "grammar": pythonic_grammar(chosen, params.parallel, brackets=False)}
        return _tags([(envelope.begin, content, envelope.end)], params, envelope.trigger, one_block=True)
    tags = [(envelope.opening(t.name), _arguments(t), envelope.end) for t in chosen]
    return _tags(tags, params, envelope.trigger)
