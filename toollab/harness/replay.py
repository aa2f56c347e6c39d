"""Rebuilding a run's state from its event log, for `Agent.resume`."""

from __future__ import annotations

from typing import Any

from toollab.harness import errors, events
from toollab.harness.messages import (
    MESSAGE_ADAPTER,
    MESSAGES_ADAPTER,
    AssistantMessage,
    ToolResultMessage,
    Usage,
)
from toollab.harness.result import Round, RunResult, RunStatus
from toollab.harness.run_state import EventSink, RunState

_NOT_RUN = (errors.BUDGET, errors.TOOLS_DISABLED)  # results of calls that did not count against the budget


class Replayed:
    """A run rebuilt from its log: its state, the stored result if it had ended, and its last model response."""

    def __init__(self, state: RunState, ended: RunResult | None, last_response: dict[str, Any] | None, responses: int):
        self.state = state
        self.ended = ended
        self.last_response = last_response
        self.responses = responses


def last_run(recorded: list[dict[str, Any]], source: object) -> list[dict[str, Any]]:
    """The events of the last run in a log."""
    starts = [i for i, e in enumerate(recorded) if e["event"] == events.RUN_START]
    if not starts:
        raise ValueError(f"{source}: no run_start event; not a toollab event log")
    return recorded[starts[-1] :]


def replay(recorded: list[dict[str, Any]], sinks: list[EventSink], control: str | None) -> Replayed:
    """Rebuild the state of the run whose events start with its run_start. `control` is the finish action's name.

    Results are logged as they complete, so they are put back after their assistant turn in call order.
    """
    start = recorded[0]
    state = RunState(start["run_id"], MESSAGES_ADAPTER.validate_python(start["messages"]), sinks)
    pending: dict[str, ToolResultMessage] = {}
    last_response: dict[str, Any] | None = None
    responses = 0

    def place_results() -> None:
        last = state.messages[-1] if state.messages else None
        if isinstance(last, AssistantMessage) and last.tool_calls:
            state.messages.extend(pending.pop(c.id) for c in last.tool_calls if c.id in pending)

    for event in recorded[1:]:
        kind = event["event"]
        if kind == events.MODEL_RESPONSE:
            place_results()
            message = AssistantMessage.model_validate(event["message"])
            state.messages.append(message)
            state.seen_ids.update(c.id for c in message.tool_calls)
            state.usage += Usage.model_validate(event["usage"])
            state.steps += bool(message.tool_calls) and state.final_reason is None
            last_response, responses = event, responses + 1
        elif kind == events.TOOL_RESULT:
            result = ToolResultMessage.model_validate(event["result"])
            pending[result.call_id] = result
            state.tool_calls += result.error_kind not in _NOT_RUN and result.name != control
        elif kind == events.MESSAGE:
            place_results()
            state.messages.append(MESSAGE_ADAPTER.validate_python(event["message"]))
            if event.get("reason"):
                state.final_reason = RunStatus(event["reason"])
        elif kind == events.ROUND_END:
            state.rounds.append(Round.from_dict(event["round"]))
        elif kind == events.RUN_END:
            place_results()
            ended = RunResult(
                run_id=state.run_id,
                status=RunStatus(event["status"]),
                answer=event.get("answer"),
                messages=state.messages,
                rounds=state.rounds,
                usage=state.usage,
                duration_seconds=event.get("duration_seconds", 0.0),
                error=event.get("error"),
                error_source=event.get("error_source"),
            )
            return Replayed(state, ended, last_response, responses)
    place_results()
    return Replayed(state, None, last_response, responses)
