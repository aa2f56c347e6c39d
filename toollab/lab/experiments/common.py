"""What every experiment shares: its settings, running many tasks with progress, tables with Wilson intervals,
plots, and the files it writes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from rich.table import Table

from toollab.eval.stats import Proportion
from toollab.harness.model import Model
from toollab.lab.countries.tasks import Task
from toollab.lab.strategies.base import Outcome
from toollab.scale import Executor, InProcess

ProgressHook = Callable[[int, int], None]  # (done, total)
Job = Callable[[], Awaitable[Outcome]]


@dataclass
class Settings:
    model: Model
    n: int = 100
    seed: int = 0
    out: Path | None = None  # where tables, outcomes and plots go; nothing is written when None
    on_progress: ProgressHook | None = None
    concurrency: int = 1  # tasks in flight at once (a local model decodes them together)
    executor: Executor | None = None  # where tasks run (None: in this process, `concurrency` at a time)


@dataclass
class Report:
    """An experiment's result: tables to print, the headline figures its tests check, and what it wrote."""

    name: str
    model: str
    tables: list[Table] = field(default_factory=list)
    headline: dict[str, float] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    transcript: str = ""  # text to show before the tables (the protocol experiment's wire)
    files: list[Path] = field(default_factory=list)


async def solve_all(s: Settings, jobs: Sequence[Job]) -> list[Outcome]:
    """Run the jobs on the settings' executor (in this process by default, `concurrency` at a time), reporting
    progress; outcomes in the jobs' order. A job may run in another process: what it finds goes in its outcome."""
    finished = 0

    def done(index: int, outcome: Outcome) -> None:
        nonlocal finished
        finished += 1
        if s.on_progress is not None:
            s.on_progress(finished, len(jobs))

    return await (s.executor or InProcess(s.concurrency)).run(jobs, done)


async def compare(
    s: Settings, tasks: Sequence[Task], conditions: Mapping[str, Callable[[Task], Awaitable[Outcome]]]
) -> tuple[list[Outcome], dict[str, list[Outcome]]]:
    """Every task under every condition, task by task (so the conditions stay paired); each outcome labelled with
    its condition. Returns all outcomes and them grouped by condition."""
    jobs = [partial(solve, t) for t in tasks for solve in conditions.values()]
    outcomes = await solve_all(s, jobs)
    for o, label in zip(outcomes, list(conditions) * len(tasks), strict=True):
        o.strategy = label
    return outcomes, {label: [o for o in outcomes if o.strategy == label] for label in conditions}


def share(items: Iterable[Any], test: Callable[[Any], bool] = lambda o: o.correct) -> Proportion:
    """How many of `items` pass `test` (by default: outcomes answered correctly), with its Wilson interval."""
    items = list(items)
    return Proportion(sum(map(test, items)), len(items))


def cell(p: Proportion) -> str:
    """41.0% [31.9, 50.8] (41/100)."""
    return str(p)


def mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    t = Table(title=title, title_justify="left")
    for i, c in enumerate(columns):
        t.add_column(c, justify="left" if i == 0 else "right")
    for row in rows:
        t.add_row(*(f"{v:.2f}" if isinstance(v, float) else str(v) for v in row))
    return t


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def _save(figure: Any, path: Path, title: str, xlabel: str, ylabel: str) -> Path:
    axes = figure.axes[0]
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    _pyplot().close(figure)
    return path


def bar_plot(path: Path, title: str, groups: Mapping[str, Mapping[str, Proportion]], ylabel: str = "accuracy") -> Path:
    """Grouped bars (one group per key of `groups`, one bar per condition) with Wilson 95% error bars."""
    plt = _pyplot()
    conditions = list(dict.fromkeys(c for bars in groups.values() for c in bars))
    width = 0.8 / max(1, len(conditions))
    figure, axes = plt.subplots(figsize=(max(5.0, 1.6 * len(groups) + 2), 3.6))
    for j, condition in enumerate(conditions):
        xs, ys, low, high = [], [], [], []
        for i, bars in enumerate(groups.values()):
            if condition in bars:
                p = bars[condition]
                lo, hi = p.interval
                xs.append(i + (j - (len(conditions) - 1) / 2) * width)
                ys.append(p.value)
                low.append(max(0.0, p.value - lo))
                high.append(max(0.0, hi - p.value))
        axes.bar(xs, ys, width, yerr=[low, high], capsize=3, label=condition)
    axes.set_xticks(range(len(groups)), list(groups))
    longest = max((len(c) for c in conditions), default=1)
    columns = min(len(conditions), max(1, 64 // longest))  # a row of the legend no wider than the figure
    if columns == len(conditions):
        axes.set_ylim(0, 1.25)  # headroom for a one-row legend inside the axes
        axes.legend(fontsize="small", loc="upper center", ncol=columns)
    else:  # long names: the legend in rows below the axes
        axes.set_ylim(0, 1.05)
        axes.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=columns)
        figure.set_figheight(3.6 + 0.25 * -(-len(conditions) // columns))
    return _save(figure, path, title, "", ylabel)


def line_plot(
    path: Path,
    title: str,
    series: Mapping[str, Sequence[float]],
    xlabel: str,
    ylabel: str,
    xs: Sequence[float] | None = None,
) -> Path:
    """One line per series; x is 1, 2, ... unless `xs` gives the values."""
    figure, axes = _pyplot().subplots(figsize=(5.5, 3.6))
    for label, ys in series.items():
        axes.plot(xs if xs is not None else range(1, len(ys) + 1), ys, marker="o", label=label)
    axes.legend(fontsize="small")
    return _save(figure, path, title, xlabel, ylabel)


def save(report: Report, settings: Settings) -> None:
    """outcomes.jsonl (one line per task and condition) and summary.json (the headline figures) under `out`."""
    if settings.out is None:
        return
    settings.out.mkdir(parents=True, exist_ok=True)
    outcomes = settings.out / "outcomes.jsonl"
    with outcomes.open("w", encoding="utf-8") as f:
        for o in report.outcomes:
            f.write(json.dumps(o.to_dict(), ensure_ascii=False, default=str) + "\n")
    summary = settings.out / "summary.json"
    data = {"experiment": report.name, "model": report.model, "n": settings.n, "seed": settings.seed}
    summary.write_text(json.dumps({**data, "headline": report.headline, "notes": report.notes}, indent=2) + "\n")
    report.files = [outcomes, summary, *report.files]
