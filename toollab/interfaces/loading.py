"""Loading a user's tools from `MODULE:ATTR` or `path/to/file.py:ATTR`."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from toollab.tools import Tool


def load_object(ref: str) -> Any:
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected MODULE:ATTR or FILE.py:ATTR, got {ref!r}")
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ValueError(f"no such file: {path}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ValueError(f"cannot import {module_name!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(f"{module_name!r} has no attribute {attr!r}") from None


def as_tools(obj: Any) -> list[Tool]:
    """A Tool, a function, or a list of either, as a list of tools."""
    items = obj if isinstance(obj, list | tuple) else [obj]
    tools = []
    for item in items:
        if isinstance(item, Tool):
            tools.append(item)
        elif callable(item):
            tools.append(Tool.from_function(item))
        else:
            raise ValueError(f"not a tool or function: {item!r:.60}")
    return tools


def load_tools(ref: str) -> list[Tool]:
    return as_tools(load_object(ref))
