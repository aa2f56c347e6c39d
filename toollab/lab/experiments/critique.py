"""Self-critique without tools against with tools (CRITIC): answers fixed, answers broken, and the net change,
from the same kind of direct first draft."""

from __future__ import annotations

from functools import partial

from toollab.eval.stats import Proportion
from toollab.lab.countries.tasks import generate_tasks
from toollab.lab.countries.tools import countries_tools
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, compare, save, share, table
from toollab.lab.strategies.solvers import self_critique

CONDITIONS = ("self-critique, no tools", "critique with tools (CRITIC)")


async def run(s: Settings) -> Report:
    tasks = generate_tasks(s.n, s.seed)
    tools = countries_tools("clear")
    conditions = {
        CONDITIONS[0]: partial(self_critique, s.model),
        CONDITIONS[1]: partial(self_critique, s.model, tools=tools),
    }
    outcomes, _ = await compare(s, tasks, conditions)
    report = Report("critique", s.model.name, outcomes=outcomes)
    rows = []
    groups: dict[str, dict[str, Proportion]] = {"draft": {}, "after the check": {}}
    for c in CONDITIONS:
        group = [o for o in outcomes if o.strategy == c]
        fixed = sum(not o.extra["draft_correct"] and o.correct for o in group)
        broken = sum(o.extra["draft_correct"] and not o.correct for o in group)
        draft = share(group, lambda o: o.extra["draft_correct"])
        final = share(group)
        groups["draft"][c], groups["after the check"][c] = draft, final
        rows.append([c, cell(draft), cell(final), fixed, broken, f"{fixed - broken:+d}"])
        report.headline[f"fixed {c}"] = fixed
        report.headline[f"broken {c}"] = broken
        report.headline[f"net {c}"] = fixed - broken
        report.headline[f"accuracy {c}"] = final.value
    report.tables.append(
        table(
            "Self-critique (95% Wilson)", ["check", "draft accuracy", "final accuracy", "fixed", "broken", "net"], rows
        )
    )
    if s.out is not None:
        report.files.append(bar_plot(s.out / "accuracy.png", "Self-critique with and without tools", groups))
    save(report, s)
    return report
