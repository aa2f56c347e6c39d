"""Layer metrics beyond a pass/fail verdict: which tools were chosen, which arguments were right, and whether
the calls came in a workable order. They say where a failure sits, which a single accuracy number hides."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

# What BFCL's string checker ignores: case, spaces and these marks (its `standardize_string`).
_STRING_NOISE = re.compile(r"[ ,./\-_*^]")


class Selection(BaseModel):
    """Tool selection as multisets of names: the calls made against the calls expected."""

    precision: float
    recall: float
    missing: int
    extra: int


class ArgumentScore(BaseModel):
    """Arguments right out of those counted, over the expected calls paired with the calls made."""

    right: int
    counted: int
    accuracy: float


class Trajectory(BaseModel):
    """A sequence of calls against the expected one: the share reproduced in order, and of its steps in order."""

    in_order: float
    ordered_steps: float
    calls: int
    expected_calls: int


def selection(called: Sequence[str], expected: Sequence[str]) -> Selection:
    """Tool selection as multisets of names: precision, recall, and the calls missing and extra."""
    hits = sum((Counter(called) & Counter(expected)).values())
    return Selection(
        precision=hits / len(called) if called else (1.0 if not expected else 0.0),
        recall=hits / len(expected) if expected else 1.0,
        missing=len(expected) - hits,
        extra=len(called) - hits,
    )


def _normal(value: Any) -> Any:
    if isinstance(value, str):
        return _STRING_NOISE.sub("", value).lower().replace("'", '"')
    if isinstance(value, bool):
        return ("bool", value)  # True == 1 in Python; a boolean must not match a number
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    return value


def value_matches(value: Any, acceptable: Sequence[Any]) -> bool:
    """Whether a value equals one of the acceptable ones, up to case, spacing and int/float."""
    normal = _normal(value)
    return any(normal == _normal(a) for a in acceptable)


def _expected_arguments(acceptable: Mapping[str, Sequence[Any]]) -> set[str]:
    """Arguments the answer requires: "" among the acceptable values means "may be left out"."""
    return {name for name, values in acceptable.items() if "" not in values}


def argument_matches(arguments: Mapping[str, Any], acceptable: Mapping[str, Sequence[Any]]) -> tuple[int, int]:
    """(right, counted) over the union of required and given arguments; an extra or missing one counts wrong."""
    counted = _expected_arguments(acceptable) | set(arguments)
    right = sum(1 for name in counted if name in arguments and value_matches(arguments[name], acceptable.get(name, ())))
    return right, len(counted)


def arguments(
    calls: Sequence[tuple[str, Mapping[str, Any]]], expected: Sequence[tuple[str, Mapping[str, Sequence[Any]]]]
) -> ArgumentScore:
    """Per-argument accuracy: each expected call is paired with the same-named call that matches it best."""
    unused = list(calls)
    right = counted = 0
    for name, acceptable in expected:
        candidates = [c for c in unused if c[0] == name]
        if not candidates:
            counted += len(_expected_arguments(acceptable))
            continue
        best = max(candidates, key=lambda c: argument_matches(c[1], acceptable)[0])
        unused.remove(best)
        r, n = argument_matches(best[1], acceptable)
        right, counted = right + r, counted + n
    return ArgumentScore(right=right, counted=counted, accuracy=right / counted if counted else 1.0)


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        previous_diagonal = 0
        for j, y in enumerate(b, 1):
            previous_diagonal, row[j] = row[j], previous_diagonal + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def trajectory(called: Sequence[str], expected: Sequence[str]) -> Trajectory:
    """Order of a call sequence against the expected one: the share of the expected sequence reproduced in order
    (longest common subsequence), and the share of its consecutive steps (a step that depends on the one
    before, like `cd` then `ls`) done in that order."""
    pairs = list(itertools.pairwise(expected))
    kept = 0
    for first, second in pairs:
        firsts = [i for i, n in enumerate(called) if n == first]
        if firsts and any(n == second for n in called[firsts[0] + 1 :]):
            kept += 1
    return Trajectory(
        in_order=_lcs(called, expected) / len(expected) if expected else 1.0,
        ordered_steps=kept / len(pairs) if pairs else 1.0,
        calls=len(called),
        expected_calls=len(expected),
    )
