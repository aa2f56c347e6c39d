"""Single-stage against multi-stage: answering directly from memory against acting step by step with tools, by
the number of steps a task needs; and the chain without the calculator, which must do its sums in its head."""

from __future__ import annotations

from collections import Counter
from functools import partial

from toollab.lab.countries.judging import COMPUTED_WRONG, REMEMBERED_WRONG, UNEXPLAINED, error_kind
from toollab.lab.countries.tasks import STEPS, generate_tasks
from toollab.lab.countries.tools import countries_tools
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, compare, mean, save, share, table
from toollab.lab.strategies.solvers import react, single_stage

CONDITIONS = ("single-stage", "multi-stage", "multi-stage, no calculator")


async def run(s: Settings) -> Report:
    tasks = generate_tasks(s.n, s.seed)
    tools = countries_tools("clear")
    no_calculator = countries_tools("clear", calculator=False)
    conditions = {
        CONDITIONS[0]: partial(single_stage, s.model),
        CONDITIONS[1]: partial(react, s.model, tools=tools),
        CONDITIONS[2]: partial(react, s.model, tools=no_calculator),
    }
    outcomes, by = await compare(s, tasks, conditions)
    report = Report("stages", s.model.name, outcomes=outcomes)

    steps = sorted(set(STEPS.values()))
    accuracy = {
        f"{k} step{'s' if k > 1 else ''}": {c: share(o for o in by[c] if o.task.steps == k) for c in CONDITIONS}
        for k in steps
    }
    report.tables.append(
        table(
            "Accuracy by steps the task needs (95% Wilson)",
            ["steps", *CONDITIONS],
            [[label, *(cell(p) for p in row.values())] for label, row in accuracy.items()],
        )
    )
    report.tables.append(
        table(
            "Cost per task (means)",
            ["condition", "accuracy", "model calls", "tool calls", "tokens", "latency s"],
            [
                [
                    c,
                    cell(share(by[c])),
                    mean(o.model_calls for o in by[c]),
                    mean(o.tool_calls for o in by[c]),
                    mean(o.tokens for o in by[c]),
                    mean(o.seconds for o in by[c]),
                ]
                for c in CONDITIONS
            ],
        )
    )
    kinds = Counter(error_kind(o.task, o.answer) for o in by["single-stage"])
    wrong = sum(v for k, v in kinds.items() if k is not None)
    report.tables.append(
        table(
            "Why single-stage answers were wrong (facts stated in the answer checked against the world)",
            ["error", "answers", "share of errors"],
            [
                [k, kinds[k], f"{100 * kinds[k] / wrong:.0f}%" if wrong else "-"]
                for k in (REMEMBERED_WRONG, COMPUTED_WRONG, UNEXPLAINED)
            ],
        )
    )
    arithmetic = [o for o in outcomes if o.task.kind in ("difference", "sum")]
    for c in CONDITIONS:
        report.headline[f"accuracy {c}"] = share(by[c]).value
        report.headline[f"multi-step accuracy {c}"] = share(o for o in by[c] if o.task.steps >= 3).value
        report.headline[f"arithmetic accuracy {c}"] = share(o for o in arithmetic if o.strategy == c).value
        report.headline[f"model calls {c}"] = mean(o.model_calls for o in by[c])
        report.headline[f"tokens {c}"] = mean(o.tokens for o in by[c])
    report.headline["single-stage remembered wrong"] = kinds[REMEMBERED_WRONG]
    report.headline["single-stage computed wrong"] = kinds[COMPUTED_WRONG]
    if s.out is not None:
        report.files.append(bar_plot(s.out / "accuracy_by_steps.png", "Accuracy by steps needed", accuracy))
    save(report, s)
    return report
