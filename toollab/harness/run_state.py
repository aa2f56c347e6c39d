"""The mutable state of one run, how it reports its events, and how a round closes (live and on resume alike)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toollab.harness import errors
from toollab.harness.arguments import NestedTooDeeply, problem, too_deep
from toollab.harness.chain import arithmetic_left
from toollab.harness.events import Event, RoundEnded, run_ended
from toollab.harness.messages import AssistantMessage, Message, ToolCall, ToolResultMessage, Usage
from toollab.harness.result import Round, RoundKind, RunResult, RunStatus
from toollab.tools import Tool, ToolSpec

EventSink = Callable[[Event], None]

# The message that asks for a final answer once a limit is hit.
FINAL_PROMPT = {
    RunStatus.MAX_STEPS: "You have reached the step limit. Give your final answer now, without calling tools.",
    RunStatus.MAX_TOKENS: "You have used the token budget. Give your final answer now, without calling tools.",
    RunStatus.MAX_TOOL_CALLS: "You have used the tool-call budget. Give your final answer now, without calling tools.",
}
# Results of calls that never ran, so did not use the tool-call budget.
_NOT_RUN = (errors.BUDGET, errors.TOOLS_DISABLED, errors.NOT_ALONE)


class RunState:
    """Everything a run accumulates. Only appended to, so a step costs the same at round 800 as at round 1.

    `control` is the name of the harness's finish action (None when the run has none): its calls are not tool
    calls, and the first one that succeeds ends the run with its answer.
    """

    def __init__(
        self,
        run_id: str,
        messages: list[Message],
        sinks: list[EventSink],
        control: str | None,
        direct: bool = False,
        chain: Sequence[ToolSpec] | None = None,
    ):
        self.run_id = run_id
        self.messages = messages
        self.sinks = sinks
        self.control = control
        self.direct = direct  # a round whose tool calls all succeed ends the run, their results the answer
        # with `direct`: the tools (unless toolsets list them), when results that leave the request's arithmetic
        # undone lead to one more call (`harness.chain`)
        self.chain = chain
        self.next_tool: str | None = None  # the tool the next request must call (the chain's step)
        self.rounds: list[Round] = []
        self.usage = Usage()
        self.steps = 0  # rounds that made tool calls
        self.tool_calls = 0  # calls counted against the tool-call budget (finish excluded)
        self.final_reason: RunStatus | None = None  # set once the final answer has been asked for
        self.seen_ids: set[str] = {c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
        self.started = time.perf_counter()
        self.result: RunResult | None = None
        self.shown: list[str] | None = None  # the tools the last request showed, when a `prepare` step chose them
        self.listed: list[Tool] | None = None  # the last request's tools, when toolsets listed them
        self.listings: dict[int, list[Tool]] = {}  # each toolset's last listing (by its place in the agent's tools)

    def emit(self, event: Event) -> None:
        event.run_id = self.run_id
        for sink in self.sinks:
            sink(event)

    def admit(self, message: AssistantMessage) -> AssistantMessage:
        """The model's turn as the harness takes it in: every call with a unique id (models omit or repeat them),
        so each result matches exactly one call; and arguments handed over as an object nested past
        MAX_NESTING levels (a provider's SDK decodes its JSON) turned into a parse error, as text would be."""
        fixed: list[ToolCall] | None = None
        for i, call in enumerate(message.tool_calls):
            update: dict[str, Any] = {}
            if not call.id or call.id in self.seen_ids:
                n = len(self.seen_ids)
                while f"call_{n}" in self.seen_ids:
                    n += 1
                update["id"] = f"call_{n}"
            if not isinstance(call.arguments, str) and too_deep(call.arguments):
                update |= {"arguments": "", "parse_error": f"the arguments are {problem(NestedTooDeeply())}"}
            if update:
                fixed = fixed if fixed is not None else list(message.tool_calls)
                fixed[i] = call = call.model_copy(update=update)
            self.seen_ids.add(call.id)
        return message if fixed is None else message.model_copy(update={"tool_calls": fixed})

    def add_response(self, message: AssistantMessage, usage: Usage) -> None:
        """The model's turn joins the history; a turn with calls before the final request is a step."""
        self.messages.append(message)
        self.next_tool = None  # this turn was the one it was due in
        self.seen_ids.update(c.id for c in message.tool_calls)
        self.usage += usage
        self.steps += bool(message.tool_calls) and self.final_reason is None

    def add_results(self, calls: Sequence[ToolCall], results: Mapping[str, ToolResultMessage]) -> None:
        """The results of `calls` that have one, in call order; each call that ran counts against the budget."""
        for call in calls:
            result = results.get(call.id)
            if result is not None:
                self.messages.append(result)
                self.tool_calls += result.name != self.control and result.error_kind not in _NOT_RUN

    def count_inner(self, result: ToolResultMessage) -> None:
        """A call made from inside a code action: it counts against the budget like any call that ran."""
        self.tool_calls += result.error_kind not in _NOT_RUN

    def budget_refuses(self, calls: Sequence[ToolCall], max_tool_calls: int | None) -> set[str]:
        """The ids of the calls that the rest of the tool-call budget cannot pay for (the last ones in order)."""
        if max_tool_calls is None:
            return set()
        left = max_tool_calls - self.tool_calls
        refused = set()
        for call in calls:
            if call.name == self.control:
                continue
            if left > 0:
                left -= 1
            else:
                refused.add(call.id)
        return refused

    def next_round(self, message: AssistantMessage, usage: Usage, model_seconds: float, tool_seconds: float) -> Round:
        """The record of the round that `message` opened."""
        kind: RoundKind = "final" if self.final_reason is not None else "tools" if message.tool_calls else "answer"
        return Round(len(self.rounds), kind, usage, model_seconds, tool_seconds, len(message.tool_calls))

    def record_round(self, record: Round) -> None:
        self.rounds.append(record)
        if self.sinks:
            self.emit(RoundEnded(round=record))

    def close_round(self, message: AssistantMessage, results: Mapping[str, ToolResultMessage], record: Round) -> None:
        """Close the round of `message`: its results in call order, its record, and the end of the run when the
        round ended it."""
        self.add_results(message.tool_calls, results)
        self.record_round(record)
        outcome = self.outcome(message, results)
        if outcome is not None:
            self.end(*outcome)

    def outcome(
        self, message: AssistantMessage, results: Mapping[str, ToolResultMessage]
    ) -> tuple[RunStatus, str | None] | None:
        """How the run ends after the round of `message` closed, if it ends: the answer to the final request, an
        answer without calls, or the answer of the first finish call that succeeded."""
        if self.final_reason is not None:
            return self.final_reason, message.content
        if not message.tool_calls:
            return RunStatus.COMPLETED, message.content
        for call in message.tool_calls:
            result = results.get(call.id)
            if call.name == self.control and result is not None and not result.is_error:
                return RunStatus.COMPLETED, str(call.args_as_dict()["answer"])
        answers = [results.get(c.id) for c in message.tool_calls]
        if self.direct and all(r is not None and not r.is_error and r.name != self.control for r in answers):
            if self.chain is not None and (tool := self._arithmetic_left()) is not None:
                self.next_tool = tool  # the request asks arithmetic on these results: one more call does it
                return None
            # the same result twice (a call the model repeated) is said once
            return RunStatus.COMPLETED, "\n".join(dict.fromkeys(r.content for r in answers if r is not None))
        return None

    def _arithmetic_left(self) -> str | None:
        assert self.chain is not None
        tools = [t.spec for t in self.listed] if self.listed is not None else self.chain
        return arithmetic_left(self.messages, tools)

    def end(
        self,
        status: RunStatus,
        answer: str | None,
        error: str | None = None,
        source: str | None = None,
        duration: float | None = None,
    ) -> None:
        """The run's result. `duration` is given when the run ended in another process (a replayed log)."""
        self.result = RunResult(
            run_id=self.run_id,
            status=status,
            answer=answer,
            messages=self.messages,
            rounds=self.rounds,
            usage=self.usage,
            duration_seconds=time.perf_counter() - self.started if duration is None else duration,
            error=error,
            error_source=source,
        )
        if self.sinks:
            self.emit(run_ended(self.result))
