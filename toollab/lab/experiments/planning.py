"""Plan first (ReWOO) against step by step (ReAct): on tasks whose steps are independent, plan-first needs two
model requests whatever the number of calls; on tasks where a step needs the previous result read, it plans
blind and loses accuracy."""

from __future__ import annotations

from functools import partial

from toollab.lab.countries.tasks import DEPENDENT, INDEPENDENT, generate_tasks
from toollab.lab.countries.tools import countries_tools
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, compare, mean, save, share, table
from toollab.lab.strategies.solvers import plan_first, react

CONDITIONS = ("step by step (ReAct)", "plan first (ReWOO)")


async def run(s: Settings) -> Report:
    tools = countries_tools("clear")
    independent = generate_tasks(s.n, s.seed, INDEPENDENT)
    dependent = generate_tasks(s.n, s.seed + 1, DEPENDENT)
    tasks = independent + dependent
    conditions = {
        CONDITIONS[0]: partial(react, s.model, tools=tools),
        CONDITIONS[1]: partial(plan_first, s.model, tools=tools),
    }
    outcomes, _ = await compare(s, tasks, conditions)
    report = Report("planning", s.model.name, outcomes=outcomes)
    rows = []
    groups: dict[str, dict] = {"independent steps": {}, "dependent steps": {}}
    for label, kinds in (("independent steps", INDEPENDENT), ("dependent steps", DEPENDENT)):
        for c in CONDITIONS:
            group = [o for o in outcomes if o.strategy == c and o.task.kind in kinds]
            acc = share(group)
            groups[label][c] = acc
            rows.append(
                [
                    label,
                    c,
                    cell(acc),
                    mean(o.model_calls for o in group),
                    mean(o.tool_calls for o in group),
                    mean(o.tokens for o in group),
                    mean(o.seconds for o in group),
                ]
            )
            key = label.split()[0]
            report.headline[f"{key} accuracy {c}"] = acc.value
            report.headline[f"{key} model calls {c}"] = mean(o.model_calls for o in group)
            report.headline[f"{key} tokens {c}"] = mean(o.tokens for o in group)
    report.tables.append(
        table(
            "Plan first against step by step (95% Wilson)",
            ["tasks", "strategy", "accuracy", "model calls", "tool calls", "tokens", "latency s"],
            rows,
        )
    )
    if s.out is not None:
        report.files.append(bar_plot(s.out / "accuracy.png", "Plan first against step by step", groups))
    save(report, s)
    return report
