"""Whether the results a run has read leave the request's arithmetic undone, and which tool does it.

With direct results (`CallPolicy.direct`) a run ends as soon as a round's calls all succeed, their results the
answer. A request that asks for arithmetic over what its tools return ("How many more people live in Laos than in
Nigeria?", "Count the words in '...' and multiply that count by 6") would end with the raw numbers: SmolLM2-135M
makes the lookups right and then, offered the choice, does not open the calculator. `arithmetic_left` says when
one more call, of the offered expression tool, is due: that tool is offered and no call of this request used it,
the results hold a number, and the request asks arithmetic, by a word that names an operation or by a number of
its own that no call took ("... then add 30 to the result").
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from toollab.harness.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    UserMessage,
    last_request,
    results_since_request,
    without_quoted,
)
from toollab.harness.worded_arithmetic import as_written, enclosed
from toollab.tools import ToolSpec

# Words that ask for an operation on numbers, and its operator (a quoted span's words are data, not asked).
OPERATIONS = {
    **dict.fromkeys(("add", "plus", "sum", "total", "combined", "together", "altogether"), "+"),
    **dict.fromkeys(("minus", "subtract", "difference", "more", "less", "fewer"), "-"),
    **dict.fromkeys(("times", "multiply", "multiplied", "product", "twice", "double", "triple"), "*"),
    **dict.fromkeys(("divide", "divided", "half", "average"), "/"),
}
EXPRESSION = "expression"  # the one required parameter of an expression tool (a calculator)
_WORD = re.compile(r"[a-z]+")
_NUMBER = re.compile(r"(?<![\w.:/-])\d+(?:\.\d+)?(?![\w.:/-]*\d)")  # not a part of a date or a time


def expression_tool(tools: Sequence[ToolSpec]) -> str | None:
    """The first offered tool that evaluates an expression: its only required parameter is the string
    `expression`."""
    for tool in tools:
        schema = tool.parameters
        wanted = (schema.get("properties") or {}).get(EXPRESSION)
        only = list(schema.get("required") or []) == [EXPRESSION]
        if only and isinstance(wanted, dict) and wanted.get("type") == "string":
            return tool.name
    return None


_LAST_STEP = re.compile(r"\b(?:then|after that|afterwards|next|finally)\b")
_EARLIER_RESULT = re.compile(r"\b(?:the|that|this|its)\s+(?:total|sum|difference|product|result|answer)\b")


def operators(request: str) -> str:
    """The operators of the operations `request` names, in the order it names them, each once ("" for none). Of a
    request in steps, those of its last step when it names any: "Add 17 and 25, then multiply the total by 3" leaves
    a multiplication for the calculator, not an addition (the step before was a call's)."""
    text = without_quoted(request).lower()
    steps = _LAST_STEP.split(text)
    last = _EARLIER_RESULT.sub(" ", steps[-1])  # "then multiply the total by 3": the total is the step before's
    for part in (last, text) if len(steps) > 1 else (text,):
        words = _WORD.findall(part)
        named = "".join(dict.fromkeys(OPERATIONS[w] for w in words if w in OPERATIONS))
        if named:
            return named
    return ""


_WRITTEN_OPERATION = re.compile(r"\d\s*[-+*/×÷]\s*\(?\s*\d")  # 3757 - 165, (5.0 + 3.0) * 2.0


def asks_arithmetic(request: str, tools: Sequence[ToolSpec], said: Sequence[str] = ()) -> bool:
    """Whether `request` asks arithmetic on numbers it gives (two or more, an operation named or written) while an
    expression tool is offered: it fits the calculator however it is worded ("How much is 3757 minus 165?" is far
    from any tool's description to MiniLM), or writes it out (`written_expressions`: "What is 15% of 200?" names no
    operation). `said`: the numbers it gives otherwise than in digits ("twelve")."""
    if expression_tool(tools) is None:
        return False
    text = without_quoted(request)
    named = operators(request) or _WRITTEN_OPERATION.search(text)
    return (bool(named) and len(_NUMBER.findall(text)) + len(said) >= 2) or bool(written_expressions(request))


_EXPRESSION_SPAN = re.compile(r"[(\d][\d.\s()+\-*/×÷]*[\d)]")  # digits, operators, brackets and spaces
_DATE_LIKE = re.compile(r"\d+[-/]\d+[-/]\d+")  # 2024-01-05, 3/14/2024: dates, not sums
_SYMBOLS = str.maketrans({"×": "*", "÷": "/"})


def _balanced(span: str) -> str:
    """`span` without the brackets at its ends that it does not close or open ("5 + 3)": "5 + 3")."""
    while span[:1] == "(" and span.count("(") > span.count(")"):
        span = span[1:].strip()
    while span[-1:] == ")" and span.count(")") > span.count("("):
        span = span[:-1].strip()
    return span


def _closes(span: str) -> bool:
    """Whether every bracket of `span` is closed after it opens."""
    depth = 0
    for char in span:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def written_expressions(request: str) -> list[str]:
    """The arithmetic `request` writes out ("What is (5.0 + 3.0) * 2.0?": "(5.0 + 3.0) * 2.0"), `×` and `÷` as
    `*` and `/`, arithmetic said in words of numbers in digits written with operators (`worded_arithmetic`: "3757
    minus 165", "the sum of 4, 5 and 6", "15% of 200"), when those spans hold every number it gives: then an
    expression tool's call has only them to evaluate. [] when it writes none, or gives a number outside them ("15%
    of (200 + 50)": the 15 is asked too)."""
    text = as_written(without_quoted(request))
    spans: list[str] = []
    rest = text
    for found in _EXPRESSION_SPAN.finditer(text):
        span = _balanced(found.group().strip())
        if _WRITTEN_OPERATION.search(span) and not _DATE_LIKE.search(span) and _closes(span):
            rest = rest.replace(span, " ", 1)
            while enclosed(span):  # "(2 + 3)": the brackets hold it all
                span = span[1:-1].strip()
            spans.append(" ".join(span.translate(_SYMBOLS).split()))
    if not spans or re.search(r"\d", rest):
        return []
    return list(dict.fromkeys(spans))


def calls_since_request(messages: Sequence[Message]) -> list[ToolCall]:
    """The calls made since the user's last request."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    return [c for m in messages[start + 1 :] if isinstance(m, AssistantMessage) for c in m.tool_calls]


def held(calls: Sequence[ToolCall]) -> str:
    """What `calls` hold, as text (their arguments' JSON), to find a request's numbers in."""
    return " ".join(json.dumps(c.args_or_raw(), ensure_ascii=False) for c in calls)


def unheld_numbers(request: str, calls: Sequence[ToolCall]) -> list[str]:
    """The numbers of `request` (its quoted spans, dates and times left out) that none of `calls` holds."""
    text = held(calls)
    return [n for n in _NUMBER.findall(without_quoted(request)) if n not in text]


def arithmetic_left(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> str | None:
    """The expression tool to call next, when the results read since the user's last request leave arithmetic it
    asks undone (see the module's docstring); None otherwise."""
    tool = expression_tool(tools)
    request = last_request(messages)
    calls = calls_since_request(messages)
    if tool is None or not request or not calls or any(c.name == tool for c in calls):
        return None
    if not _NUMBER.search(results_since_request(messages)):
        return None
    return tool if operators(request) or unheld_numbers(request, calls) else None
