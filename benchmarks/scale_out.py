"""Scale-out on Ray against one process, side by side on this machine, on the same BFCL items:

1. the embedded model: items/s in process (two torch threads), on one Ray worker with both CPUs, and on two Ray
   workers with one CPU each (each loads the model once: timed apart, not in the items' clock); verdicts compared;
2. the Ray path's own cost per item: the self-check (ground truth, no model) in process against one worker;
3. an estimate, from the per-category costs measured in (1), of a full BFCL run and of a sweep on a 100-node
   cluster of machines like this one.

    python benchmarks/scale_out.py                        # 2 items of each of the 12 categories
    python benchmarks/scale_out.py --per-category 4 --overhead-items 300
    python benchmarks/scale_out.py --concurrency 4        # and with batching in process and in each worker

Ray's local cluster binds 127.0.0.1 only; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import replace

from rich.console import Console
from rich.table import Table

from toollab.eval.bfcl import CATEGORIES
from toollab.eval.bfcl.data import load
from toollab.eval.bfcl.run import BfclRun, RunConfig
from toollab.eval.records import ItemRecord
from toollab.harness import Model
from toollab.scale import Executor, InProcess, executor_for, shipping

console = Console()
NODES, CPUS_PER_NODE = 100, 2
SWEEP_RUNS = 8  # e.g. 2 formats x 2 switch settings x base and adapter


def run_once(config: RunConfig, executor: Executor, model: Model | None = None) -> tuple[float, list[ItemRecord]]:
    """Seconds for the items alone (workers started and the model loaded before the clock), and the records."""
    with tempfile.TemporaryDirectory() as out:
        run = BfclRun(config, out, model=model) if model is not None else BfclRun(config, out)
        asyncio.run(executor.warm(run.model))
        started = time.perf_counter()
        asyncio.run(run.run(executor=executor))
        seconds = time.perf_counter() - started
        return seconds, sorted(run.results.read(), key=lambda r: r.id)


def ray(workers: int, cpus: float, concurrency: int = 1) -> tuple[Executor, float]:
    """A Ray executor with its workers started, and how long that took."""
    executor = executor_for("ray", workers=workers, worker_cpus=cpus, concurrency=concurrency)
    started = time.perf_counter()
    executor.start()
    return executor, time.perf_counter() - started


def model_runs(
    config: RunConfig, concurrency: int | None = None
) -> tuple[Table, dict[str, list[ItemRecord]], dict[str, float], dict[str, float]]:
    """The items on the embedded model in each place: a table, the records, seconds for the items, and seconds to
    get the workers ready (cluster start + model load)."""
    seconds: dict[str, float] = {}
    records: dict[str, list[ItemRecord]] = {}
    setup: dict[str, str] = {}
    ready: dict[str, float] = {}
    here = BfclRun(config, tempfile.mkdtemp()).model
    started = time.perf_counter()
    here.load()  # type: ignore[union-attr]
    setup["in process (2 threads)"] = f"load {time.perf_counter() - started:.1f}"
    seconds["in process (2 threads)"], records["in process (2 threads)"] = run_once(config, InProcess(1), here)
    places = [("Ray, 1 worker x 2 CPUs", 1, 2.0, 1), ("Ray, 2 workers x 1 CPU", 2, 1.0, 1)]
    if concurrency:  # continuous batching in each place as well
        batched = f"in process (2 threads), {concurrency} at a time"
        setup[batched] = "(loaded)"
        seconds[batched], records[batched] = run_once(config, InProcess(concurrency), here)
        places.append((f"Ray, 2 workers x 1 CPU, {concurrency} at a time each", 2, 1.0, concurrency))
    for label, workers, cpus, at_once in places:
        executor, start = ray(workers, cpus, at_once)
        try:
            probe = BfclRun(config, tempfile.mkdtemp()).model
            t = time.perf_counter()
            asyncio.run(executor.warm(probe))
            loading = time.perf_counter() - t
            setup[label] = f"start {start:.1f} + load {loading:.1f}"
            ready[label] = start + loading
            seconds[label], records[label] = run_once(config, executor)
        finally:
            executor.close()
    base_label = "in process (2 threads)"
    items = len(records[base_label])
    table = Table(
        title=f"BFCL, embedded model, {items} items ({config.limit} of each of {len(config.categories)} categories)"
    )
    for column in ("where", "workers ready s", "items s", "items/s", "vs in process", "items right", "same verdicts"):
        table.add_column(column, justify="left" if column == "where" else "right")
    reference = [(r.id, r.valid) for r in records[base_label]]
    for label, took in seconds.items():
        verdicts = [(r.id, r.valid) for r in records[label]]
        same = sum(a == b for a, b in zip(verdicts, reference, strict=True))
        table.add_row(
            label,
            setup[label],
            f"{took:.1f}",
            f"{items / took:.3f}",
            f"{seconds[base_label] / took:.2f}x",
            str(sum(v for _, v in verdicts)),
            f"{same}/{items}",
        )
    return table, records, seconds, ready


def overhead(n: int, rounds: int = 3) -> tuple[Table, float]:
    """The self-check's items in process and on one Ray worker, one at a time, after a warm-up of each (BFCL's
    checkers and data load on first use), alternating for `rounds`; medians."""
    per = max(1, n // 3)
    config = RunConfig(model="ground-truth", categories=["simple_python", "multiple", "parallel"], limit=per)
    executor, _ = ray(1, 1.0)
    places: dict[str, Executor] = {"in process": InProcess(1), "Ray, 1 worker": executor}
    seconds: dict[str, list[float]] = {name: [] for name in places}
    try:
        for place in places.values():
            run_once(replace(config, limit=2), place)
        for round_ in range(rounds):
            for name in list(places) if round_ % 2 == 0 else list(places)[::-1]:
                took, records = run_once(config, places[name])
                seconds[name].append(took)
    finally:
        executor.close()
    run = BfclRun(config, tempfile.mkdtemp())
    _, jobs = run.jobs()
    job_bytes = statistics.mean(len(shipping.dumps(j)) for j in jobs)
    record_bytes = statistics.mean(len(shipping.dumps(r)) for r in records)
    items = len(records)
    here, remote = (statistics.median(seconds[name]) for name in places)
    table = Table(
        title=f"The Ray path's own cost: the self-check (no model), {items} items one at a time, median of {rounds}"
    )
    for column in ("where", "seconds", "ms per item", "job bytes", "result bytes"):
        table.add_column(column, justify="left" if column == "where" else "right")
    table.add_row("in process", f"{here:.2f}", f"{1000 * here / items:.1f}", "-", "-")
    table.add_row(
        "Ray, 1 worker", f"{remote:.2f}", f"{1000 * remote / items:.1f}", f"{job_bytes:.0f}", f"{record_bytes:.0f}"
    )
    return table, (remote - here) / items


def estimate(records: list[ItemRecord], per_item_overhead: float, two_worker_seconds: float, load: float) -> Table:
    """A full run of toollab's 12 BFCL categories (and a sweep of SWEEP_RUNS of them) on NODES machines like this
    one, each running CPUS_PER_NODE one-CPU workers, from the mean cost per item of each category measured on a
    one-CPU worker."""
    cost: dict[str, list[float]] = defaultdict(list)
    for r in records:
        cost[r.category].append(r.ops.latency_seconds)
    sizes = {c: len(load_category_ids(c)) for c in CATEGORIES}
    table = Table(title=f"Estimate: {NODES} nodes x {CPUS_PER_NODE} one-CPU workers, from the costs measured above")
    for column in ("category", "items", "sampled", "s per item (1 CPU)", "worker-hours"):
        table.add_column(column, justify="left" if column == "category" else "right")
    total = 0.0
    for c in CATEGORIES:
        mean = statistics.mean(cost[c]) if cost[c] else float("nan")
        seconds = sizes[c] * (mean + per_item_overhead)
        total += seconds
        table.add_row(c, str(sizes[c]), str(len(cost[c])), f"{mean:.2f}", f"{seconds / 3600:.2f}")
    workers = NODES * CPUS_PER_NODE
    longest = max(r.ops.latency_seconds for r in records)
    wall = max(total / workers, longest) + load
    items = sum(sizes.values())
    table.add_row("all", str(items), str(len(records)), f"{total / items:.2f}", f"{total / 3600:.2f}")
    table.caption = (
        f"one full run: {total / 3600:.1f} worker-hours = {total / workers / 60:.1f} min of {workers} workers "
        f"+ {load:.0f} s to start and load, so about {wall / 60:.0f} min (never under the longest item, "
        f"{longest:.0f} s); a sweep of {SWEEP_RUNS} runs about {(SWEEP_RUNS * total / workers + load) / 60:.0f} min. "
        f"On this machine alone (2 workers, measured {two_worker_seconds:.0f} s for the sample): "
        f"{total / CPUS_PER_NODE / 3600:.1f} h a run."
    )
    return table


def load_category_ids(category: str) -> list[str]:
    return [item.id for item in load([category])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-category", type=int, default=2, help="items of each of the 12 categories")
    parser.add_argument("--overhead-items", type=int, default=150, help="self-check items for the Ray path's cost")
    parser.add_argument("--concurrency", type=int, help="also run this many items at once in each place (batching)")
    args = parser.parse_args()
    config = RunConfig(model="local", categories=list(CATEGORIES), limit=args.per_category)
    table, per_item = overhead(args.overhead_items)
    console.print(table)
    console.print(f"Ray adds {1000 * per_item:.1f} ms per item (one worker, one item at a time)")
    table, records, seconds, ready = model_runs(config, args.concurrency)
    console.print(table)
    two = "Ray, 2 workers x 1 CPU"
    console.print(estimate(records[two], per_item, seconds[two], load=ready[two]))


if __name__ == "__main__":
    main()
