"""Harness overhead per step of this checkout against an earlier commit, side by side in one run.

The earlier commit is checked out into a temporary git worktree; each round runs the same driver (this
checkout's `overhead.run_toollab`, a scripted model calling a no-op sync tool N times) once for each side, in
alternating order, each in a fresh process importing its own toollab. Runs with and without an event log (with
one, every event is built and written to a file). Prints each side's median us/step and the ratio.

    python benchmarks/versus.py --base 0ce5985             # N = 200, 7 rounds
    python benchmarks/versus.py --base HEAD~3 --n 800 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
console = Console(width=120)

# Run in a child process whose sys.path puts one checkout's toollab first. Prints us/step (best of `repeats`).
CHILD = """
import json, sys, tempfile, time
sys.path.insert(0, {benchmarks!r})
from overhead import Script, noop
import toollab
from toollab import Agent, AssistantMessage, FunctionModel, ToolCall, tool
assert toollab.__file__.startswith({checkout!r}), toollab.__file__

def run(n, log):
    script, noop_tool = Script(n), tool(noop)
    def model(messages, tools):
        if script.next():
            return AssistantMessage(tool_calls=[ToolCall(id=f"c{{script.calls}}", name="noop", arguments={{}})])
        return AssistantMessage(content="done")
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        result = Agent(FunctionModel(model), [noop_tool], max_steps=n + 5).run_sync(
            "go", log=f"{{folder}}/run.jsonl" if log else None
        )
        elapsed = time.perf_counter() - started
    assert result.answer == "done" and len(result.tool_results) == n
    return elapsed / n * 1e6

run(5, {log})  # warm-up
print(json.dumps(min(run({n}, {log}) for _ in range({repeats}))))
"""


def measure(checkout: Path, n: int, repeats: int, log: bool) -> float:
    code = CHILD.format(benchmarks=str(ROOT / "benchmarks"), checkout=str(checkout), n=n, repeats=repeats, log=log)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),  # not a checkout: `-c` puts the working directory first on sys.path
        env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
    )
    return float(json.loads(out.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the earlier commit (any git revision)")
    parser.add_argument("--n", type=int, default=200, help="tool calls per run")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds; medians are reported")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement; the best is kept")
    args = parser.parse_args()

    revision = subprocess.run(
        ["git", "rev-parse", "--short", args.base], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), revision], cwd=ROOT, check=True)
        try:
            sides = {f"base {revision}": base, "this checkout": ROOT}
            figures: dict[tuple[str, bool], list[float]] = {(s, log): [] for s in sides for log in (False, True)}
            for r in range(args.rounds):
                order = list(sides.items()) if r % 2 == 0 else list(sides.items())[::-1]
                for log in (False, True):
                    for name, checkout in order:
                        figures[name, log].append(measure(checkout, args.n, args.repeats, log))
                console.print(f"[dim]round {r + 1}/{args.rounds}[/dim]")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)

    table = Table(
        title=f"harness overhead per step, N = {args.n}, median of {args.rounds} rounds (best of "
        f"{args.repeats} runs each)"
    )
    for column in ("event log", *sides, "ratio (this / base)", "rounds: this / base"):
        table.add_column(column, justify="right")
    base_name, this_name = list(sides)
    for log in (False, True):
        b, t = statistics.median(figures[base_name, log]), statistics.median(figures[this_name, log])
        per_round = ", ".join(
            f"{x / y:.2f}" for x, y in zip(figures[this_name, log], figures[base_name, log], strict=True)
        )
        table.add_row("written" if log else "none", f"{b:,.0f} us", f"{t:,.0f} us", f"{t / b:.2f}", per_round)
    console.print(table)


if __name__ == "__main__":
    main()
