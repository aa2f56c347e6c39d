"""Arithmetic said in words, written out: "the sum of 4, 5 and 6" as "4 + 5 + 6", "15% of 200" as "15 / 100 * 200",
"Divide 100 by 4, then add 5 to the result" as "(100 / 4) + 5", "the sum of [12, 7, 30, 1]" as "12 + 7 + 30 + 1".

A request that says its arithmetic instead of writing it gives SmolLM2-135M a worse chance than one that writes it:
offered add, multiply and a calculator, it added 4 and 5 and multiplied 4 by 6 for "What is the sum of 4, 5 and 6?",
added 100 and 5 for "Divide 100 by 4, then add 5 to the result", and answered 61.0 for "the sum of [12, 7, 30,
1]" (12 + 7, 12 + 30). Written out, the calculator's expression is a span of the request
(`chain.written_expressions`). Only numbers in digits are read (numbers said in words are the caller's to convert
first), and only the phrasings below: a phrasing not read is left as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A number in digits, maybe with thousands separators ("1,250"); not the end of a range ("15-20% of 200": no
# percentage of 200 is read) nor of a longer token, and so never negative.
_N = r"(?<![\w.,-])\d+(?:,\d{3})*(?:\.\d+)?"
_SAID_LIST = rf"{_N}(?:\s*,\s*{_N})*,?\s+and\s+{_N}"  # "4, 5 and 6", "17 and 25"
# Numbers listed in brackets ("[12, 7, 30, 1]", "[1.5,2]"): there a comma parts items, never groups thousands. Not
# one list of several ("[[1, 2], [3]]"), nor one beside another ("[1, 2] [3, 4]").
_IN_BRACKETS = r"(?<![\w\]\[])\[\s*\d+(?:\.\d+)?(?:\s*,\s*\d+(?:\.\d+)?)+\s*\](?![\w\[\]])"
_LIST = rf"(?:{_IN_BRACKETS}|{_SAID_LIST})"
_THE_NUMBERS = r"(?:the\s+(?:numbers|values)\s+)?"  # "the sum of the numbers 4, 5 and 6"
_NUMBERS = re.compile(_N)
_BRACKET_ITEM = re.compile(r"\d+(?:\.\d+)?")
# What a step after the first works on: the first's result, by a word that points back ("then add 5 to the result")
_BACK = r"(?:it|that|this|the\s+(?:result|total|sum|product|difference|quotient|answer|number))"
_TERM = rf"(?:\(\s*)*{_N}(?:\s*\))*"
_EXPRESSION = rf"{_TERM}(?:\s*[-+*/]\s*{_TERM})*"  # an expression already written (by a rewrite before, or the user)
_SAID_OPERATORS = {"times": "*", "multiplied by": "*", "plus": "+", "minus": "-", "divided by": "/"}


def _numbers(text: str) -> list[str]:
    if text.lstrip().startswith("["):
        return _BRACKET_ITEM.findall(text)
    return [n.replace(",", "") for n in _NUMBERS.findall(text)]


# Each rewrite is bracketed, so that what is said next applies to all of it ("the sum of 4, 5 and 6 times 2":
# (4 + 5 + 6) * 2); `chain.written_expressions` drops the brackets that hold a whole expression.
def _joined(operator: str) -> Callable[[re.Match[str]], str]:
    return lambda m: f" ({f' {operator} '.join(_numbers(m.group('list')))}) "


def _mean(m: re.Match[str]) -> str:
    numbers = _numbers(m.group("list"))
    return f" (({' + '.join(numbers)}) / {len(numbers)}) "


def enclosed(expression: str) -> bool:
    """Whether a bracket opened at the start of `expression` closes at its end ("(2 + 3)", not "(2 + 3) * (4)")."""
    depth = 0
    for i, char in enumerate(expression):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return i == len(expression) - 1 and char == ")"
    return False


def _step(operator: str) -> Callable[[re.Match[str]], str]:
    def written(m: re.Match[str]) -> str:
        first = m.group("first").strip()
        first = first if _NUMBERS.fullmatch(first) or enclosed(first) else f"({first})"
        return f" ({first} {operator} {m.group('n').replace(',', '')})"

    return written


def _pair(template: str, one: bool = False) -> Callable[[re.Match[str]], str]:
    """The operands `a` and `b` (`a` alone when `one`) put into `template`, without their separators."""

    def written(m: re.Match[str]) -> str:
        b = "" if one else m.group("b").replace(",", "")
        return f" ({template.format(a=m.group('a').replace(',', ''), b=b)}) "

    return written


_A, _B = rf"(?P<a>{_N})", rf"(?P<b>{_N})"
_THEN = rf"(?P<first>{_EXPRESSION})\s*[,;.]?\s*(?:and\s+)?then\s+"  # "..., then add 5", "... . Then add 5"
_REWRITES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        re.compile(r"(?<=\d)\s+(times|multiplied\s+by|plus|minus|divided\s+by)\s+(?=\d)", re.I),
        lambda m: f" {_SAID_OPERATORS[' '.join(m.group(1).lower().split())]} ",
    ),  # "12 times 3"; not "x", nor "over"
    (re.compile(rf"{_A}\s*(?:%|percent\b)\s+of\s+{_B}", re.I), _pair("{a} / 100 * {b}")),
    (re.compile(rf"\b(?:the\s+)?(?:sum|total)\s+of\s+{_THE_NUMBERS}(?P<list>{_LIST})", re.I), _joined("+")),
    (re.compile(rf"\b(?:the\s+)?product\s+of\s+{_THE_NUMBERS}(?P<list>{_LIST})", re.I), _joined("*")),
    (re.compile(rf"\b(?:the\s+)?(?:average|mean)\s+of\s+{_THE_NUMBERS}(?P<list>{_LIST})", re.I), _mean),
    (re.compile(rf"\b(?:the\s+)?difference\s+between\s+{_A}\s+and\s+{_B}", re.I), _pair("{a} - {b}")),
    (re.compile(rf"\badd\s+(?:up\s+)?{_THE_NUMBERS}(?P<list>{_LIST})(?:\s+together)?", re.I), _joined("+")),
    (re.compile(rf"\badd\s+{_A}\s+to\s+{_B}", re.I), _pair("{b} + {a}")),
    (re.compile(rf"\bsubtract\s+{_A}\s+from\s+{_B}", re.I), _pair("{b} - {a}")),
    (re.compile(rf"\bmultiply\s+(?:together\s+)?{_THE_NUMBERS}(?P<list>{_LIST})(?:\s+together)?", re.I), _joined("*")),
    (re.compile(rf"\bmultiply\s+{_A}\s+(?:by|and)\s+{_B}", re.I), _pair("{a} * {b}")),
    (re.compile(rf"\bdivide\s+{_A}\s+by\s+{_B}", re.I), _pair("{a} / {b}")),
    (re.compile(rf"\bhalf\s+of\s+{_A}", re.I), _pair("{a} / 2", one=True)),
    (re.compile(rf"\b(?:twice|double)\s+{_A}", re.I), _pair("2 * {a}", one=True)),
    (re.compile(rf"{_A}\s+squared\b", re.I), _pair("{a} * {a}", one=True)),
    (re.compile(rf"{_A}\s+cubed\b", re.I), _pair("{a} * {a} * {a}", one=True)),
]
_STEPS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(rf"{_THEN}add\s+(?P<n>{_N})(?:\s+to\s+{_BACK})?", re.I), _step("+")),
    (re.compile(rf"{_THEN}subtract\s+(?P<n>{_N})(?:\s+from\s+{_BACK})?", re.I), _step("-")),
    (re.compile(rf"{_THEN}multiply\s+(?:{_BACK}\s+)?by\s+(?P<n>{_N})", re.I), _step("*")),
    (re.compile(rf"{_THEN}divide\s+(?:{_BACK}\s+)?by\s+(?P<n>{_N})", re.I), _step("/")),
]


def as_written(text: str) -> str:
    """`text` with the arithmetic it says in words (of numbers in digits) written with operators, a step on the
    result before it bracketed onto that result; what it does not read is left as it was."""
    for pattern, written in _REWRITES:
        text = pattern.sub(written, text)
    changed = True
    while changed:  # "Multiply 3 by 4, then add 5, then divide the result by 2": one step at a time
        changed = False
        for pattern, written in _STEPS:
            text, n = pattern.subn(written, text, count=1)
            changed = changed or n > 0
    return text
