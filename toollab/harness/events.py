"""What a run reports as it happens, as typed events, and the JSONL log that records them for resuming.

Each event is a pydantic model; `Event` is their union, told apart by the `event` key. A line of the log is
an event's JSON exactly as toollab wrote it before events were typed (`tests/data` keeps logs from then, and
they still read and resume).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO, Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from toollab.harness.jsonl import json_line, read_jsonl
from toollab.harness.messages import AssistantMessage, Message, ToolCall, ToolResultMessage, Usage
from toollab.harness.result import Round, RunResult, RunStatus


class _Event(BaseModel):
    # `event` first, as every line of the log starts with it; each event narrows it to its own name
    event: str
    ts: float = Field(default_factory=time.time)
    run_id: str = ""  # set by the run that emits the event


class RunStarted(_Event):
    event: Literal["run_start"] = "run_start"
    model: str
    tools: list[dict[str, Any]]
    max_steps: int
    max_tokens: int | None = None
    max_tool_calls: int | None = None
    messages: list[Message]
    # the workflow that ran (`toollab.workflows`), absent for agent runs: an agent does not resume its log
    workflow: str | None = Field(default=None, exclude_if=lambda v: v is None)


class ModelRequested(_Event):
    event: Literal["model_request"] = "model_request"
    round: int
    messages: int  # how many messages the model was sent
    tools: int  # how many tools it was offered
    # their names, when the agent's `prepare` step or toolsets chose them (left out of the line otherwise)
    shown: list[str] | None = Field(default=None, exclude_if=lambda v: v is None)
    # toolsets that failed to list this round and kept their last listing, with what went wrong
    unlisted: list[str] | None = Field(default=None, exclude_if=lambda v: v is None)
    # the workflow step that asked (`toollab.workflows`), which names it for resume; agent runs leave it out
    step: str | None = Field(default=None, exclude_if=lambda v: v is None)


class ModelResponded(_Event):
    """The model's turn. `stop_reason` is the backend's own ("invented_result": a local model began writing a
    tool result itself and was cut there); absent from logs written before it was recorded."""

    event: Literal["model_response"] = "model_response"
    round: int
    message: AssistantMessage
    usage: Usage
    raw: str | None = None
    seconds: float = 0.0
    stop_reason: str | None = Field(default=None, exclude_if=lambda v: v is None)
    step: str | None = Field(default=None, exclude_if=lambda v: v is None)  # as in ModelRequested


class StepFailed(_Event):
    """A workflow step that raised: its model failed, or its agent ended in error. The workflow reports it (a
    parallel branch that fails leaves the others' results standing, and the run's status says it is partial)."""

    event: Literal["step_failed"] = "step_failed"
    step: str
    error: str
    source: str = "provider"


class ContextTrimmed(_Event):
    """The agent's context budget cut old rounds from what the model is sent (the history itself keeps them)."""

    event: Literal["context_trimmed"] = "context_trimmed"
    round: int
    dropped: int  # messages left out of the request
    kept: int  # messages sent
    tokens: int  # the estimated size of what was sent
    summary: str | None = None


class ToolCalled(_Event):
    event: Literal["tool_call"] = "tool_call"
    call: ToolCall
    # the code action this call was made from (its call id); left out of the line when None, so logs of runs
    # without code actions read as before
    parent: str | None = Field(default=None, exclude_if=lambda v: v is None)


class ToolReturned(_Event):
    event: Literal["tool_result"] = "tool_result"
    result: ToolResultMessage
    seconds: float = 0.0
    parent: str | None = Field(default=None, exclude_if=lambda v: v is None)


class ToolReported(_Event):
    """What a running call did with whoever runs it (`toollab.tools.call_context`): progress (`done` of `total`),
    a log line, a question to the user (`ask`, with the user's `action`) or a model completion (`sample`)."""

    event: Literal["tool_report"] = "tool_report"
    call_id: str
    kind: Literal["progress", "log", "ask", "sample"]
    done: float | None = None
    total: float | None = None
    level: str | None = None
    message: str | None = None
    action: str | None = Field(default=None, exclude_if=lambda v: v is None)


class MessageAdded(_Event):
    """A message the harness adds itself: the request for a final answer once `reason` (a limit) was hit."""

    event: Literal["message"] = "message"
    message: Message
    reason: RunStatus | None = None


class RoundEnded(_Event):
    event: Literal["round_end"] = "round_end"
    round: Round


class RunResumed(_Event):
    event: Literal["run_resumed"] = "run_resumed"
    messages: int
    steps: int


class RunEnded(_Event):
    event: Literal["run_end"] = "run_end"
    status: RunStatus
    answer: str | None = None
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None
    error_source: str | None = None
    duration_seconds: float = 0.0


def run_ended(result: RunResult) -> RunEnded:
    """The event that records how a run ended (an agent's or a workflow's)."""
    return RunEnded(
        status=result.status,
        answer=result.answer,
        usage=result.usage,
        error=result.error,
        error_source=result.error_source,
        duration_seconds=result.duration_seconds,
    )


Event = Annotated[
    RunStarted
    | ModelRequested
    | ModelResponded
    | ToolCalled
    | ToolReturned
    | MessageAdded
    | RoundEnded
    | RunResumed
    | RunEnded
    | StepFailed
    | ContextTrimmed
    | ToolReported,
    Field(discriminator="event"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


class EventLog:
    """Appends events to a JSONL file. Each line is flushed at once: a killed process loses at most one line."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] | None = self.path.open("ab")

    def __call__(self, event: Event) -> None:
        if self._file is None:
            raise ValueError(f"event log {self.path} is closed")
        self._file.write(json_line(event.model_dump(mode="json", fallback=str)))
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_events(path: str | Path) -> list[Event]:
    """All events of a log. A torn last line (the process died mid-write) is skipped; a line that is not an event
    raises ValueError naming it."""
    events = []
    for number, record in read_jsonl(path):
        try:
            events.append(EVENT_ADAPTER.validate_python(record))
        except ValidationError as exc:
            raise ValueError(f"{path}:{number}: not a toollab event ({exc.errors()[0]['msg']})") from None
    return events
