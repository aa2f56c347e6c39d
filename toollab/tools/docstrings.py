"""Tool and parameter descriptions from a docstring in Google, NumPy or reST style."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import docstring_parser


@dataclass(frozen=True)
class DocInfo:
    description: str
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(fn: Callable[..., Any]) -> DocInfo:
    """Split a function's docstring into the tool description and per-parameter descriptions."""
    doc = inspect.getdoc(fn)
    if not doc:
        return DocInfo("")
    parsed = docstring_parser.parse(doc)  # auto-detects the style
    parts = [p for p in (parsed.short_description, parsed.long_description) if p]
    params = {p.arg_name: " ".join(p.description.split()) for p in parsed.params if p.description}
    return DocInfo("\n\n".join(parts).strip(), params)
