"""Rebuilding a run's state from its event log, for `Agent.resume`: the same `RunState` steps a live run takes,
driven by the events it wrote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from toollab.harness.events import (
    Event,
    MessageAdded,
    ModelResponded,
    RoundEnded,
    RunEnded,
    RunStarted,
    ToolReturned,
)
from toollab.harness.messages import ToolResultMessage
from toollab.harness.result import RunResult, RunStatus
from toollab.harness.run_state import RunState
from toollab.tools import ToolSpec


@dataclass
class Replayed:
    """A run rebuilt from its log.

    `ended`: the stored result, when the run had ended. `open_round`: the model's last response when its round
    never closed (the process died running its calls), with `pending`, the results logged for it so far.
    `concluded`: how the run ends, when its last round closed with an ending but the end was never logged.
    """

    state: RunState
    ended: RunResult | None = None
    open_round: ModelResponded | None = None
    pending: dict[str, ToolResultMessage] = field(default_factory=dict)
    concluded: tuple[RunStatus, str | None] | None = None


def last_run(recorded: list[Event], source: object) -> tuple[RunStarted, list[Event]]:
    """The start of the last run in a log, and the events after it."""
    starts = [i for i, e in enumerate(recorded) if isinstance(e, RunStarted)]
    if not starts:
        raise ValueError(f"{source}: no run_start event; not a toollab event log")
    start = recorded[starts[-1]]
    assert isinstance(start, RunStarted)
    return start, recorded[starts[-1] + 1 :]


def replay(
    start: RunStarted,
    recorded: list[Event],
    control: str | None,
    direct: bool = False,
    chain: Sequence[ToolSpec] | None = None,
) -> Replayed:
    """Rebuild the state of the run that `start` began from the events that followed it. `control` is the finish
    action's name, `direct` and `chain` the policy's (see `RunState`). The state has no sinks: nothing is emitted
    again."""
    state = RunState(start.run_id, list(start.messages), [], control, direct, chain)
    out = Replayed(state)
    for event in recorded:
        if isinstance(event, ModelResponded):
            state.add_response(event.message, event.usage)
            out.open_round, out.pending, out.concluded = event, {}, None
        elif isinstance(event, ToolReturned) and event.parent is not None:
            state.count_inner(event.result)  # made from a code action: counted, not a result of the turn
        elif isinstance(event, ToolReturned):
            out.pending[event.result.call_id] = event.result
        elif isinstance(event, RoundEnded) and out.open_round is not None:
            message = out.open_round.message
            state.add_results(message.tool_calls, out.pending)
            state.record_round(event.round)
            out.concluded = state.outcome(message, out.pending)
            out.open_round, out.pending = None, {}
        elif isinstance(event, MessageAdded):
            state.messages.append(event.message)
            state.final_reason = event.reason or state.final_reason
        elif isinstance(event, RunEnded):
            if out.open_round is not None:  # cancelled mid-round: its results were added, the round never closed
                state.add_results(out.open_round.message.tool_calls, out.pending)
                out.open_round, out.pending = None, {}
            state.end(event.status, event.answer, event.error, event.error_source, event.duration_seconds)
            out.ended = state.result
            return out
    return out
