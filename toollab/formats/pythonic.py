"""Pythonic calls, the style BFCL prompts use: `[get_weather(city='Paris'), get_time(tz="UTC")]`.

Read with `ast` (never evaluated): keyword arguments whose values are Python literals; dotted names allowed.
"""

from __future__ import annotations

import ast
import json
import keyword
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from toollab.formats.base import CallEnvelope, Format, prose
from toollab.harness.arguments import MAX_NESTING
from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage
from toollab.tools import ToolSpec

EXPECTED = "[tool_name(param=value, ...), ...] with keyword arguments and literal values"
_LIST_START = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*\(")


def _starts(text: str, names: AbstractSet[str]) -> list[int]:
    """Where a call list may start: `[name(`, a known tool's `name(` anywhere, or any `name(` opening the text."""
    found = {m.start() for m in _LIST_START.finditer(text)}
    for m in re.finditer(r"(?<![\w.])([A-Za-z_][\w.]*)\s*\(", text):
        if m.group(1) in names or not text[: m.start()].strip():
            found.add(m.start())
    return sorted(found)


_KEYWORD_USE = re.compile(r"(?<![\w.])(" + "|".join(keyword.kwlist) + r")(?=\s*[(=])")
_ESCAPE = "__toollab_kw_"


def _escape_keywords(text: str) -> str:
    """Tool and argument names may be Python keywords (`or(...)`, `class=1`): rename them so `ast` can read them."""
    return _KEYWORD_USE.sub(lambda m: _ESCAPE + m.group(1), text)


def _unescape(name: str) -> str:
    return name.replace(_ESCAPE, "")


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _calls(tree: ast.expr, source: str) -> list[ToolCall]:
    nodes = tree.elts if isinstance(tree, ast.List | ast.Tuple) else [tree]
    calls = []
    for node in nodes:
        text = ast.get_source_segment(source, node) or ""
        if not isinstance(node, ast.Call) or _dotted(node.func) is None:
            calls.append(
                ToolCall(name="", arguments=text, parse_error=f"{text[:60]!r} is not a call. Expected {EXPECTED}")
            )
            continue
        name = _unescape(_dotted(node.func) or "")
        if node.args:
            calls.append(
                ToolCall(
                    name=name,
                    arguments=text,
                    parse_error=f"positional arguments in {name}(...); name every argument. Expected {EXPECTED}",
                )
            )
            continue
        arguments: dict[str, Any] = {}
        problem = None
        for kw in node.keywords:
            if kw.arg is None:
                problem = "**kwargs is not allowed"
                break
            try:
                arguments[_unescape(kw.arg)] = ast.literal_eval(kw.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                problem = f"the value of {kw.arg!r} is not a literal ({ast.get_source_segment(source, kw.value)!r:.60})"
                break
        if problem:
            calls.append(ToolCall(name=name, arguments=text, parse_error=f"{problem}. Expected {EXPECTED}"))
        else:
            calls.append(ToolCall(name=name, arguments=arguments))
    return calls


# Python string literals (one line, either quote) and brackets: enough to find where a bracketed span closes.
_PY_TOKEN = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[\[\](){}]""")


def _span(text: str, start: int) -> tuple[int | None, int]:
    """Just past the bracket that closes the span opening at `start` (None when it never closes), and how deeply
    the span nests. One pass over the text: trying every closing bracket from the end instead parses the text
    once per bracket, which thousands of brackets turn into seconds."""
    depth = deepest = 0
    for match in _PY_TOKEN.finditer(text, start):
        token = match.group()
        if token in ("[", "(", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("]", ")", "}"):
            depth -= 1
            if depth == 0:
                return match.end(), deepest
    return None, deepest


def find_calls(text: str, names: AbstractSet[str] = frozenset()) -> tuple[list[ToolCall], str]:
    """The first span of `text` that reads as a list of calls (or one call), and the text around it."""
    for start in _starts(text, names):
        end, deepest = _span(text, start)
        problem = "not valid Python call syntax"
        if deepest > MAX_NESTING:
            problem = f"nested too deeply (more than {MAX_NESTING} levels of brackets)"
        elif end is not None:
            candidate = text[start:end]
            try:
                tree = ast.parse(candidate, mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
            if isinstance(tree, ast.List | ast.Call):
                return _calls(tree, candidate), text[:start] + text[end:]
        # it looks like a call but cannot be read: report it rather than drop it
        name = re.match(r"\[?\s*([\w.]+)", text[start:])
        return [
            ToolCall(
                name=name.group(1) if name else "",
                arguments=text[start:],
                parse_error=f"{problem}. Expected {EXPECTED}",
            )
        ], text[:start]
    return [], text


class Pythonic(Format):
    name = "pythonic"
    envelope = CallEnvelope(trigger="[", begin="[", end="]", arguments="pythonic")
    dotted_names = True
    result_marker = "() returned:"

    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        listing = json.dumps([t.to_dict() for t in tools], ensure_ascii=False)
        # BFCL's default system prompt for prompting models, word for word, so BFCL runs use its prompting style
        return (
            "You are an expert in composing functions. You are given a question and a set of possible functions. "
            "Based on the question, you will need to make one or more function/tool calls to achieve the purpose.\n"
            "If none of the functions can be used, point it out. If the given question lacks the parameters required "
            "by the function, also point it out.\n"
            "You should only return the function calls in your response.\n\n"
            "If you decide to invoke any of the function(s), you MUST put it in the format of "
            "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]\n"
            "You SHOULD NOT include any other text in the response.\n\n"
            "At each turn, you should try your best to complete the tasks requested by the user within the current "
            "turn. Continue to output functions to call until you have fulfilled the user's request to the best of "
            "your ability. Once you have no more functions to call, the system will consider the current turn "
            "complete and proceed to the next turn or task.\n\n"
            f"Here is a list of functions in JSON format that you can invoke.\n{listing}\n"
        )

    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        parts = []
        for c in calls:
            args = c.args_or_raw()
            items = ", ".join(f"{k}={v!r}" for k, v in args.items()) if isinstance(args, dict) else ""
            parts.append(f"{c.name}({items})")
        return "[" + ", ".join(parts) + "]"

    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        return "\n".join(f"{r.name}() returned: {r.content}" for r in results)

    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        body = _escape_keywords(re.sub(r"```[a-zA-Z]*", "", text))
        calls, rest = find_calls(body, {_escape_keywords(t.name + "(")[:-1] for t in tools})
        calls = [
            c.model_copy(update={"arguments": _unescape(c.arguments)}) if isinstance(c.arguments, str) else c
            for c in calls
        ]
        rest = _unescape(rest)
        return AssistantMessage(content=prose(rest), tool_calls=calls, raw=text)
