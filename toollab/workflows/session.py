"""One workflow run: the steps it has taken, the events it reports, and the responses a resumed run reads back.

Every model request a workflow makes goes through `Session.ask`, under a step name unique in the run ("draft",
"pages/page 2", "revise 3"). The events are the agent loop's (`model_request`, `model_response`, `round_end`,
`tool_call` and `tool_result` for agents used as steps), each carrying its step name, so the CLI's live view and
the JSONL log work unchanged; a resumed run reads a step's recorded response instead of asking again.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field

from toollab.harness.events import (
    Event,
    ModelRequested,
    ModelResponded,
    RoundEnded,
    StepFailed,
    ToolCalled,
    ToolReturned,
    run_ended,
)
from toollab.harness.messages import AssistantMessage, Message, ToolCall, ToolResultMessage, Usage, UserMessage
from toollab.harness.model import Model, ModelError
from toollab.harness.request import RequestParams
from toollab.harness.result import Round, RunResult, RunStatus
from toollab.harness.run_state import EventSink

# The tokens used by the task that sets it (a parallel branch), for a tokens-per-minute budget to settle
branch_usage: ContextVar[list[Usage] | None] = ContextVar("branch_usage", default=None)


class StepError(Exception):
    """A step failed: its model raised, or the agent it ran ended in error."""

    def __init__(self, step: str, error: str, source: str = "provider"):
        super().__init__(f"{step}: {error}")
        self.step = step
        self.error = error
        self.source = source


class Stopped(Exception):
    """A gate rejected a step's output: the workflow ends there with status `stopped`."""

    def __init__(self, step: str, reason: str):
        super().__init__(f"{step}: {reason}")
        self.step = step
        self.reason = reason


class StepCapReached(Exception):
    """The workflow made as many model requests as its `max_requests` allows."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A step whose failure the workflow carried on past (a parallel branch), as the result reports it."""

    step: str
    error: str


@dataclass(frozen=True, slots=True)
class Recorded:
    """What a killed run's log holds: each step's response, and each agent step's answer, by step name."""

    responses: Mapping[str, tuple[AssistantMessage, Usage]] = field(default_factory=dict)
    answers: Mapping[str, ToolResultMessage] = field(default_factory=dict)


@dataclass(repr=False)
class WorkflowResult(RunResult):
    """A run result plus the failures a workflow carried on past (`failures`; the status is then `partial`)."""

    failures: list[Failure] = field(default_factory=list)


class Session:
    """The state of one workflow run. Steps call `ask` (a model request) and `delegate` (an agent's run)."""

    def __init__(
        self,
        run_id: str,
        task: str,
        sinks: Sequence[EventSink],
        recorded: Recorded | None = None,
        max_requests: int | None = None,
    ):
        self.run_id = run_id
        self.sinks = list(sinks)
        self.recorded = recorded or Recorded()
        self.max_requests = max_requests
        self.messages: list[Message] = [UserMessage(content=task)]
        self.rounds: list[Round] = []
        self.usage = Usage()
        self.failures: list[Failure] = []
        self.requests = 0  # requests asked or read back, against `max_requests`
        self.capped = False  # a loop ended at its cap without being accepted
        self.started = time.perf_counter()
        self._names: set[str] = set()

    def emit(self, event: Event) -> None:
        event.run_id = self.run_id
        for sink in self.sinks:
            sink(event)

    def claim(self, step: str) -> None:
        """Each step name is used once per run: resume finds a step's response by it."""
        if step in self._names:
            raise ValueError(f"two steps of this workflow are both named {step!r}; name each step once")
        self._names.add(step)

    async def ask(
        self, model: Model, messages: Sequence[Message], step: str, params: RequestParams | None = None
    ) -> AssistantMessage:
        """One model request under the name `step`: read back when the log has it, else asked and reported."""
        self.claim(step)
        if self.max_requests is not None and self.requests >= self.max_requests:
            raise StepCapReached(f"the workflow made its {self.max_requests} model requests (max_requests)")
        self.requests += 1
        if step in self.recorded.responses:
            message, usage = self.recorded.responses[step]
            self._add(message, usage, 0.0, step, None, None, emit=False)
            return message
        params = params or RequestParams()
        self.emit(ModelRequested(round=len(self.rounds), messages=len(messages), tools=len(params.tools), step=step))
        started = time.perf_counter()
        try:
            response = await model.request(list(messages), params)
        except ModelError as exc:
            raise self.failed(step, str(exc), exc.source) from exc
        except Exception as exc:  # a backend bug fails the step, never the harness
            raise self.failed(step, f"{type(exc).__name__}: {exc}", "harness") from exc
        self._add(
            response.message, response.usage, time.perf_counter() - started, step, response.raw, response.stop_reason
        )
        return response.message

    def _add(
        self,
        message: AssistantMessage,
        usage: Usage,
        seconds: float,
        step: str,
        raw: str | None,
        stop_reason: str | None,
        emit: bool = True,
    ) -> None:
        self.messages.append(message)
        self.usage += usage
        meter = branch_usage.get()
        if meter is not None:
            meter[0] += usage
        record = Round(len(self.rounds), "answer", usage, seconds)
        self.rounds.append(record)
        if emit:
            self.emit(
                ModelResponded(
                    round=record.index,
                    message=message,
                    usage=usage,
                    raw=raw,
                    seconds=seconds,
                    stop_reason=stop_reason,
                    step=step,
                )
            )
            self.emit(RoundEnded(round=record))

    def failed(self, step: str, error: str, source: str) -> StepError:
        """Report a failed step; the caller raises what this returns."""
        self.emit(StepFailed(step=step, error=error, source=source))
        return StepError(step, error, source)

    def recorded_answer(self, step: str) -> ToolResultMessage | None:
        return self.recorded.answers.get(step)

    def called(self, call: ToolCall) -> None:
        self.messages.append(AssistantMessage(tool_calls=[call]))
        self.emit(ToolCalled(call=call))

    def returned(self, result: ToolResultMessage, seconds: float) -> None:
        self.messages.append(result)
        self.emit(ToolReturned(result=result, seconds=seconds))

    def end(
        self, status: RunStatus, answer: str | None, error: str | None = None, source: str | None = None
    ) -> WorkflowResult:
        result = WorkflowResult(
            run_id=self.run_id,
            status=status,
            answer=answer,
            messages=self.messages,
            rounds=self.rounds,
            usage=self.usage,
            duration_seconds=time.perf_counter() - self.started,
            error=error,
            error_source=source,
            failures=list(self.failures),
        )
        self.emit(run_ended(result))
        return result
