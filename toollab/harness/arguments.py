"""Reading what a model wrote as JSON: call arguments, and the JSON inside wire formats, with nesting bounded.

A looping small model can write thousands of brackets (one token may hold several). Python's JSON decoder meets
that with RecursionError, and pydantic's serializer refuses values nested past 254 levels, so a value that got
into the history that deep would crash the event log later. Every JSON value read from a model goes through
`loads` or `raw_decode`, which raise `json.JSONDecodeError` for bad and for too deeply nested text alike.
"""

from __future__ import annotations

import json
from typing import Any

MAX_NESTING = 100  # levels of objects and arrays; real tool arguments use a handful
_CONTAINERS = (dict, list, tuple, set, frozenset)
_DECODER = json.JSONDecoder()


class NestedTooDeeply(json.JSONDecodeError):
    """JSON (or a Python literal) nested more than MAX_NESTING levels deep."""

    def __init__(self, doc: str = "", pos: int = 0):
        super().__init__(f"nested more than {MAX_NESTING} levels deep", doc, pos)


class UnreadableArguments(ValueError):
    """Arguments that are not a JSON object. `problem` says why, to follow "the arguments are" in an error
    result; `is_json` tells readable JSON of another kind (a list, a number) from text that is not JSON at all."""

    def __init__(self, problem: str, *, is_json: bool):
        super().__init__(problem)
        self.problem = problem
        self.is_json = is_json


def too_deep(value: Any) -> bool:
    """Whether `value` nests containers more than MAX_NESTING levels deep (walked level by level, no recursion)."""
    level, depth = [value], 0
    while level:
        containers = [v for v in level if isinstance(v, _CONTAINERS)]
        if not containers:
            return False
        depth += 1
        if depth > MAX_NESTING:
            return True
        level = [x for c in containers for x in (c.values() if isinstance(c, dict) else c)]
    return False


def loads(text: str) -> Any:
    """`json.loads`, raising NestedTooDeeply (a JSONDecodeError) past MAX_NESTING levels instead of recursing."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise NestedTooDeeply(text) from None
    if too_deep(value):
        raise NestedTooDeeply(text)
    return value


def raw_decode(text: str, index: int = 0) -> tuple[Any, int]:
    """`JSONDecoder().raw_decode` with the same bound: the value starting at `index`, and where it ends."""
    try:
        value, end = _DECODER.raw_decode(text, index)
    except RecursionError:
        raise NestedTooDeeply(text, index) from None
    if too_deep(value):
        raise NestedTooDeeply(text, index)
    return value, end


def problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with a JSON text, to follow "the arguments are" in an error message."""
    if isinstance(exc, NestedTooDeeply):
        return f"nested too deeply (more than {MAX_NESTING} levels of brackets)"
    return f"not valid JSON ({exc.msg} at character {exc.pos})"


def arguments_object(raw: Any) -> dict[str, Any]:
    """Call arguments as an object, whatever form they came in: an object passes through, JSON text is decoded
    (twice when it was encoded twice), nothing at all is {}. Raises UnreadableArguments otherwise."""
    if raw is None:
        return {}
    value = raw
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return {}
        try:
            value = loads(text)
            if isinstance(value, str) and value.strip().startswith("{"):
                value = loads(value)
        except json.JSONDecodeError as exc:
            raise UnreadableArguments(problem(exc), is_json=False) from None
    elif too_deep(raw):
        raise UnreadableArguments(problem(NestedTooDeeply()), is_json=False)
    if not isinstance(value, dict):
        raise UnreadableArguments(f"a JSON {_json_kind(value)}, not an object", is_json=True)
    return value


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", type(None): "null"}.get(type(value), type(value).__name__)
