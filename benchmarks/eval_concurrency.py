"""BFCL items per second for the embedded model one item at a time against `--concurrency N`, in one process on
one loaded model, alternating, on the same items: what continuous batching (`toollab.models.local_batch`) buys
`toollab eval` and `toollab lab`. The items' verdicts are compared one by one (batching must not change them).

    python benchmarks/eval_concurrency.py                         # 40 items (10 of each call category), 1 vs 8
    python benchmarks/eval_concurrency.py --per-category 5 --concurrency 4 8 16 --rounds 1

Each round runs every concurrency on the same items, in alternating order; the table gives the median round.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from dataclasses import replace

from rich.console import Console
from rich.table import Table

from toollab.eval.bfcl.run import BfclRun, RunConfig
from toollab.eval.records import ItemRecord

CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple"]


def run_once(config: RunConfig, model: object, concurrency: int) -> tuple[float, list[ItemRecord]]:
    with tempfile.TemporaryDirectory() as out:
        run = BfclRun(replace(config, concurrency=concurrency), out, model=model)  # type: ignore[arg-type]
        started = time.perf_counter()
        asyncio.run(run.run())
        seconds = time.perf_counter() - started
        return seconds, sorted(run.results.read(), key=lambda r: r.id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-category", type=int, default=10)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    config = RunConfig(model="local", categories=CATEGORIES, limit=args.per_category)
    model = BfclRun(config, tempfile.mkdtemp()).model  # the project's defaults for the embedded model
    model.load()  # type: ignore[union-attr]
    levels = [1, *args.concurrency]
    run_once(replace(config, limit=1), model, 1)  # warm-up: grammars, first prompts
    seconds: dict[int, list[float]] = {c: [] for c in levels}
    verdicts: dict[int, list[tuple[str, bool]]] = {}
    for round_ in range(args.rounds):
        for c in levels if round_ % 2 == 0 else levels[::-1]:
            took, records = run_once(config, model, c)
            seconds[c].append(took)
            verdicts[c] = [(r.id, r.valid) for r in records]
    items = len(verdicts[1])
    table = Table(title=f"BFCL, embedded model, {items} items, median of {args.rounds} rounds")
    for column in ("concurrency", "seconds", "items/s", "vs one at a time", "items right", "same verdicts"):
        table.add_column(column, justify="right")
    base = sorted(seconds[1])[len(seconds[1]) // 2]
    for c in levels:
        median = sorted(seconds[c])[len(seconds[c]) // 2]
        same = sum(a == b for a, b in zip(verdicts[c], verdicts[1], strict=True))
        right = sum(v for _, v in verdicts[c])
        table.add_row(
            str(c), f"{median:.1f}", f"{items / median:.2f}", f"{base / median:.2f}x", str(right), f"{same}/{items}"
        )
    Console().print(table)


if __name__ == "__main__":
    main()
