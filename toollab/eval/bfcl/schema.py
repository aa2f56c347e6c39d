"""BFCL function docs to JSON Schema tools.

BFCL writes parameter types in its own vocabulary (`dict`, `float`, `tuple`, `any`, ...). Each becomes the JSON
Schema a provider or a grammar understands. Tool names keep BFCL's dots only where the format can carry them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toollab.tools import ToolSpec, safe_name

# BFCL type -> JSON Schema type; "any" has none.
TYPES: dict[str, str | None] = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "integer": "integer",
    "int": "integer",
    "string": "string",
    "str": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "any": None,
}
# Keys BFCL docs use that are not JSON Schema or only confuse a schema validator.
_DROP = {"optional", "format"}
PYTHON_NOTE = " Note that the provided function is in Python 3 syntax."


def to_json_schema(node: Any) -> Any:
    """One BFCL parameter node (recursively) as JSON Schema."""
    if isinstance(node, list):
        return [to_json_schema(x) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP:
            continue
        if key == "type" and isinstance(value, str):
            mapped = TYPES.get(value.lower(), value)
            if mapped is not None:
                out["type"] = mapped
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            out[key] = to_json_schema(value)
        else:
            out[key] = value
    if out.get("type") == "object" and "properties" in out:
        known = set(out["properties"])
        out["required"] = [r for r in out.get("required", []) if r in known]
    return out


def parameters_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """A function's whole parameter schema: an object that admits only the declared parameters (as BFCL's checker
    rejects unexpected ones)."""
    schema = to_json_schema(parameters or {"type": "dict", "properties": {}})
    schema["type"] = "object"
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    schema["additionalProperties"] = False
    return schema


@dataclass(frozen=True, slots=True)
class ToolSet:
    """An item's tools as the model sees them, and the way back from a model-facing name to BFCL's name."""

    specs: list[ToolSpec]
    original: dict[str, str]  # model-facing name -> BFCL name

    def bfcl_name(self, name: str) -> str:
        return self.original.get(name, name)


def tool_set(functions: list[dict[str, Any]], *, keep_dots: bool, python_note: bool = True) -> ToolSet:
    """ToolSpecs for BFCL function docs. `keep_dots`: formats that write names as text (pythonic) keep BFCL's
    dotted names, as in BFCL's own prompting; JSON-schema tool APIs get `safe_name`s."""
    specs: list[ToolSpec] = []
    original: dict[str, str] = {}
    for fn in functions:
        name = fn["name"] if keep_dots else safe_name(fn["name"])
        if name in original and original[name] != fn["name"]:
            raise ValueError(f"two BFCL functions map to the tool name {name!r}")
        original[name] = fn["name"]
        description = fn.get("description", "") + (PYTHON_NOTE if python_note else "")
        specs.append(ToolSpec(name, description, parameters_schema(fn.get("parameters", {}))))
    return ToolSet(specs, original)
