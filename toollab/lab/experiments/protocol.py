"""One multi-step run on the wire: what the model is sent and what it writes, round by round, and how the input
grows because the whole history is sent again each round."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from functools import partial
from typing import Any

from toollab.formats import Format, to_openai
from toollab.harness.messages import Message
from toollab.harness.model import Model, ModelResponse
from toollab.harness.request import RequestParams, policy_of
from toollab.harness.result import RunStatus
from toollab.lab.countries.tasks import generate_tasks
from toollab.lab.countries.tools import countries_tools
from toollab.lab.experiments.common import Report, Settings, line_plot, mean, save, solve_all, table
from toollab.lab.strategies.solvers import react


class Wiretap:
    """Keeps the prompt text of the last request and every raw output, as the model's wire format renders them."""

    def __init__(self, model: Model):
        self.model = model
        self.name = model.name
        self.policy = policy_of(model)
        self.prompt = ""
        self.outputs: list[str] = []

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        fmt: Any = getattr(self.model, "format", None)
        if isinstance(fmt, Format):
            chat = fmt.to_chat(messages, params.tools)
            self.prompt = "\n".join(f"<|{m['role']}|>\n{m['content']}" for m in chat)
        else:  # an HTTP model: the messages as the OpenAI wire carries them
            self.prompt = json.dumps(to_openai(list(messages)), indent=1, ensure_ascii=False)
        response = await self.model.request(messages, params)
        self.outputs.append(response.raw if response.raw is not None else str(response.message.model_dump()))
        return response


async def run(s: Settings) -> Report:
    tasks = generate_tasks(max(1, s.n), s.seed, ("sum",))
    tools = countries_tools("clear")
    tap = Wiretap(s.model)
    first = await react(tap, tasks[0], tools)
    rest = await solve_all(s, [partial(react, s.model, t, tools) for t in tasks[1:]])
    outcomes = [first, *rest]
    report = Report("protocol", s.model.name, outcomes=outcomes)
    lines = [f"Task: {tasks[0].question}  (expected {tasks[0].answer}; answered {first.answer!r})", ""]
    for i, out in enumerate(tap.outputs, 1):
        lines += [f"--- round {i}: the model wrote ---", out]
    lines += ["", "--- the last request, as sent (the whole history again) ---", tap.prompt]
    report.transcript = "\n".join(lines)
    sent = first.input_per_call
    report.tables.append(
        table(
            "Input tokens per round of the run above",
            ["round", "input tokens", "new since the last round", "sent so far"],
            [[r + 1, sent[r], sent[r] - (sent[r - 1] if r else 0), sum(sent[: r + 1])] for r in range(len(sent))],
        )
    )
    total = mean(sum(o.input_per_call) for o in outcomes)
    last = mean(o.input_per_call[-1] for o in outcomes if o.input_per_call)
    report.tables.append(
        table(
            f"Over {len(outcomes)} runs of 4-call tasks (means)",
            ["rounds", "input tokens sent", "input tokens of the last round", "sent / last"],
            [[mean(len(o.input_per_call) for o in outcomes), total, last, f"{total / last:.1f}x" if last else "-"]],
        )
    )
    if first.status == RunStatus.MODEL_ERROR:
        report.notes.append(f"the run shown ended with a model error after {len(sent)} answered requests")
    report.headline["rounds"] = len(sent)
    report.headline["first round input tokens"] = sent[0] if sent else 0
    report.headline["last round input tokens"] = sent[-1] if sent else 0
    report.headline["input tokens sent"] = float(sum(sent))
    report.headline["input grows every round"] = float(all(b > a for a, b in itertools.pairwise(sent)))
    report.headline["mean input tokens sent"] = total
    if s.out is not None:
        (s.out).mkdir(parents=True, exist_ok=True)
        wire = s.out / "wire.txt"
        wire.write_text(report.transcript + "\n", encoding="utf-8")
        report.files += [
            wire,
            line_plot(
                s.out / "input_tokens.png",
                "Input tokens per round",
                {"input tokens": [float(x) for x in sent]},
                "round",
                "tokens",
            ),
        ]
    save(report, s)
    return report
