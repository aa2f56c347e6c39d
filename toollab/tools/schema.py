"""JSON Schema for tool arguments: built from type hints with pydantic, then cleaned for model providers.

The cleaned schema is what the model sees and what arguments are validated against, so it must be accepted by
OpenAI and Anthropic: an object at the top, `$ref`s inlined, `const` spelled as `enum`, no pydantic titles, and
`additionalProperties: false` on every object with declared properties.
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

# Keywords whose value is a map of name -> subschema, a list of subschemas, or one subschema.
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains")


def arguments_model(fn: Callable[..., Any], param_docs: dict[str, str]) -> type[BaseModel]:
    """A pydantic model of `fn`'s parameters; extra fields are forbidden."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except NameError as exc:
        raise TypeError(f"cannot resolve the type hints of {fn.__qualname__}: {exc}") from exc
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"{fn.__qualname__}: *args and **kwargs cannot be described to a model")
        if param.kind is param.POSITIONAL_ONLY:
            raise TypeError(f"{fn.__qualname__}: positional-only parameter {param.name!r} cannot be passed by name")
        if param.name.startswith("_"):
            raise TypeError(f"{fn.__qualname__}: parameter names may not start with '_' ({param.name!r})")
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        doc = param_docs.get(param.name)
        # without a docstring entry, leave room for a description given in Annotated[..., Field(...)]
        fields[param.name] = (annotation, Field(default, description=doc) if doc else Field(default))
    return create_model(
        f"{fn.__name__}_arguments", __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False), **fields
    )


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a provider-friendly copy of a pydantic JSON Schema (see module docstring)."""
    schema = copy.deepcopy(schema)
    defs = schema.pop("$defs", {})
    recursive = {name for name in defs if _refers_to(defs[name], name, defs, set())}
    out = _clean(schema, defs, recursive, ())
    if recursive:
        out["$defs"] = {name: _clean(defs[name], defs, recursive, (name,)) for name in sorted(recursive)}
    out.setdefault("type", "object")
    out.setdefault("properties", {})
    out.setdefault("additionalProperties", False)
    return out


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _refers_to(node: Any, target: str, defs: dict[str, Any], seen: set[str]) -> bool:
    """Whether `node` reaches a `$ref` to `target` (so inlining it would never end)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = _ref_name(ref)
            if name == target:
                return True
            if name not in seen and name in defs:
                seen.add(name)
                if _refers_to(defs[name], target, defs, seen):
                    return True
        return any(_refers_to(v, target, defs, seen) for v in node.values())
    if isinstance(node, list):
        return any(_refers_to(v, target, defs, seen) for v in node)
    return False


def _clean(node: Any, defs: dict[str, Any], recursive: set[str], stack: tuple[str, ...]) -> Any:
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and _ref_name(ref) in defs and _ref_name(ref) not in recursive:
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        node = {**defs[_ref_name(ref)], **siblings}  # a sibling description overrides the model's docstring
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _clean(sub, defs, recursive, stack) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_clean(sub, defs, recursive, stack) for sub in value]
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            out[key] = _clean(value, defs, recursive, stack)
        elif key == "$ref" and isinstance(value, str):
            out[key] = "#/$defs/" + _ref_name(value)
        else:
            out[key] = value
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if out.get("type") == "object" and "properties" in out:
        out.setdefault("additionalProperties", False)
    return out
