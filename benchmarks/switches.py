"""Each switch of the local agent measured on the dev set, alone and in combination, with McNemar's test.

Runs `toollab eval synth` once per configuration (two at a time, one torch thread each; every run folder is
resumable), on the same items, then prints per-category accuracy and the paired comparison of each
configuration with the agent before any switch (`before`) and with the current defaults (`default`). Tune here,
on the dev set; BFCL stays the final judge.

    python benchmarks/switches.py                       # dev split, 30 items a category, runs/switches/
    python benchmarks/switches.py --limit 10 --configs before default without_gate with_one_call
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console
from rich.table import Table

from toollab.eval.compare import compare_runs
from toollab.eval.synth import SYNTH_CATEGORIES
from toollab.models.switches import Switches

console = Console(width=160)
NAMES = [f.name for f in dataclasses.fields(Switches)]


def spec(switches: Switches) -> str:
    return ",".join(f"{name}={'on' if getattr(switches, name) else 'off'}" for name in NAMES)


def configurations() -> dict[str, Switches]:
    """`before` (every switch off), `default`, the default without each switch that is on, with each that is
    off, and before with each switch alone."""
    default, before = Switches(), Switches.none()
    out = {"before": before, "default": default}
    for name in NAMES:
        flipped = dataclasses.replace(default, **{name: not getattr(default, name)})
        out[("without_" if getattr(default, name) else "with_") + name] = flipped
    for name in NAMES:
        out[f"before_with_{name}"] = dataclasses.replace(before, **{name: True})
    return out


def run(name: str, switches: Switches, args: argparse.Namespace) -> Path:
    folder = Path(args.out) / name
    command = [
        sys.executable, "-m", "toollab", "eval", "synth", "--split", args.split, "--limit", str(args.limit),
        "--categories", ",".join(args.categories), "--switches", spec(switches), "--out", str(folder),
    ]  # fmt: skip
    with (Path(args.out) / f"{name}.log").open("w") as log:
        subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--out", default="runs/switches")
    parser.add_argument("--categories", nargs="+", default=list(SYNTH_CATEGORIES))
    parser.add_argument("--configs", nargs="+", help="which configurations (default: all)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    every = configurations()
    chosen = {k: every[k] for k in (args.configs or every)}
    Path(args.out).mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(args.workers) as pool:
        folders = dict(zip(chosen, pool.map(lambda kv: run(kv[0], kv[1], args), chosen.items()), strict=True))

    table = Table(title=f"dev set ({args.split}, {args.limit} items a category): accuracy, and McNemar's p against")
    table.add_column("configuration")
    for category in args.categories:
        table.add_column(category.removeprefix("synth_"), justify="right")
    for column in ("all", "vs before", "vs default"):
        table.add_column(column, justify="right")
    for name, folder in folders.items():
        against = {ref: compare_runs(folders[ref], folder) if ref in folders and ref != name else None for ref in
                   ("before", "default")}  # fmt: skip
        base = against["before"] or against["default"] or compare_runs(folder, folder)
        cells = [f"{100 * base['categories'][c]['b']['value']:.0f}%" for c in args.categories]
        overall = base["all"]["b"]
        paired = [
            "-" if r is None else f"{100 * r['all']['difference']:+.1f} pts, p={r['all']['p_value']:.2g}"
            for r in against.values()
        ]
        table.add_row(name, *cells, f"{100 * overall['value']:.1f}%", *paired)
    console.print(table)


if __name__ == "__main__":
    main()
