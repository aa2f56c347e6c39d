"""Argument validation against a tool's JSON Schema, with problems phrased for the model.

Each problem names the field path, what was given and what is allowed, so the model can fix its next call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

_JSON_TYPE_NAMES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


@dataclass(frozen=True)
class ArgumentProblem:
    """One thing wrong with a call's arguments. `path` is like `items[2].name`; empty for the whole object."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def json_type(value: Any) -> str:
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def show(value: Any, limit: int = 80) -> str:
    """A short JSON rendering of a value for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def describe_schema(schema: Any) -> str:
    """What a schema allows, in a few words ("integer", "one of 'a', 'b'", "array of string")."""
    if not isinstance(schema, dict):
        return "anything" if schema is True else "nothing"
    if "enum" in schema:
        return "one of " + ", ".join(show(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(describe_schema(s) for s in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return f"array of {describe_schema(schema.get('items', True))}"
    if kind == "object" and schema.get("properties"):
        return "object with fields " + ", ".join(schema["properties"])
    return kind or "any value"


class ArgumentValidator:
    """Validates decoded arguments against one tool's JSON Schema."""

    def __init__(self, schema: dict[str, Any]):
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        try:
            cls.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"invalid JSON Schema for tool arguments: {exc.message}") from exc
        self._validator = cls(schema)

    def problems(self, arguments: dict[str, Any], limit: int = 8) -> list[ArgumentProblem]:
        if self._validator.is_valid(arguments):  # the fast path: no error objects built
            return []
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path)))
        # dict.fromkeys: jsonschema reports each missing field once per `required` error, listing all of them
        out = list(dict.fromkeys(p for e in errors for p in _explain(e)))
        if len(out) > limit:
            out = [*out[:limit], ArgumentProblem("", f"... and {len(out) - limit} more problems")]
        return out


def _explain(error: ValidationError) -> list[ArgumentProblem]:
    path = list(error.absolute_path)
    where = format_path(path)
    kind, schema, value = error.validator, error.schema, error.instance
    if kind == "required" and isinstance(schema, dict):
        props = schema.get("properties", {})
        missing = [name for name in error.validator_value if isinstance(value, dict) and name not in value]
        return [
            ArgumentProblem(
                format_path([*path, name]),
                f"missing required field; expected {describe_schema(props.get(name, True))}"
                + (
                    f" ({props[name]['description']})"
                    if isinstance(props.get(name), dict) and props[name].get("description")
                    else ""
                ),
            )
            for name in missing
        ]
    if kind == "additionalProperties" and isinstance(schema, dict) and isinstance(value, dict):
        allowed = list(schema.get("properties", {}))
        extra = [k for k in value if k not in allowed]
        hint = "allowed fields: " + ", ".join(allowed) if allowed else "this object takes no fields"
        return [ArgumentProblem(format_path([*path, k]), f"unexpected field; {hint}") for k in extra]
    if kind == "type":
        return [ArgumentProblem(where, f"got {show(value)} ({json_type(value)}); expected {describe_schema(schema)}")]
    if kind in ("enum", "const"):
        return [ArgumentProblem(where, f"got {show(value)}; allowed: {describe_schema(schema)}")]
    if kind in ("anyOf", "oneOf"):
        return [ArgumentProblem(where, f"got {show(value)} ({json_type(value)}); expected {describe_schema(schema)}")]
    return [ArgumentProblem(where, f"got {show(value)}; {error.message}")]
