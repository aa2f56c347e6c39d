"""Tool descriptions: vague, clear, and clear with a worked example. What each buys in accuracy and in fewer bad
calls, and what it costs in prompt tokens."""

from __future__ import annotations

from functools import partial

from toollab.lab.countries.tasks import generate_tasks
from toollab.lab.countries.tools import STYLES, countries_tools
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, compare, mean, save, share, table
from toollab.lab.strategies.base import Call, Outcome
from toollab.lab.strategies.solvers import react

WRONG_TOOL = "wrong tool"
INVALID_ARGUMENT = "invalid argument"


def call_error(call: Call) -> str | None:
    """A failed call's kind: the wrong tool (an unknown one, or lookup asked for a population) or a bad argument."""
    if not call.is_error or call.name == "finish":
        return None
    relation = str(call.arguments.get("relation", "")) if isinstance(call.arguments, dict) else ""
    if call.error_kind == "unknown_tool" or (call.name == "lookup" and "popul" in relation.lower()):
        return WRONG_TOOL
    return INVALID_ARGUMENT


def errors_per_task(outcomes: list[Outcome], kind: str) -> float:
    return mean(sum(call_error(c) == kind for c in o.calls) for o in outcomes)


async def run(s: Settings) -> Report:
    tasks = generate_tasks(s.n, s.seed)
    tool_sets = {style: countries_tools(style) for style in STYLES}
    conditions = {str(style): partial(react, s.model, tools=tool_sets[style]) for style in STYLES}
    outcomes, by = await compare(s, tasks, conditions)
    report = Report("descriptions", s.model.name, outcomes=outcomes)
    rows = []
    for style in STYLES:
        group = by[style]
        calls = [c for o in group for c in o.calls if c.name != "finish"]
        bad = share(calls, lambda c: call_error(c) is not None) if calls else share([])
        prompt = mean(o.input_per_call[0] for o in group if o.input_per_call)
        rows.append(
            [
                style,
                cell(share(group)),
                cell(bad),
                errors_per_task(group, WRONG_TOOL),
                errors_per_task(group, INVALID_ARGUMENT),
                mean(o.tool_calls for o in group),
                prompt,
            ]
        )
        report.headline[f"accuracy {style}"] = share(group).value
        report.headline[f"bad call share {style}"] = bad.value
        report.headline[f"wrong tool per task {style}"] = errors_per_task(group, WRONG_TOOL)
        report.headline[f"invalid argument per task {style}"] = errors_per_task(group, INVALID_ARGUMENT)
        report.headline[f"prompt tokens {style}"] = prompt
    report.tables.append(
        table(
            "Tool descriptions (step by step, 95% Wilson)",
            [
                "descriptions",
                "accuracy",
                "calls that failed",
                "wrong tool / task",
                "invalid argument / task",
                "tool calls / task",
                "prompt tokens",
            ],
            rows,
        )
    )
    if s.out is not None:
        groups = {"accuracy": {str(st): share(by[st]) for st in STYLES}}
        report.files.append(bar_plot(s.out / "accuracy.png", "Accuracy by tool descriptions", groups))
    save(report, s)
    return report
