"""The agent loop: ask the model, run the calls it proposes, feed back the results, until it is done."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from toollab.harness import errors, injection
from toollab.harness.code_actions import CodeRun, code_action_tool, current_run
from toollab.harness.context import ContextBudget
from toollab.harness.dispatch import Approver, Dispatcher, by_name
from toollab.harness.events import (
    ContextTrimmed,
    EventLog,
    MessageAdded,
    ModelRequested,
    ModelResponded,
    RunResumed,
    RunStarted,
    ToolCalled,
    ToolReported,
    ToolReturned,
    read_events,
)
from toollab.harness.finish import FINISH, finish_tool
from toollab.harness.jsonl import drop_torn_tail
from toollab.harness.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    last_request,
)
from toollab.harness.model import Model, ModelError
from toollab.harness.prepare import Prepare, StepContext, context, shown
from toollab.harness.replay import last_run, replay
from toollab.harness.request import CallPolicy, RequestParams, policy_of
from toollab.harness.result import RunResult, RunStatus
from toollab.harness.run_state import FINAL_PROMPT, EventSink, RunState
from toollab.harness.toolsets import RankedToolset, Toolset, label
from toollab.sandbox import Executor
from toollab.tools import Elicited, NobodyToAsk, Tool, ToolError, ToolSpec
from toollab.tools.call_context import Asker, put_to


class Agent:
    """A model plus the tools it may call, and the rules of the loop.

    The run ends when the model calls `finish(answer)` or answers without a call; after `max_steps` rounds of
    calls, or when `max_tokens` (input plus output, whole run) or `max_tool_calls` is used up, the model is asked
    once more for an answer, without tools, and the status says which limit ended the run.

    `policy` sets each request's tool choice and whether a turn may hold several calls (see `CallPolicy`); by
    default the model's own (`load_model` gives local models the project's), else auto and parallel.
    Tools with `side_effects=True` run only when `approve(call, tool)` returns True (sync or async).
    `on_event` receives every event (`toollab.harness.events`) as it happens, as the JSONL log records it.
    `code_actions`: an executor (a started `toollab.sandbox.SandboxedPython`, say) makes the agent code-acting:
    it offers one tool, `python(code)`, whose programs call the tools as functions; each such call is dispatched,
    approved, logged (with the code action as its parent) and counted as a JSON call would be.
    `flag_instructions`: results whose text reads like instructions aimed at the model (prompt injection) are
    flagged (`ToolResultMessage.flags`, in the event log too) and begin with a note saying they are data.
    `prepare(step, tools)` (sync or async) chooses, before each request, which tools the model sees (see
    `toollab.harness.prepare`); a call of a tool it did not see that round gets an unknown-tool error.

    `tools` holds `Tool`s and toolsets (`toollab.harness.toolsets`: an MCP server, an OpenAPI service, a
    catalogue behind a retriever, anything with `list_tools`), which are listed again before each request; the
    log's `model_request` events name the tools each round showed. `tools_per_turn=k` shows the `k` best tools of
    each toolset that ranks them (`toollab.retrieval.Catalogue`) for the user's request, besides the other tools
    and those the run has already called. A toolset that fails to list keeps its last listing (the event says so);
    one that fails at its first listing ends the run.

    `context_budget` (`toollab.harness.context.ContextBudget`) keeps each request under a size: old exchanges are
    left out whole (a call never without its result) and summarised; the history keeps them all, and the log's
    `context_trimmed` events say what each request left out.

    A running async tool reports progress and log lines as `tool_report` events, asks the user through `ask`
    (`toollab.tools.call_context.elicit`; without `ask` it is told there is nobody to ask) and samples from the
    agent's own model (`call_context.sample`).
    """

    def __init__(
        self,
        model: Model,
        tools: Iterable[Tool | Toolset] | Toolset = (),
        *,
        system_prompt: str | None = None,
        max_steps: int = 20,
        max_tokens: int | None = None,
        max_tool_calls: int | None = None,
        max_concurrency: int = 16,
        approve: Approver | None = None,
        use_finish: bool = True,
        policy: CallPolicy | None = None,
        on_event: EventSink | None = None,
        code_actions: Executor | None = None,
        flag_instructions: bool = False,
        prepare: Prepare | None = None,
        tools_per_turn: int | None = None,
        context_budget: ContextBudget | None = None,
        ask: Asker | None = None,
    ):
        tools, self.toolsets = _sorted_sources(tools)
        if use_finish and any(t.name == FINISH for t in tools):
            raise ValueError(f"{FINISH!r} is the harness's control action; give your tool another name")
        if max_steps < 0:
            raise ValueError("max_steps must be >= 0")
        if tools_per_turn is not None:
            if tools_per_turn < 1:
                raise ValueError(f"tools_per_turn must be at least 1, got {tools_per_turn}")
            if not any(isinstance(s, RankedToolset) for s in self.toolsets):
                raise ValueError(
                    "tools_per_turn shows the best tools of a toolset that ranks them; give the tools as "
                    "toollab.retrieval.Catalogue(tools)"
                )
        if self.toolsets and code_actions is not None:
            raise ValueError("code actions take a fixed list of tools; list the toolsets' tools first")
        self.tools_per_turn = tools_per_turn
        self.model = model
        self.tools = tools
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.max_tokens = max_tokens
        self.max_tool_calls = max_tool_calls
        self.on_event = on_event
        self.use_finish = use_finish
        self.policy = policy or policy_of(model)
        self._control = FINISH if use_finish else None  # the call name that is not a tool call
        names = [t.name for t in tools]
        screen = (lambda r: injection.screened(r, names)) if flag_instructions else None
        self._inner = Dispatcher(tools, approve=approve, max_concurrency=max_concurrency, screen=screen)
        offered = [code_action_tool(tools, code_actions)] if code_actions is not None else tools
        self._dispatcher = Dispatcher(
            [*offered, finish_tool()] if use_finish else offered,
            approve=approve,
            max_concurrency=max_concurrency,
            screen=screen,
        )
        self.tool_specs = [t.spec for t in self._dispatcher.tools.values()]  # before any toolset is listed
        self.prepare = prepare
        self.context_budget = context_budget
        self.ask = ask

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
        run = RunState(
            uuid.uuid4().hex, messages, self._sinks(log_file), self._control, self.policy.direct, self._chain()
        )
        try:
            if run.sinks:
                run.emit(
                    RunStarted(
                        model=getattr(self.model, "name", type(self.model).__name__),
                        tools=[s.to_dict() for s in self.tool_specs],
                        max_steps=self.max_steps,
                        max_tokens=self.max_tokens,
                        max_tool_calls=self.max_tool_calls,
                        messages=list(messages),
                    )
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
        start, recorded = last_run(read_events(log), log)
        if start.workflow is not None:
            raise ValueError(f"{log} records the workflow {start.workflow!r}; resume it with that workflow")
        replayed = replay(start, recorded, self._control, self.policy.direct, self._chain())
        if replayed.ended is not None:
            return replayed.ended
        drop_torn_tail(log)
        log_file = EventLog(log)
        try:
            run = replayed.state
            run.sinks = self._sinks(log_file)
            run.emit(RunResumed(messages=len(run.messages), steps=run.steps))
            if replayed.open_round is not None:
                await self._close_killed_round(run, replayed.open_round, replayed.pending)
            elif replayed.concluded is not None:  # the last round ended the run; the end was never logged
                run.end(*replayed.concluded)
            if run.result is None:
                return await self._drive(run)
            return run.result
        finally:
            log_file.close()

    def resume_sync(self, log: str | Path) -> RunResult:
        return asyncio.run(self.resume(log))

    # ---- the loop ----------------------------------------------------------------------------------------

    def _chain(self) -> list[ToolSpec] | None:
        """The tools a chain's step may take its expression tool from, when the policy chains."""
        return [t for t in self.tool_specs if t.name != self._control] if self.policy.chain else None

    def _sinks(self, log_file: EventLog | None) -> list[EventSink]:
        return [s for s in (log_file, self.on_event) if s is not None]

    def _observed(self, run: RunState) -> Dispatcher:
        """The dispatcher, reporting calls and results into this run's events (when anyone listens), and
        answering a running call's questions."""
        dispatcher = copy.copy(self._dispatcher)
        dispatcher.context = lambda call: RunCallContext(self, run, call.id)
        if run.sinks:
            dispatcher.on_call = lambda call: run.emit(ToolCalled(call=call))
            dispatcher.on_result = lambda result, seconds: run.emit(ToolReturned(result=result, seconds=seconds))
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
        token = current_run.set(CodeRun(self._inner, run, self.max_tool_calls))  # for code actions' inner calls
        try:
            while run.result is None:
                if run.final_reason is None and (limit := self._limit_reached(run)) is not None:
                    self._ask_for_final_answer(run, limit)
                await self._round(run, dispatcher)
        except asyncio.CancelledError:
            run.end(RunStatus.CANCELLED, None, "the run was cancelled", "harness")
            raise
        finally:
            current_run.reset(token)  # a run awaited inside the caller's task must not leave its state there
        return run.result

    def _ask_for_final_answer(self, run: RunState, reason: RunStatus) -> None:
        """A limit was hit: from now on the model is asked for an answer with no tools offered, and the status
        records which limit it was."""
        run.final_reason = reason
        nudge = UserMessage(content=FINAL_PROMPT[reason])
        run.messages.append(nudge)
        if run.sinks:
            run.emit(MessageAdded(message=nudge, reason=reason))

    async def _ask(self, run: RunState) -> tuple[AssistantMessage, Usage, float] | None:
        """One model request (no tools once the final answer is asked for); on failure the run ends with status
        model_error and None is returned."""
        after_results = bool(run.messages) and isinstance(run.messages[-1], ToolResultMessage)
        offering = run.final_reason is None
        offered = self.tool_specs if offering else []
        unlisted: list[str] = []
        if offering and (self.toolsets or self.prepare is not None):
            step = context(run.run_id, len(run.rounds), run.messages)
            try:
                if self.toolsets:
                    run.listed, unlisted = await self._listing(run, step)
                    offered = [t.spec for t in run.listed]
                if self.prepare is not None:
                    own = [t for t in offered if t.name != run.control]
                    offered = [*await shown(self.prepare, step, own), *(t for t in offered if t.name == run.control)]
            except Exception as exc:  # a broken hook or toolset must not lose the history
                run.end(RunStatus.MODEL_ERROR, None, f"choosing the tools failed: {type(exc).__name__}: {exc}",
                        "harness")  # fmt: skip
                return None
        params = self.policy.params(offered, after_results, run.control, last_request(run.messages))
        if run.next_tool is not None and offering:  # the chain's step: one call of the expression tool
            listed = [t.spec for t in run.listed] if run.listed is not None else self.tool_specs
            step_tools = [t for t in listed if t.name == run.next_tool]
            if step_tools:  # (a toolset that no longer lists it leaves the round as the policy sets it)
                params = RequestParams(step_tools, run.next_tool, parallel=False)
        run.shown = None if not (self.toolsets or self.prepare) else [t.name for t in params.tools]
        if run.sinks:
            event = ModelRequested(round=len(run.rounds), messages=len(run.messages), tools=len(params.tools))
            extra = {"shown": run.shown} if run.shown is not None else {}
            run.emit(event.model_copy(update=extra | ({"unlisted": unlisted} if unlisted else {})))
        sent: Sequence[Message] = run.messages
        if self.context_budget is not None:
            fitted = self.context_budget.fit(run.messages)
            sent = fitted.messages
            if fitted.dropped and run.sinks:
                trimmed = ContextTrimmed(round=len(run.rounds), dropped=fitted.dropped, kept=len(sent),
                                         tokens=fitted.tokens, summary=fitted.summary)  # fmt: skip
                run.emit(trimmed)
        started = time.perf_counter()
        try:
            response = await self.model.request(sent, params)
        except ModelError as exc:
            run.end(RunStatus.MODEL_ERROR, None, str(exc), exc.source)
            return None
        except Exception as exc:  # a backend bug must not lose the history
            run.end(RunStatus.MODEL_ERROR, None, f"{type(exc).__name__}: {exc}", "harness")
            return None
        seconds = time.perf_counter() - started
        message = run.admit(response.message)
        run.add_response(message, response.usage)
        if run.sinks:
            run.emit(
                ModelResponded(
                    round=len(run.rounds),
                    message=message,
                    usage=response.usage,
                    raw=response.raw,
                    seconds=seconds,
                    stop_reason=response.stop_reason,
                )
            )
        return message, response.usage, seconds

    async def _round(self, run: RunState, dispatcher: Dispatcher) -> None:
        asked = await self._ask(run)
        if asked is None:
            return
        message, usage, model_seconds = asked
        started = time.perf_counter()
        results: dict[str, ToolResultMessage] = {}
        if run.listed is not None:  # the toolsets' tools as listed for this round
            dispatcher = dispatcher.with_tools(run.listed)
        if run.shown is not None:  # only what the model was shown can run
            dispatcher = dispatcher.only(run.shown)
        try:
            await self._run_calls(run, dispatcher, message.tool_calls, results)
        except asyncio.CancelledError:
            run.add_results(message.tool_calls, results)  # every call has its result, even now
            raise
        record = run.next_round(message, usage, model_seconds, time.perf_counter() - started)
        run.close_round(message, results, record)

    async def _run_calls(
        self,
        run: RunState,
        dispatcher: Dispatcher,
        calls: Sequence[ToolCall],
        results: dict[str, ToolResultMessage],
    ) -> None:
        """Run one turn's calls into `results` (by call id), filled in place: when cancelled it still holds a
        result for every call. After the final request nothing runs; past the budget, the last calls do not; a
        finish beside other calls does not (it would end the run before their results were read)."""
        if not calls:
            return
        if len(calls) > 1 and run.control is not None:
            for call in calls:
                if call.name == run.control:
                    results[call.id] = dispatcher.fail(call, errors.not_alone(call.name), errors.NOT_ALONE)
            calls = [c for c in calls if c.id not in results]
        if run.final_reason is not None:  # calls made anyway cannot run, but each gets its result
            for call in calls:
                results[call.id] = dispatcher.fail(call, errors.tools_disabled(call.name), errors.TOOLS_DISABLED)
            return
        refused = run.budget_refuses(calls, self.max_tool_calls)
        for call in calls:
            if call.id in refused:
                message = errors.budget_exhausted(call.name, self.max_tool_calls or 0)
                results[call.id] = dispatcher.fail(call, message, errors.BUDGET)
        runnable = [c for c in calls if c.id not in refused]
        done: list[ToolResultMessage | None] = [None] * len(runnable)
        try:
            await dispatcher.dispatch_all(runnable, done)
        finally:
            results.update((r.call_id, r) for r in done if r is not None)

    async def _listing(self, run: RunState, step: StepContext) -> tuple[list[Tool], list[str]]:
        """This round's tools: the fixed ones, then each toolset's (cut to its `tools_per_turn` best when it ranks
        them, keeping those already called), then finish; and what could not be listed. A toolset that fails keeps
        its last listing in this run; one that never listed raises."""
        tools = [t for t in self._dispatcher.tools.values() if t.name != run.control]
        unlisted = []
        for i, source in enumerate(self.toolsets):
            try:
                got = list(await source.list_tools(step))
            except Exception as exc:
                if i not in run.listings:
                    raise RuntimeError(f"cannot list the tools of {label(source)}: {exc}") from exc
                unlisted.append(f"{label(source)}: {type(exc).__name__}: {exc}")
                got = run.listings[i]
            run.listings[i] = got
            k = self.tools_per_turn
            if k is not None and isinstance(source, RankedToolset) and len(got) > k:
                keep = {t.name for t in await source.rank(step.request, got, k)} | step.used
                got = [t for t in got if t.name in keep]
            tools.extend(got)
        control = [t for t in self._dispatcher.tools.values() if t.name == run.control]
        try:
            by_name([*tools, *control])
        except ValueError as exc:
            raise ValueError(f"{exc} (give each toolset a prefix)") from None
        return [*tools, *control], unlisted

    # ---- resume ----------------------------------------------------------------------------------------

    async def _close_killed_round(
        self, run: RunState, response: ModelResponded, pending: dict[str, ToolResultMessage]
    ) -> None:
        """Close the round the process died in, the way a live round would have: calls without a result are run
        again when their tool is idempotent, and otherwise answered as interrupted."""
        dispatcher = self._observed(run)
        if self.toolsets:  # the round's tools as the toolsets list them now
            with contextlib.suppress(Exception):  # a tool that cannot be listed is answered as interrupted
                run.listed, _ = await self._listing(run, context(run.run_id, len(run.rounds), run.messages))
                dispatcher = dispatcher.with_tools(run.listed)
        results = dict(pending)
        for call in response.message.tool_calls:
            if call.id in results:
                continue
            tool = dispatcher.tools.get(call.name)
            if run.final_reason is not None:
                results[call.id] = dispatcher.fail(call, errors.tools_disabled(call.name), errors.TOOLS_DISABLED)
            elif tool is not None and tool.idempotent:
                results[call.id] = await dispatcher.dispatch(call)
            else:
                results[call.id] = dispatcher.fail(call, errors.interrupted(call.name), errors.INTERRUPTED)
        record = run.next_round(response.message, response.usage, response.seconds, 0.0)
        run.close_round(response.message, results, record)


