"""The per-step hook: before each model request the agent's `prepare` chooses which of its tools the model sees.
Retrieval over a large catalogue, approvals by context and filtering all plug in here. Tools the run has already
called stay visible, the finish action is always offered, and the event log records the names shown."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from toollab.harness.errors import UNKNOWN_TOOL
from toollab.harness.messages import AssistantMessage, Message, ToolResultMessage, last_request
from toollab.tools import ToolSpec


@dataclass(frozen=True)
class StepContext:
    """What a `prepare` step knows of the run: its id, the round about to be asked, the conversation so far,
    the user's request, and the tools called so far."""

    run_id: str
    round: int
    messages: Sequence[Message]
    request: str
    used: frozenset[str]


Prepare = Callable[[StepContext, Sequence[ToolSpec]], "Sequence[ToolSpec] | Awaitable[Sequence[ToolSpec]]"]


def context(run_id: str, round: int, messages: Sequence[Message]) -> StepContext:
    """`used`: the tools the run has called, not counting calls refused as unknown (a model does not bring a
    hidden tool into view by naming it)."""
    unknown = {m.call_id for m in messages if isinstance(m, ToolResultMessage) and m.error_kind == UNKNOWN_TOOL}
    calls = (c for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls)
    used = frozenset(c.name for c in calls if c.id not in unknown)
    return StepContext(run_id, round, messages, last_request(messages), used)


async def shown(prepare: Prepare, step: StepContext, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The tools a round shows, in the catalogue's order: what `prepare` chose among `tools`, and those already
    used. A choice outside the catalogue is ignored (the hook cannot invent tools)."""
    chosen = prepare(step, tools)
    if inspect.isawaitable(chosen):
        chosen = await chosen
    names = {t.name for t in chosen} | step.used
    return [t for t in tools if t.name in names]
