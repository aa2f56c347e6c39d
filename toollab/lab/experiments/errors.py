"""Error messages: the harness's specific, actionable messages against a bare "error", with vaguely described
tools so that mistakes are common. Counts the runs that loop on the same bad call until the step cap."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from toollab.harness.messages import Message, ToolResultMessage
from toollab.harness.model import Model, ModelResponse
from toollab.harness.request import RequestParams, policy_of
from toollab.lab.countries.tasks import generate_tasks
from toollab.lab.countries.tools import countries_tools
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, compare, mean, save, share, table
from toollab.lab.strategies.solvers import react

BARE = "error"
CONDITIONS = ("specific messages", "bare 'error'")


class BareErrors:
    """Shows the model every error result as the bare word "error" (the run's own history keeps the real text)."""

    def __init__(self, model: Model):
        self.model = model
        self.name = model.name
        self.policy = policy_of(model)

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        shown = [
            m.model_copy(update={"content": BARE}) if isinstance(m, ToolResultMessage) and m.is_error else m
            for m in messages
        ]
        return await self.model.request(shown, params)


async def run(s: Settings) -> Report:
    tasks = generate_tasks(s.n, s.seed)
    tools = countries_tools("vague")
    models = {CONDITIONS[0]: s.model, CONDITIONS[1]: BareErrors(s.model)}
    conditions = {c: partial(react, models[c], tools=tools) for c in CONDITIONS}
    outcomes, by = await compare(s, tasks, conditions)
    report = Report("errors", s.model.name, outcomes=outcomes)
    rows = []
    for c in CONDITIONS:
        group = by[c]
        failed = [o for o in group if any(call.is_error for call in o.calls)]
        rows.append(
            [
                c,
                cell(share(group)),
                cell(share(failed)),
                cell(share(group, lambda o: o.looped)),
                mean(o.tool_calls for o in group),
                mean(o.tokens for o in group),
            ]
        )
        report.headline[f"accuracy {c}"] = share(group).value
        report.headline[f"recovered {c}"] = share(failed).value
        report.headline[f"looped {c}"] = share(group, lambda o: o.looped).value
        report.headline[f"tool calls {c}"] = mean(o.tool_calls for o in group)
    report.tables.append(
        table(
            "Error messages (vague tool descriptions, step cap 8, 95% Wilson)",
            [
                "messages",
                "accuracy",
                "accuracy after an error",
                "looped to the step cap",
                "tool calls / task",
                "tokens / task",
            ],
            rows,
        )
    )
    if s.out is not None:
        groups = {
            "accuracy": {c: share(by[c]) for c in CONDITIONS},
            "looped": {c: share(by[c], lambda o: o.looped) for c in CONDITIONS},
        }
        report.files.append(bar_plot(s.out / "errors.png", "Specific against bare error messages", groups, "share"))
    save(report, s)
    return report