class RunCallContext:
    """Whoever runs a call in-process: its reports become `tool_report` events of the run, its questions go to
    the agent's `ask`, its sampling to the agent's model (no tools offered)."""

    def __init__(self, agent: Agent, run: RunState, call_id: str):
        self.agent, self.run, self.call_id = agent, run, call_id

    def _report(self, **fields: Any) -> None:
        if self.run.sinks:
            self.run.emit(ToolReported(call_id=self.call_id, **fields))

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        self._report(kind="progress", done=done, total=total, message=message)

    async def log(self, level: str, message: str) -> None:
        self._report(kind="log", level=level, message=message)

    async def elicit(self, message: str, schema: dict[str, Any]) -> Elicited:
        if self.agent.ask is None:
            raise NobodyToAsk(f"This tool needs an answer from the user ({message!r}); this run cannot ask one.")
        reply = await put_to(self.agent.ask, message, schema)
        self._report(kind="ask", message=message, action=reply.action)
        return reply

    async def sample(self, messages: Sequence[str], *, system: str | None, max_tokens: int) -> str:
        """The agent's model's text reply; `max_tokens` is left to the model's own limit (the model interface
        takes none per request)."""
        conversation: list[Message] = [SystemMessage(content=system)] if system else []
        conversation += [UserMessage(content=m) for m in messages]
        try:
            response = await self.agent.model.request(conversation, RequestParams(tool_choice="none"))
        except ModelError as exc:
            raise ToolError(f"Sampling failed: {exc}") from None
        self._report(kind="sample", message=messages[-1])
        return response.message.content or ""

    async def close_stream(self) -> None:
        """In-process there is no stream to close."""


def _sorted_sources(tools: Iterable[Tool | Toolset] | Toolset) -> tuple[list[Tool], list[Toolset]]:
    """An agent's tools as given (a toolset, or tools and toolsets): the fixed ones, and the toolsets listed each
    round."""
    if isinstance(tools, Toolset):
        return [], [tools]
    fixed: list[Tool] = []
    sources: list[Toolset] = []
    for t in tools:
        if isinstance(t, Tool):
            fixed.append(t)
        elif isinstance(t, Toolset):
            sources.append(t)
        else:
            raise TypeError(f"an agent's tools are Tools or toolsets (with list_tools), not {type(t).__name__}")
    return fixed, sources
