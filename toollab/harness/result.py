"""What a run returns: the answer, how it ended, every message, and per-round usage and timings."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from toollab.harness.messages import MESSAGES_ADAPTER, AssistantMessage, Message, ToolCall, ToolResultMessage, Usage

RoundKind = Literal["tools", "answer", "final"]  # "final": the request for an answer once a limit was hit


class RunStatus(StrEnum):
    COMPLETED = "completed"  # the model called finish, or answered without calling a tool
    MAX_STEPS = "max_steps"
    MAX_TOKENS = "max_tokens"
    MAX_TOOL_CALLS = "max_tool_calls"
    CANCELLED = "cancelled"
    MODEL_ERROR = "model_error"
    # workflows (`toollab.workflows`): some parallel branches failed and the answer says which; a gate stopped it
    PARTIAL = "partial"
    STOPPED = "stopped"


@dataclass(slots=True)
class Round:
    """One model request and the calls it made. `kind`: "tools", "answer" or "final" (the no-tools request)."""

    index: int
    kind: RoundKind
    usage: Usage
    model_seconds: float
    tool_seconds: float = 0.0
    tool_calls: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "usage": self.usage.model_dump(),
            "model_seconds": self.model_seconds,
            "tool_seconds": self.tool_seconds,
            "tool_calls": self.tool_calls,
        }


@dataclass(repr=False)
class RunResult:
    run_id: str
    status: RunStatus
    answer: str | None
    messages: list[Message]
    rounds: list[Round] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    duration_seconds: float = 0.0
    error: str | None = None
    error_source: str | None = None  # "model", "harness" or "provider", when status is model_error

    def __repr__(self) -> str:
        # Short on purpose: asyncio (3.11) reprs a task's result when asyncio.run ends, and a run's full history
        # can hold thousands of messages.
        answer = self.answer if self.answer is None or len(self.answer) < 60 else self.answer[:57] + "..."
        return (
            f"RunResult(status={self.status.value!r}, answer={answer!r}, messages={len(self.messages)}, "
            f"rounds={len(self.rounds)}, usage={self.usage!r})"
        )

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [c for m in self.messages if isinstance(m, AssistantMessage) for c in m.tool_calls]

    @property
    def tool_results(self) -> list[ToolResultMessage]:
        return [m for m in self.messages if isinstance(m, ToolResultMessage)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "status": str(self.status),
            "answer": self.answer,
            "messages": MESSAGES_ADAPTER.dump_python(self.messages, mode="json"),
            "rounds": [r.to_dict() for r in self.rounds],
            "usage": self.usage.model_dump(),
            "duration_seconds": self.duration_seconds,
            "error": self.error,
            "error_source": self.error_source,
        }
