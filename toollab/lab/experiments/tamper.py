"""A tool whose results are quietly shifted, and a sanity check that compares each result with the model's own
estimate and distrusts results further from it than a threshold. What a threshold catches (tampered results
flagged) against what it costs (correct results rejected)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from toollab.harness.messages import UserMessage
from toollab.harness.model import Model
from toollab.harness.request import RequestParams
from toollab.lab.countries.tasks import Task, generate_tasks, numbers_in
from toollab.lab.countries.tools import Tamper, countries_tools, find_country
from toollab.lab.experiments.common import Report, Settings, cell, line_plot, save, share, solve_all, table
from toollab.lab.strategies import prompts
from toollab.lab.strategies.base import Outcome
from toollab.lab.strategies.solvers import react
from toollab.tools import Tool

THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.5)
THRESHOLD = 0.2  # the one the check in the runs uses
CHECKED = "checked"  # the outcome's extra that carries its sanity checks back to the run


@dataclass
class Checked:
    """One population result and its check."""

    country: str
    value: int
    estimate: int | None
    tampered: bool

    @property
    def deviation(self) -> float | None:
        if self.estimate is None or self.estimate <= 0:
            return None
        return abs(self.value - self.estimate) / self.estimate


def _beyond(threshold: float, entry: Checked) -> bool:
    return entry.deviation is not None and entry.deviation > threshold


def sanity_checked(
    tool: Tool,
    estimate: Callable[[str], Awaitable[int | None]],
    tamper: Tamper,
    log: list[Checked],
    threshold: float = THRESHOLD,
) -> Tool:
    """`tool` (the population tool) with each result compared to the model's own estimate; a result further from
    it than `threshold` comes back marked as distrusted."""

    async def checked(args: dict[str, Any]) -> str:
        value = tool.function(args)
        tampered = tamper.served[-1][2]  # read now: a parallel call may serve another value while we wait
        c = find_country(args["country"])
        entry = Checked(c.name, value, await estimate(c.name), tampered)
        log.append(entry)
        if _beyond(threshold, entry):
            return (
                f"{value} (distrusted by a sanity check: {entry.deviation:.0%} away from your own estimate of "
                f"{entry.estimate})"
            )
        return str(value)

    return Tool.from_schema(tool.name, tool.description, tool.parameters, checked, idempotent=True)


async def _estimate(model: Model, name: str) -> int | None:
    try:
        response = await model.request([UserMessage(content=prompts.ESTIMATE.format(country=name))], RequestParams())
    except Exception:  # no estimate: the result goes unjudged (the report counts those)
        return None
    found = numbers_in(response.message.content or "")
    return int(found[0]) if found else None


async def _solve(model: Model, task: Task, seed: int) -> Outcome:
    tamper = Tamper(seed=seed)
    tools = countries_tools("clear", tamper=tamper)
    log: list[Checked] = []  # this task's checks, returned in its outcome (a task may run in another process)
    # the check's estimates are requests of their own: the outcome's model calls count the agent's only
    checked = [
        sanity_checked(t, partial(_estimate, model), tamper, log) if t.name == "population" else t for t in tools
    ]
    o = await react(model, task, checked)
    o.extra["tampered"] = any(e.tampered for e in log)
    o.extra[CHECKED] = log
    return o


async def run(s: Settings) -> Report:
    tasks = generate_tasks(s.n, s.seed, ("difference", "sum"))
    outcomes = await solve_all(s, [partial(_solve, s.model, t, s.seed) for t in tasks])
    log: list[Checked] = [entry for o in outcomes for entry in o.extra.pop(CHECKED)]
    report = Report("tamper", s.model.name, outcomes=outcomes)
    judged = [e for e in log if e.deviation is not None]
    tampered = [e for e in judged if e.tampered]
    honest = [e for e in judged if not e.tampered]
    rows = []
    caught_curve, rejected_curve = [], []
    for th in THRESHOLDS:
        caught = share(tampered, partial(_beyond, th))
        rejected = share(honest, partial(_beyond, th))
        caught_curve.append(caught.value)
        rejected_curve.append(rejected.value)
        rows.append([f"{th:.0%}", cell(caught), cell(rejected)])
        report.headline[f"caught at {th}"] = caught.value
        report.headline[f"rejected correct at {th}"] = rejected.value
    report.tables.append(
        table(
            f"Sanity check by threshold ({len(judged)} population results, {len(tampered)} tampered; 95% Wilson)",
            ["distrust beyond", "tampered results caught", "correct results rejected"],
            rows,
        )
    )
    clean = [o for o in outcomes if not o.extra["tampered"]]
    dirty = [o for o in outcomes if o.extra["tampered"]]
    report.tables.append(
        table(
            "Answers (the check marks results; the model still decides)",
            ["tasks", "accuracy"],
            [["no tampered result seen", cell(share(clean))], ["a tampered result seen", cell(share(dirty))]],
        )
    )
    report.headline["accuracy untampered"] = share(clean).value
    report.headline["accuracy tampered"] = share(dirty).value
    unjudged = len(log) - len(judged)
    if unjudged:
        report.notes.append(f"{unjudged} results had no usable estimate from the model and were not judged.")
    if s.out is not None:
        series = {"tampered results caught": caught_curve, "correct results rejected": rejected_curve}
        path = line_plot(
            s.out / "thresholds.png",
            "Sanity check against tampered results",
            series,
            "distrust results further than this from the model's estimate (%)",
            "share of results flagged",
            xs=[100 * t for t in THRESHOLDS],
        )
        report.files.append(path)
    save(report, s)
    return report
