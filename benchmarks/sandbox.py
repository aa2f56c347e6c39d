"""What a sandboxed program costs: toollab's SandboxedPython beside its peers, in one run.

Rows (median of --repeats, milliseconds):
- cold start: a fresh sandbox per call (`warm=0`): bwrap, the namespaces and a Python start, then `pass`;
- warm call: a runner started in advance (`warm=2`), the program sent and its report read back;
- a tool call from inside: a program calling a harness function 100 times over the channel, per call;
- the fallback (rlimits only, no bwrap), cold;
- peers: `subprocess.run([python, "-c", "pass"])` (a bare process: no isolation, no limits) and smolagents'
  `LocalPythonExecutor` (in-process AST interpreter: no isolation), and Python's own `exec` in-process.
The ratio column is each row against toollab's warm call.

    python benchmarks/sandbox.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

from rich.console import Console
from rich.table import Table

from toollab.sandbox import Limits, SandboxedPython, bwrap

console = Console(width=140)
LIMITS = Limits(cpu_seconds=5, wall_seconds=20)
CALLS = 100


async def timed(step: Callable[[], Awaitable[object]], repeats: int) -> float:
    """The median of `repeats` runs of `step`, in milliseconds (one unmeasured run first)."""
    await step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        await step()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def measure(repeats: int) -> list[tuple[str, float, str]]:
    rows: list[tuple[str, float, str]] = []

    async def add(arguments: dict[str, object]) -> object:
        return arguments["a"]

    loop_code = f"for i in range({CALLS}): add(a=i)"
    async with SandboxedPython(LIMITS, isolation="bwrap", warm=0) as cold:
        rows.append(("toollab, cold start (bwrap)", await timed(lambda: cold.run("pass"), repeats), "isolated"))
    async with SandboxedPython(LIMITS, isolation="bwrap", warm=2) as warm:

        async def timed_warm() -> float:  # with a model's turn between calls: the pool refills meanwhile
            times = []
            for _ in range(repeats + 1):
                start = time.perf_counter()
                await warm.run("pass")
                times.append((time.perf_counter() - start) * 1000)
                await asyncio.sleep(0.05)
            return statistics.median(times[1:])

        rows.append(("toollab, warm call (bwrap)", await timed_warm(), "isolated"))
        empty = await timed(lambda: warm.run("pass", {"add": add}), repeats)
        looped = await timed(lambda: warm.run(loop_code, {"add": add}), repeats)
        rows.append(("toollab, a tool call from inside (per call)", (looped - empty) / CALLS, "isolated"))
    async with SandboxedPython(LIMITS, isolation="fallback", warm=0) as fallback:
        rows.append(("toollab, cold start (fallback)", await timed(lambda: fallback.run("pass"), repeats), "rlimits"))

    async def bare() -> object:
        return await asyncio.to_thread(subprocess.run, [sys.executable, "-I", "-S", "-c", "pass"], check=True)

    rows.append(("subprocess.run(python -c pass)", await timed(bare, repeats), "none"))
    try:
        from smolagents.local_python_executor import LocalPythonExecutor

        executor = LocalPythonExecutor(additional_authorized_imports=[])
        executor.send_tools({})

        async def smol() -> object:
            return executor("x = 1")

        rows.append(("smolagents LocalPythonExecutor", await timed(smol, repeats), "none (in-process)"))
    except ImportError:
        console.print("smolagents is not installed: pip install -e '.[bench]'")

    async def in_process() -> object:
        exec("pass", {})
        return None

    rows.append(("exec in the harness's process", await timed(in_process, repeats), "none"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    if not bwrap.works():
        raise SystemExit(f"bwrap cannot run here: {bwrap.why_not()}")
    rows = asyncio.run(measure(args.repeats))
    reference = next(ms for name, ms, _ in rows if "warm call" in name)
    table = Table(title=f"A program's cost, median of {args.repeats} (ms)")
    for column in ("", "ms", "vs warm call", "isolation"):
        table.add_column(column, justify="right" if column in ("ms", "vs warm call") else "left")
    for name, ms, isolation in rows:
        table.add_row(name, f"{ms:.3f}", f"{ms / reference:.2f}x", isolation)
    console.print(table)


if __name__ == "__main__":
    main()
