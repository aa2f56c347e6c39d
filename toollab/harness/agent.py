"""The agent loop: ask the model, run the calls it proposes, feed back the results, until it is done."""

from __future__ import annotations

import asyncio
import copy
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from toollab.harness import errors, events
from toollab.harness.dispatch import Approver, Dispatcher, decode_arguments
from toollab.harness.events import EventLog, drop_torn_tail, read_events
from toollab.harness.finish import FINISH, finish_tool
from toollab.harness.messages import (
    MESSAGES_ADAPTER,
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from toollab.harness.model import Model, ModelError, ModelResponse
from toollab.harness.replay import Replayed, last_run, replay
from toollab.harness.result import Round, RunResult, RunStatus
from toollab.harness.run_state import FINAL_PROMPT, EventSink, RunState
from toollab.tools import Tool


class Agent:
    """A model plus the tools it may call, and the rules of the loop.

    The run ends when the model calls `finish(answer)` or answers without a call; after `max_steps` rounds of
    calls, or when `max_tokens` (input plus output, whole run) or `max_tool_calls` is used up, the model is asked
    once more for an answer, without tools, and the status says which limit ended the run.

    Tools with `side_effects=True` run only when `approve(call, tool)` returns True (sync or async).
    `on_event` receives every event as a dict, as the JSONL log would hold it.
    """

    def __init__(
        self,
        model: Model,
        tools: Iterable[Tool] = (),
        *,
        system_prompt: str | None = None,
        max_steps: int = 20,
        max_tokens: int | None = None,
        max_tool_calls: int | None = None,
        max_concurrency: int = 16,
        approve: Approver | None = None,
        use_finish: bool = True,
        on_event: EventSink | None = None,
    ):
        tools = list(tools)
        if use_finish and any(t.name == FINISH for t in tools):
            raise ValueError(f"{FINISH!r} is the harness's control action; give your tool another name")
        if max_steps < 0:
            raise ValueError("max_steps must be >= 0")
        self.model = model
        self.tools = tools
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.max_tokens = max_tokens
        self.max_tool_calls = max_tool_calls
        self.on_event = on_event
        self.use_finish = use_finish
        self._control = FINISH if use_finish else None  # the call name that is not a tool call
        self._dispatcher = Dispatcher(
            [*tools, finish_tool()] if use_finish else tools, approve=approve, max_concurrency=max_concurrency
        )
        self.tool_specs = [t.spec for t in self._dispatcher.tools.values()]

    # ---- public entry points -------------------------------------------------------------------------------

    async def run(
        self, prompt: str | None = None, *, history: list[Message] | None = None, log: str | Path | None = None
    ) -> RunResult:
        """Run until the model is done. `history` (if given) is the conversation so far and is extended in place,
        so it stays complete and consistent even if the run is cancelled."""
        messages = history if history is not None else []
        if self.system_prompt and not any(isinstance(m, SystemMessage) for m in messages[:1]):
            messages.insert(0, SystemMessage(content=self.system_prompt))
        if prompt is not None:
            messages.append(UserMessage(content=prompt))
        if not messages:
            raise ValueError("nothing to run: give a prompt or a history")
        log_file = EventLog(log) if log is not None else None
        run = RunState(uuid.uuid4().hex, messages, self._sinks(log_file))
        try:
            if run.sinks:
                run.emit(
                    events.RUN_START,
                    model=getattr(self.model, "name", type(self.model).__name__),
                    tools=[s.to_dict() for s in self.tool_specs],
                    max_steps=self.max_steps,
                    max_tokens=self.max_tokens,
                    max_tool_calls=self.max_tool_calls,
                    messages=MESSAGES_ADAPTER.dump_python(messages, mode="json"),
                )
            return await self._drive(run)
        finally:
            if log_file is not None:
                log_file.close()

    def run_sync(self, prompt: str | None = None, **kwargs: Any) -> RunResult:
        return asyncio.run(self.run(prompt, **kwargs))

    async def resume(self, log: str | Path) -> RunResult:
        """Continue the run recorded in `log`, whose process was killed.

        Calls left without a result are run again if their tool is idempotent, and otherwise get an error
        result saying they were interrupted. New events are appended to the same log.
        """
        recorded = last_run(read_events(log), log)
        drop_torn_tail(log)
        log_file = EventLog(log)
        try:
            replayed = replay(recorded, self._sinks(log_file), self._control)
            if replayed.ended is not None:
                return replayed.ended
            run = replayed.state
            run.emit(events.RUN_RESUMED, messages=len(run.messages), steps=run.steps)
            await self._settle_killed_round(replayed)
            if run.result is None:
                return await self._drive(run)
            return run.result
        finally:
            log_file.close()

    def resume_sync(self, log: str | Path) -> RunResult:
        return asyncio.run(self.resume(log))

    # ---- the loop ----------------------------------------------------------------------------------------

    def _sinks(self, log_file: EventLog | None) -> list[EventSink]:
        return [s for s in (log_file, self.on_event) if s is not None]

    def _observed(self, run: RunState) -> Dispatcher:
        """The dispatcher, reporting calls and results into this run's events (when anyone listens)."""
        if not run.sinks:
            return self._dispatcher
        dispatcher = copy.copy(self._dispatcher)
        dispatcher.on_call = lambda call: run.emit(events.TOOL_CALL, call=call.model_dump(mode="json"))
        dispatcher.on_result = lambda result, seconds: run.emit(
            events.TOOL_RESULT, result=result.model_dump(mode="json"), seconds=seconds
        )
        return dispatcher

    def _limit_reached(self, run: RunState) -> RunStatus | None:
        if run.steps >= self.max_steps:
            return RunStatus.MAX_STEPS
        if self.max_tokens is not None and run.usage.total_tokens >= self.max_tokens:
            return RunStatus.MAX_TOKENS
        if self.max_tool_calls is not None and run.tool_calls >= self.max_tool_calls:
            return RunStatus.MAX_TOOL_CALLS
        return None

    async def _drive(self, run: RunState) -> RunResult:
        dispatcher = self._observed(run)
        try:
            while run.result is None:
                limit = self._limit_reached(run)
                if limit is not None:
                    await self._final_round(run, dispatcher, limit)
                else:
                    await self._round(run, dispatcher)
        except asyncio.CancelledError:
            run.end(RunStatus.CANCELLED, None, "the run was cancelled", "harness")
            raise
        return run.result

    async def _ask(self, run: RunState, tools: Sequence[Any]) -> tuple[AssistantMessage, ModelResponse, float] | None:
        """One model request; on failure the run ends with status model_error and None is returned."""
        if run.sinks:
            run.emit(events.MODEL_REQUEST, round=len(run.rounds), messages=len(run.messages), tools=len(tools))
        started = time.perf_counter()
        try:
            response = await self.model.request(run.messages, tools)
        except ModelError as exc:
            run.end(RunStatus.MODEL_ERROR, None, str(exc), exc.source)
            return None
        except Exception as exc:  # a backend bug must not lose the history
            run.end(RunStatus.MODEL_ERROR, None, f"{type(exc).__name__}: {exc}", "harness")
            return None
        seconds = time.perf_counter() - started
        message = run.unique_ids(response.message)
        run.messages.append(message)
        run.usage += response.usage
        if run.sinks:
            run.emit(
                events.MODEL_RESPONSE,
                round=len(run.rounds),
                message=message.model_dump(mode="json"),
                usage=response.usage.model_dump(),
                raw=response.raw,
                seconds=seconds,
            )
        return message, response, seconds

    async def _round(self, run: RunState, dispatcher: Dispatcher) -> None:
        asked = await self._ask(run, self.tool_specs)
        if asked is None:
            return
        message, response, model_seconds = asked
        if not message.tool_calls:
            run.close_round(Round(len(run.rounds), "answer", response.usage, model_seconds))
            run.end(RunStatus.COMPLETED, message.content)
            return
        run.steps += 1
        calls = message.tool_calls
        budget = None if self.max_tool_calls is None else self.max_tool_calls - run.tool_calls
        runnable: list[ToolCall] = calls
        refused: list[ToolCall] = []
        if budget is not None and sum(c.name != self._control for c in calls) > budget:
            runnable, refused = [], []
            for call in calls:
                if call.name == self._control or budget > 0:
                    budget -= call.name != self._control
                    runnable.append(call)
                else:
                    refused.append(call)
        started = time.perf_counter()
        results: list[ToolResultMessage | None] = [None] * len(runnable)
        try:
            await dispatcher.dispatch_all(runnable, results)
        finally:  # also on cancellation: every call gets its result
            done = {r.call_id: r for r in results if r is not None}
            for call in refused:
                done[call.id] = dispatcher.fail(
                    call, errors.budget_exhausted(call.name, self.max_tool_calls or 0), errors.BUDGET
                )
            run.messages.extend(done[c.id] for c in calls)
            run.tool_calls += sum(c.name != self._control for c in runnable)
        run.close_round(
            Round(len(run.rounds), "tools", response.usage, model_seconds, time.perf_counter() - started, len(calls)),
        )
        answer = self._finish_answer(calls, [done[c.id] for c in calls])
        if answer is not None:
            run.end(RunStatus.COMPLETED, answer)

    async def _final_round(
        self, run: RunState, dispatcher: Dispatcher, reason: RunStatus, ask_again: bool = True
    ) -> None:
        """Ask once more for an answer, with no tools offered; the status records which limit was hit."""
        run.final_reason = reason
        if ask_again:
            nudge = UserMessage(content=FINAL_PROMPT[reason])
            run.messages.append(nudge)
            if run.sinks:
                run.emit(events.MESSAGE, message=nudge.model_dump(mode="json"), reason=str(reason))
        asked = await self._ask(run, [])
        if asked is None:
            return
        message, response, model_seconds = asked
        # Calls made anyway cannot run, but each still gets its result so the history stays valid.
        run.messages.extend(
            dispatcher.fail(c, errors.tools_disabled(c.name), errors.TOOLS_DISABLED) for c in message.tool_calls
        )
        run.close_round(Round(len(run.rounds), "final", response.usage, model_seconds))
        run.end(reason, message.content)

    def _finish_answer(self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]) -> str | None:
        """The answer of the first finish call that succeeded (its arguments were valid), if any."""
        if not self.use_finish:
            return None
        for call, result in zip(calls, results, strict=True):
            if call.name == FINISH and not result.is_error:
                return decode_arguments(call.arguments)["answer"]
        return None

    # ---- resume ----------------------------------------------------------------------------------------

    async def _settle_killed_round(self, replayed: Replayed) -> None:
        """Finish the round the process died in, the way a live round would have."""
        run = replayed.state
        dispatcher = self._observed(run)
        reason = run.final_reason
        if isinstance(run.messages[-1], UserMessage) and reason is not None:
            await self._final_round(run, dispatcher, reason, ask_again=False)  # died waiting for the answer
            return
        k = max((i for i, m in enumerate(run.messages) if isinstance(m, AssistantMessage)), default=-1)
        tail = run.messages[k + 1 :]
        if k < 0 or not all(isinstance(m, ToolResultMessage) for m in tail):
            return  # died before the model answered: the loop asks again
        last = run.messages[k]
        assert isinstance(last, AssistantMessage)
        answered = {m.call_id: m for m in tail if isinstance(m, ToolResultMessage)}
        missing = [c for c in last.tool_calls if c.id not in answered]
        for call in missing:
            tool = self._dispatcher.tools.get(call.name)
            if reason is not None:
                answered[call.id] = dispatcher.fail(call, errors.tools_disabled(call.name), errors.TOOLS_DISABLED)
            elif tool is not None and tool.idempotent:
                answered[call.id] = await dispatcher.dispatch(call)
                run.tool_calls += call.name != self._control
            else:
                answered[call.id] = dispatcher.fail(call, errors.interrupted(call.name), errors.INTERRUPTED)
        run.messages.extend(answered[c.id] for c in missing)
        if len(run.rounds) < replayed.responses and replayed.last_response is not None:
            kind = "final" if reason is not None else ("tools" if last.tool_calls else "answer")
            usage = Usage.model_validate(replayed.last_response["usage"])
            seconds = replayed.last_response.get("seconds", 0.0)
            run.close_round(Round(len(run.rounds), kind, usage, seconds, 0.0, len(last.tool_calls)))
        if reason is not None:
            run.end(reason, last.content)
        elif not last.tool_calls:
            run.end(RunStatus.COMPLETED, last.content)
        else:
            answer = self._finish_answer(last.tool_calls, [answered[c.id] for c in last.tool_calls])
            if answer is not None:
                run.end(RunStatus.COMPLETED, answer)
