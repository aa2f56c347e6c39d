"""Code actions (CodeAct) against JSON calls (ReAct): one program a turn can make every independent call at once
and do the arithmetic itself, so a task takes fewer model turns; a failing call stops the program, and the
error message reaches the model as it would after a JSON call. Under clear and under vague tool descriptions, on
the world's tasks and on the lecture's phone task (which of five countries sells a phone cheapest: a loop)."""

from __future__ import annotations

from functools import partial

from toollab.lab.countries.tasks import LOOP, STEPS, generate_tasks
from toollab.lab.countries.tools import countries_tools
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, compare, mean, save, share, table
from toollab.lab.strategies.base import Outcome
from toollab.lab.strategies.solvers import code_act, react
from toollab.sandbox import Limits, SandboxedPython

JSON, CODE = "JSON calls (ReAct)", "code actions"


def _inside(o: Outcome) -> int:
    """The world's tools called: from programs in code actions, directly otherwise (finish not counted)."""
    return int(o.extra.get("tool_calls_inside", o.tool_calls))


async def run(s: Settings) -> Report:
    tasks = generate_tasks(s.n, s.seed) + generate_tasks(max(1, s.n // 4), s.seed, LOOP)
    clear, vague = countries_tools("clear", prices=True), countries_tools("vague", prices=True)
    async with SandboxedPython(Limits(cpu_seconds=5, wall_seconds=20), warm=2) as sandbox:
        conditions = {
            f"{JSON}, clear": partial(react, s.model, tools=clear),
            f"{CODE}, clear": partial(code_act, s.model, tools=clear, executor=sandbox),
            f"{JSON}, vague": partial(react, s.model, tools=vague),
            f"{CODE}, vague": partial(code_act, s.model, tools=vague, executor=sandbox),
        }
        outcomes, by = await compare(s, tasks, conditions)
    report = Report("codeact", s.model.name, outcomes=outcomes)
    rows = []
    for c, group in by.items():
        acc = share(group)
        turns = mean(o.model_calls for o in group)
        rows.append([c, cell(acc), turns, mean(map(_inside, group)), mean(o.tokens for o in group)])
        report.headline[f"accuracy {c}"] = acc.value
        report.headline[f"model calls {c}"] = turns
        report.headline[f"tokens {c}"] = mean(o.tokens for o in group)
    report.tables.append(
        table(
            "Code actions against JSON calls (95% Wilson; means per task)",
            ["condition", "accuracy", "model calls", "tool calls", "tokens"],
            rows,
        )
    )
    for c, group in by.items():
        phone = [o for o in group if o.task.kind == "cheapest"]
        report.headline[f"phone task model calls {c}"] = mean(o.model_calls for o in phone)
        report.headline[f"phone task accuracy {c}"] = share(phone).value
    steps = sorted(set(STEPS.values()))
    report.tables.append(
        table(
            "Model calls per task by the calls it needs (clear descriptions; 5: the phone task)",
            ["steps", JSON, CODE],
            [
                [k, *(mean(o.model_calls for o in by[f"{m}, clear"] if o.task.steps == k) for m in (JSON, CODE))]
                for k in steps
            ],
        )
    )
    if s.out is not None:
        groups = {d: {m: share(by[f"{m}, {d}"]) for m in (JSON, CODE)} for d in ("clear", "vague")}
        report.files.append(bar_plot(s.out / "accuracy.png", "Code actions against JSON calls", groups))
    save(report, s)
    return report
