"""What every strategy returns, and the meter that counts a strategy's model calls, tokens and time."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toollab.harness import FINISH
from toollab.harness.messages import Message, ToolCall, ToolResultMessage, Usage
from toollab.harness.model import Model, ModelResponse
from toollab.harness.request import RequestParams, policy_of
from toollab.harness.result import RunResult, RunStatus
from toollab.lab.countries.tasks import Task, is_correct


class Meter:
    """Wraps a model for one task: every request is counted, with its usage and seconds. A simulated model's
    latency (`metadata["simulated_seconds"]`) is used when there is one, measured time otherwise."""

    def __init__(self, model: Model):
        self.model = model
        self.name = model.name
        self.policy = policy_of(model)  # an agent around the meter asks as it would ask the model
        self.calls = 0
        self.usage = Usage()
        self.seconds = 0.0
        self.input_per_call: list[int] = []

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        started = time.perf_counter()
        response = await self.model.request(messages, params)
        self.calls += 1
        self.usage += response.usage
        self.input_per_call.append(response.usage.input_tokens)
        self.seconds += response.metadata.get("simulated_seconds", time.perf_counter() - started)
        return response


NO_RESULT = "no result"  # the error_kind of a call that never got its result


@dataclass
class Call:
    """A tool call of a run and how it went; `arguments` as an object when the model's text reads as one."""

    name: str
    arguments: Any
    is_error: bool
    error_kind: str | None = None
    result: str = ""

    def argument(self, key: str) -> str:
        """One argument as text ("" when absent or when the arguments are not an object)."""
        return str(self.arguments.get(key, "")) if isinstance(self.arguments, dict) else ""


@dataclass
class Outcome:
    """One task solved (or not) by one strategy."""

    task: Task
    strategy: str
    answer: str | None
    model_calls: int
    input_tokens: int
    output_tokens: int
    seconds: float
    calls: list[Call] = field(default_factory=list)
    status: RunStatus = RunStatus.COMPLETED
    extra: dict[str, Any] = field(default_factory=dict)
    input_per_call: list[int] = field(default_factory=list)  # input tokens of each model request, in order
    correct: bool = field(init=False)

    def __post_init__(self) -> None:
        self.correct = is_correct(self.task, self.answer)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def tool_calls(self) -> int:
        return sum(c.name != FINISH for c in self.calls)

    @property
    def looped(self) -> bool:
        """Hit the step cap while repeating one failing call (its last three calls the same, all errors)."""
        tail = [c for c in self.calls if c.name != FINISH][-3:]
        return (
            self.status == RunStatus.MAX_STEPS
            and len(tail) == 3
            and all(c.is_error for c in tail)
            and all((c.name, str(c.arguments)) == (tail[0].name, str(tail[0].arguments)) for c in tail)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task.id,
            "kind": self.task.kind,
            "question": self.task.question,
            "expected": self.task.answer,
            "strategy": self.strategy,
            "answer": self.answer,
            "correct": self.correct,
            "status": self.status,
            "model_calls": self.model_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "seconds": self.seconds,
            "tool_calls": self.tool_calls,
            "input_per_call": self.input_per_call,
            "looped": self.looped,
            "calls": [c.__dict__ for c in self.calls],
            **self.extra,
        }


def calls_of(messages: Sequence[Message]) -> list[Call]:
    """The calls of a conversation with their results, in order."""
    results = {m.call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    out = []
    for m in messages:
        for c in getattr(m, "tool_calls", []):
            r = results.get(c.id)
            out.append(_call(c, r))
    return out


def _call(c: ToolCall, r: ToolResultMessage | None) -> Call:
    if r is None:
        return Call(c.name, c.args_or_raw(), True, NO_RESULT)
    return Call(c.name, c.args_or_raw(), r.is_error, r.error_kind, r.content)


def outcome(task: Task, strategy: str, meter: Meter, answer: str | None, **kwargs: Any) -> Outcome:
    return Outcome(
        task,
        strategy,
        answer,
        meter.calls,
        meter.usage.input_tokens,
        meter.usage.output_tokens,
        meter.seconds,
        input_per_call=list(meter.input_per_call),
        **kwargs,
    )


def run_outcome(task: Task, strategy: str, meter: Meter, run: RunResult, **extra: Any) -> Outcome:
    """The outcome of an agent run."""
    return outcome(task, strategy, meter, run.answer, calls=calls_of(run.messages), status=run.status, extra=extra)
