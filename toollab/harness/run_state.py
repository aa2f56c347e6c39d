"""The mutable state of one run, and how a run reports its events."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from toollab.harness import events
from toollab.harness.messages import AssistantMessage, Message, ToolCall, Usage
from toollab.harness.result import Round, RunResult, RunStatus

EventSink = Callable[[dict[str, Any]], None]

# The message that asks for a final answer once a limit is hit.
FINAL_PROMPT = {
    RunStatus.MAX_STEPS: "You have reached the step limit. Give your final answer now, without calling tools.",
    RunStatus.MAX_TOKENS: "You have used the token budget. Give your final answer now, without calling tools.",
    RunStatus.MAX_TOOL_CALLS: "You have used the tool-call budget. Give your final answer now, without calling tools.",
}


class RunState:
    """Everything a run accumulates. Only appended to, so a step costs the same at round 800 as at round 1."""

    def __init__(self, run_id: str, messages: list[Message], sinks: list[EventSink]):
        self.run_id = run_id
        self.messages = messages
        self.sinks = sinks
        self.rounds: list[Round] = []
        self.usage = Usage()
        self.steps = 0  # rounds that made tool calls
        self.tool_calls = 0  # calls counted against the tool-call budget (finish excluded)
        self.final_reason: RunStatus | None = None  # set once the final answer has been asked for
        self.seen_ids: set[str] = {c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
        self.started = time.perf_counter()
        self.result: RunResult | None = None

    def emit(self, event: str, **fields: Any) -> None:
        record = {"event": event, "ts": time.time(), "run_id": self.run_id, **fields}
        for sink in self.sinks:
            sink(record)

    def unique_ids(self, message: AssistantMessage) -> AssistantMessage:
        """Give every call a unique id (models omit or repeat them), so each result matches exactly one call."""
        fixed: list[ToolCall] | None = None
        for i, call in enumerate(message.tool_calls):
            call_id = call.id
            if not call_id or call_id in self.seen_ids:
                n = len(self.seen_ids)
                while f"call_{n}" in self.seen_ids:
                    n += 1
                call_id = f"call_{n}"
                fixed = fixed if fixed is not None else list(message.tool_calls)
                fixed[i] = call.model_copy(update={"id": call_id})
            self.seen_ids.add(call_id)
        return message if fixed is None else message.model_copy(update={"tool_calls": fixed})

    def close_round(self, record: Round) -> None:
        self.rounds.append(record)
        if self.sinks:
            self.emit(events.ROUND_END, round=record.to_dict())

    def end(self, status: RunStatus, answer: str | None, error: str | None = None, source: str | None = None) -> None:
        self.result = RunResult(
            run_id=self.run_id,
            status=status,
            answer=answer,
            messages=self.messages,
            rounds=self.rounds,
            usage=self.usage,
            duration_seconds=time.perf_counter() - self.started,
            error=error,
            error_source=source,
        )
        if self.sinks:
            self.emit(
                events.RUN_END,
                status=str(status),
                answer=answer,
                usage=self.usage.model_dump(),
                error=error,
                error_source=source,
                duration_seconds=self.result.duration_seconds,
            )
