"""The grammar of a constrained turn: a tool set, a wire format and a tool choice, as an xgrammar structural tag.

A format's `envelope` says how it wraps calls; the tags here hold the text between envelopes to what the choice
allows and each call's arguments to its tool's schema. JSON envelopes (hermes, text) get one tag per tool;
pythonic calls are one bracketed list with an EBNF grammar inside. Calls are separated by newlines and nothing
may follow them (xgrammar's built-in `qwen_3` tag has hermes's envelope but lets free text follow the calls).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollab.constrain.pythonic_grammar import pythonic_grammar
from toollab.formats import FORMATS, Format
from toollab.formats.base import CallEnvelope
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


def _tag(begin: str, content: dict[str, Any], end: str) -> dict[str, Any]:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def _call_tags(envelope: CallEnvelope, tools: Sequence[ToolSpec], parallel: bool) -> list[dict[str, Any]]:
    """One tag per tool (JSON envelopes), or one tag holding the whole call list (pythonic)."""
    if envelope.arguments == "pythonic":  # the brackets open and close the list
        grammar = pythonic_grammar(tools, parallel, brackets=False)
        return [_tag(envelope.begin, {"type": "grammar", "grammar": grammar}, envelope.end)]
    return [_tag(envelope.opening(t.name), _arguments(t), envelope.end) for t in tools]


def _calls(tags: list[dict[str, Any]], at_least_one: bool, one: bool) -> dict[str, Any]:
    """Calls separated by newlines, nothing after them."""
    return {
        "type": "tags_with_separator",
        "tags": tags,
        "separator": "\n",
        "at_least_one": at_least_one,
        "stop_after_first": one,
    }


def structural_tag(format: Format, params: RequestParams) -> dict[str, Any]:
    """The structural tag (as JSON) for one turn.

    In "auto" free text (without the call trigger) may come first; "required" and a named tool allow calls and
    nothing else. The finish action (`params.finish`) is offered only alone: a turn holds tool calls or a finish,
    never both (a finish beside calls would end the run before their results were read).
    """
    envelope = format.envelope
    if envelope is None:
        raise ValueError(f"constrained decoding supports the formats {', '.join(constrainable())}, not {format.name!r}")
    if params.tool_choice == "none" or not params.tools:
        return {"type": "structural_tag", "format": {"type": "any_text", "excludes": _openings(envelope)}}
    chosen = _chosen(params)
    if envelope.arguments == "code":  # one program a turn; the answer is prose (no finish call in this format)
        program = _tag(envelope.begin, {"type": "any_text", "excludes": ["```"]}, envelope.end)
        turn = _calls([program], params.tool_choice != "auto", one=True)
        if params.tool_choice != "auto":
            return {"type": "structural_tag", "format": turn}
        text = {"type": "any_text", "excludes": _openings(envelope)}
        return {"type": "structural_tag", "format": {"type": "sequence", "elements": [text, turn]}}
    one = envelope.arguments == "pythonic" or not params.parallel
    tools = [t for t in chosen if t.name != params.finish]
    finish = [t for t in chosen if t.name == params.finish]
    must_call = params.tool_choice != "auto"
    if not finish:
        turn = _calls(_call_tags(envelope, tools, params.parallel), must_call, one)
    elif not tools:
        turn = _calls(_call_tags(envelope, finish, parallel=False), must_call, one=True)
    else:
        calls = _calls(_call_tags(envelope, tools, params.parallel), must_call, one)
        alone = _calls(_call_tags(envelope, finish, parallel=False), at_least_one=True, one=True)
        turn = {"type": "or", "elements": [calls, alone]}
    if must_call:
        return {"type": "structural_tag", "format": turn}
    text = {"type": "any_text", "excludes": _openings(envelope)}
    return {"type": "structural_tag", "format": {"type": "sequence", "elements": [text, turn]}}


def _openings(envelope: CallEnvelope) -> list[str]:
    """What text outside a call may not hold: the trigger, and for a tag trigger (`<tool_call>`) any `<`. Told to
    answer, the shipped adapter wrote broken calls as its answer (`<tool_call id="...">`, `<tool_call\n>`,
    `<tool_callog>`); with the tag's name excluded it wrote `<tool_ call>`, `< Tool_call>` and `<function-name>`
    instead; with `<` excluded it answers in words (16 such tasks of the dev split: 0 then 6 right). The price:
    prose beside tools cannot hold a `<`."""
    if envelope.trigger.startswith("<") and envelope.trigger.endswith(">"):
        return ["<"]
    return [envelope.trigger]
