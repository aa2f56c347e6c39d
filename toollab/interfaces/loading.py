"""Loading a user's tools from `MODULE:ATTR` or `path/to/file.py:ATTR`."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from toollab.harness.request import CallPolicy, policy_of
from toollab.scale import Executor
from toollab.tools import Tool
from toollab.tools.served import Served


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


def load_served(ref: str) -> Served:
    """What a server at `ref` offers: a `Served` (tools, resources, prompts) as it is, or tools."""
    obj = load_object(ref)
    return obj if isinstance(obj, Served) else Served(tools=as_tools(obj))


def load_local(model: Any, out: Console, policy: CallPolicy | None = None, calls: bool = True) -> None:
    """Load a local model's weights before the work starts, saying so (the first load takes about 20 s), with
    how it will be asked for calls (`policy`, the model's own by default; not said when `calls` is False: a
    workflow asks for text).

    Models without weights to load pass through. Raises ModelError when the weights cannot be loaded.
    """
    if model is None or not hasattr(model, "is_loaded") or model.is_loaded():
        return
    with out.status(f"Loading {model.display_name} (once per process, about 20 s on two cores)..."):
        loaded = model.load()
    decoding = "constrained" if getattr(model, "constraint", None) is not None else "unconstrained"
    asked = policy or policy_of(model)
    turns = "several calls a turn" if asked.parallel else "one call a turn"
    how = f"; tool choice {asked.first_turn} on the first turn, {asked.after_results} after results, {turns}"
    out.print(
        f"[dim]loaded {loaded.source} in {loaded.load_seconds:.1f} s ({loaded.weights}), "
        f"format {model.format.name}, {decoding}{how if calls else ''}[/dim]"
    )


def ready_to_run(
    executor: Executor, models: Sequence[tuple[Any, str, CallPolicy | None]], out: Console, calls: bool = True
) -> None:
    """Before the first item: in process, each local model's weights loaded (`load_local`, with how it will be
    asked for calls: `(model, label, policy)`); on remote workers, the workers started once and each model loaded
    on every one, with spinners. Raises ModelError, ConnectionError (the cluster cannot be reached) or ValueError
    (it cannot hold the workers asked for)."""
    if not executor.remote:
        for model, _, policy in models:
            load_local(model, out, policy, calls)
        return
    with out.status(f"starting {executor.description}..."):
        executor.start()
    for model, label, _ in models:
        if model is not None and hasattr(model, "load"):
            with out.status(f"loading {label} on every worker of {executor.description}..."):
                asyncio.run(executor.warm(model))
    out.print(f"[dim]items run on {executor.description}[/dim]")


def progress_bar(out: Console, *fields: str) -> Progress:
    """A progress bar with count, elapsed time and ETA, plus `fields` (rich markup naming task fields)."""
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *(TextColumn(f) for f in fields),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    return Progress(*columns, console=out)
