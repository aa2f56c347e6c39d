"""Sweeps: a YAML grid of run settings expanded into runs, each a run folder of its own (resumable on its own),
whose items all go to one executor.

    out: runs/sweep-formats          # where the run folders go (default: runs/sweep-<file name>)
    base:                            # RunConfig fields every run shares
      dataset: bfcl
      categories: [simple_python, multiple]
      limit: 20
    grid:                            # every combination of these values is a run
      format: [hermes, pythonic]
      switches: ["", "gate=off"]

A run's folder is named after its grid values (`format-hermes__switches-gate-off`); `toollab.eval.bfcl.run.run_all`
runs the items of all of them on one executor.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from toollab.eval.bfcl.run import RunConfig

FIELDS = {f.name for f in dataclasses.fields(RunConfig)}


@dataclass(frozen=True)
class SweepRun:
    name: str  # the run's folder name under the sweep's out
    config: RunConfig


@dataclass(frozen=True)
class Sweep:
    out: Path
    runs: list[SweepRun]


def _label(value: Any) -> str:
    text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
    return re.sub(r"[^A-Za-z0-9_.]+", "-", text).strip("-") or "default"


def _fields(where: str, values: Any) -> dict[str, Any]:
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise ValueError(f"{where} must be a mapping of run settings")
    unknown = set(values) - FIELDS
    if unknown:
        raise ValueError(
            f"{where}: unknown setting(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(FIELDS))}"
        )
    return values


def _config(fields: dict[str, Any]) -> RunConfig:
    fields = dict(fields)
    categories = fields.get("categories")
    if isinstance(categories, str):
        fields["categories"] = [c.strip() for c in categories.split(",") if c.strip()]
    if "model" not in fields:
        fields["model"] = "local"
    if not fields.get("categories"):
        raise ValueError("a run needs categories (in base or grid)")
    if fields.get("switches") is None:
        fields["switches"] = ""
    return RunConfig(**fields)


def expand(document: dict[str, Any], default_out: Path) -> Sweep:
    """The runs a sweep document describes, in grid order (the last key varies fastest)."""
    if not isinstance(document, dict):
        raise ValueError("a sweep file holds a mapping with base and grid")
    unknown = set(document) - {"out", "base", "grid"}
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}: a sweep has out, base and grid")
    base = _fields("base", document.get("base"))
    grid = _fields("grid", document.get("grid"))
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"grid.{key} must be a non-empty list of values")
    runs = []
    for combination in itertools.product(*grid.values()):
        chosen = dict(zip(grid, combination, strict=True))
        name = "__".join(f"{key}-{_label(value)}" for key, value in chosen.items()) or "run"
        runs.append(SweepRun(name, _config({**base, **chosen})))
    if len({r.name for r in runs}) < len(runs):
        raise ValueError("two runs of the grid would share a folder: their values differ only in punctuation")
    return Sweep(Path(document.get("out") or default_out), runs)


def load_sweep(path: str | Path) -> Sweep:
    path = Path(path)
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"cannot read the sweep {path}: {exc}") from None
    return expand(document, Path("runs") / f"sweep-{path.stem}")
