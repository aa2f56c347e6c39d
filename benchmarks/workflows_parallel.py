"""The parallel workflow against the same branches one at a time: three "pages" whose model requests take 19,
34 and 38 s (simulated latency, as in the book's figure), then an aggregation step. In parallel the run should
take about the slowest page plus overhead; serially at least the sum. A third run fails page 2 and shows that
the aggregation is told so and the status is `partial`.

    python benchmarks/workflows_parallel.py               # 19, 34, 38 s: about 3 minutes in all
    python benchmarks/workflows_parallel.py --scale 0.01  # the same shape in 2 s
"""

from __future__ import annotations

import argparse
import asyncio
import time

from rich.console import Console
from rich.table import Table

from toollab.harness import ModelError
from toollab.models.scripted import FunctionModel
from toollab.workflows import Parallel, Prompt, Workflow

PAGES = {"page 1": 19.0, "page 2": 34.0, "page 3": 38.0}


def page_model(name: str, seconds: float, fail: bool) -> FunctionModel:
    async def read(messages, tools):  # type: ignore[no-untyped-def]
        await asyncio.sleep(seconds)
        if fail:
            raise ModelError(f"{name}: the server answered 503 after {seconds:.0f} s")
        return f"Summary of {name}."

    return FunctionModel(read, name=name)


def workflow(scale: float, serial: bool, failing: str | None) -> Workflow:
    branches = {p: Prompt(page_model(p, s * scale, p == failing), name="read") for p, s in PAGES.items()}
    told: list[str] = []

    def aggregate(messages, tools):  # type: ignore[no-untyped-def]
        told.append(messages[-1].content)
        return "Combined summary."

    step = Parallel(branches, Prompt(FunctionModel(aggregate), name="combine"), max_concurrency=1 if serial else None)
    flow = Workflow(step)
    flow.told = told  # type: ignore[attr-defined]
    return flow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every page's latency by this")
    args = parser.parse_args()
    console = Console(width=160)
    table = Table(title="three pages (19, 34, 38 s x scale), then aggregation")
    for column in ("run", "wall s", "max page s", "sum of pages s", "wall / max", "status", "aggregation told"):
        table.add_column(column)
    slowest, total = max(PAGES.values()) * args.scale, sum(PAGES.values()) * args.scale
    runs = (("parallel", False, None), ("serial", True, None), ("parallel, page 2 fails", False, "page 2"))
    for label, serial, failing in runs:
        flow = workflow(args.scale, serial, failing)
        started = time.perf_counter()
        result = flow.run_sync("Summarise the three pages.")
        wall = time.perf_counter() - started
        lines = flow.told[0].splitlines() if flow.told else []  # type: ignore[attr-defined]
        told = " ".join(x for x in lines if "branches answered" in x or x.startswith("Failed:"))
        table.add_row(label, f"{wall:.2f}", f"{slowest:.2f}", f"{total:.2f}", f"{wall / slowest:.3f}",
                      str(result.status), told)  # fmt: skip
    console.print(table)


if __name__ == "__main__":
    main()
