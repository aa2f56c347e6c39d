"""The grammar of a constrained turn: a tool set, a wire format and a tool choice, as an xgrammar structural tag.

A format's `envelope` says how it wraps calls; the tags here hold the text between envelopes to what the choice
allows and each call's arguments to its tool's schema. JSON envelopes (hermes, text) get one tag per tool;
pythonic calls are one bracketed list with an EBNF grammar inside. Calls are separated by newlines and nothing
may follow them (xgrammar's built-in `qwen_3` tag has hermes's envelope but lets free text follow the calls).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollab.constrain.choice import ToolChoice
from toollab.constrain.pythonic_grammar import pythonic_grammar
from toollab.formats import FORMATS, Format
from toollab.tools import ToolSpec


def constrainable() -> list[str]:
    """The formats constrained decoding can write: those that declare their call envelope."""
    return [name for name, cls in FORMATS.items() if cls.envelope is not None]


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


def structural_tag(format: Format, tools: Sequence[ToolSpec], choice: ToolChoice) -> dict[str, Any]:
    """The structural tag (as JSON) for one turn."""
    envelope = format.envelope
    if envelope is None:
        raise ValueError(f"constrained decoding supports the formats {', '.join(constrainable())}, not {format.name!r}")
    if choice.mode == "none" or not tools:
        return {"type": "structural_tag", "format": {"type": "any_text", "excludes": [envelope.trigger]}}
    chosen = _chosen(tools, choice)
    if envelope.arguments == "pythonic":  # the whole call list is one tag: its brackets open and close it
        content = {"type": "grammar", "grammar": pythonic_grammar(chosen, choice.parallel, brackets=False)}
        return _tags([(envelope.begin, content, envelope.end)], choice, envelope.trigger, one_block=True)
    tags = [(envelope.opening(t.name), _arguments(t), envelope.end) for t in chosen]
    return _tags(tags, choice, envelope.trigger)
