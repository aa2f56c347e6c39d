"""Dispatch: look the tool up, decode and validate the arguments, ask approval, run it, wrap the result.

Every call gets exactly one `ToolResultMessage` carrying its id. Nothing a model sends and nothing a tool
raises escapes (only the cancellation of the caller does, after every pending call has its error result).
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import Any

import pydantic_core

from toollab.harness import errors
from toollab.harness.arguments import UnreadableArguments
from toollab.harness.messages import ToolCall, ToolResultMessage
from toollab.harness.threads import tool_threads
from toollab.tools import InvalidArguments, Tool, ToolError
from toollab.tools.call_context import Asker, CallContext, current_context, put_to
from toollab.tools.content import ContentPart, as_text, parts_of

Approver = Callable[[ToolCall, Tool], "bool | Awaitable[bool]"]
ResultObserver = Callable[[ToolResultMessage, float], None]
CallObserver = Callable[[ToolCall], None]
APPROVAL_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}  # a yes/no question: accept or decline
# The call a tool is running for, seen from inside the tool (a code action names its inner calls after it).
current_call: ContextVar[ToolCall | None] = ContextVar("current_call", default=None)


def to_content(value: Any) -> str:
    """A tool's return value as result text: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return pydantic_core.to_json(value, fallback=str).decode()


def asking_approver(ask: Asker) -> Approver:
    """An approver that asks the user (by elicitation: a terminal, an MCP client) whether a tool with side effects
    may run this call; only an accepted answer approves."""

    async def approve(call: ToolCall, tool: Tool) -> bool:
        arguments = pydantic_core.to_json(call.arguments, fallback=str).decode()
        question = f"Allow the tool {tool.name!r} to run with {arguments}? It has side effects."
        return (await put_to(ask, question, APPROVAL_SCHEMA)).accepted  # a bad reply raises: not approved

    return approve


class _TimedOut(Exception):
    """The tool's own time limit ran out (as opposed to a TimeoutError raised by the tool)."""


def by_name(tools: Iterable[Tool]) -> dict[str, Tool]:
    """Tools by name; two with one name are an error."""
    named: dict[str, Tool] = {}
    for t in tools:
        if t.name in named:
            raise ValueError(f"two tools are named {t.name!r}")
        named[t.name] = t
    return named


class Dispatcher:
    """Runs tool calls for one tool set. `max_concurrency` bounds the calls of one batch running at once."""

    def __init__(
        self,
        tools: Iterable[Tool],
        *,
        approve: Approver | None = None,
        max_concurrency: int = 16,
        on_call: CallObserver | None = None,
        on_result: ResultObserver | None = None,
        screen: Callable[[ToolResultMessage], ToolResultMessage] | None = None,
        context: Callable[[ToolCall], CallContext | None] | None = None,
    ):
        self.tools = by_name(tools)
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.names = list(self.tools)
        self.approve = approve
        self.max_concurrency = max_concurrency
        self.on_call = on_call
        self.on_result = on_result
        self.screen = screen  # applied to every result a tool produced, before anyone sees it
        self.context = context  # who answers a running call's reports and questions (`toollab.tools.call_context`)

    def with_tools(self, tools: Iterable[Tool]) -> Dispatcher:
        """This dispatcher (its approval, observers and screen) for another set of tools."""
        view = copy.copy(self)
        view.tools = by_name(tools)
        view.names = list(view.tools)
        return view

    def only(self, names: Iterable[str]) -> Dispatcher:
        """This dispatcher with only the tools named: a call of any other is an unknown tool, and its error lists
        what was offered (the tools a round showed the model)."""
        view = copy.copy(self)
        keep = set(names)
        view.tools = {n: t for n, t in self.tools.items() if n in keep}
        view.names = list(view.tools)
        return view

    def _done(
        self,
        call: ToolCall,
        content: str,
        started: float,
        kind: str | None = None,
        parts: list[ContentPart] | None = None,
    ) -> ToolResultMessage:
        tool = self.tools.get(call.name) if isinstance(call.name, str) else None
        result = ToolResultMessage(
            call_id=call.id,
            name=tool.name if tool else str(call.name),
            content=content,
            is_error=kind is not None,
            error_kind=kind,
            parts=parts or [],
        )
        if self.screen is not None and kind in (None, errors.TOOL_ERROR):  # what the tool wrote, not the harness
            result = self.screen(result)
        if self.on_result is not None:
            self.on_result(result, time.perf_counter() - started)
        return result

    def fail(self, call: ToolCall, content: str, kind: str) -> ToolResultMessage:
        """An error result for a call that is not (or no longer) run."""
        return self._done(call, content, time.perf_counter(), kind)

    async def dispatch(self, call: ToolCall, semaphore: asyncio.Semaphore | None = None) -> ToolResultMessage:
        """Run one call; return its result. Only the caller's cancellation escapes."""
        started = time.perf_counter()
        if self.on_call is not None:
            self.on_call(call)
        if call.parse_error is not None:
            return self._done(call, errors.unparsable(call.parse_error), started, errors.PARSE_ERROR)
        tool = self.tools.get(call.name) if isinstance(call.name, str) else None
        if tool is None:
            return self._done(call, errors.unknown_tool(call.name, self.names), started, errors.UNKNOWN_TOOL)
        try:
            arguments = call.args_as_dict()
        except UnreadableArguments as exc:
            kind = errors.INVALID_ARGUMENTS if exc.is_json else errors.INVALID_JSON
            return self._done(call, errors.unreadable_arguments(tool, exc.problem), started, kind)
        try:
            problems = tool.check(arguments)
            bound = None if problems else tool.bind(arguments)
        except InvalidArguments as exc:
            problems, bound = exc.problems, None
        if bound is None:
            return self._done(call, errors.invalid_arguments(tool, problems), started, errors.INVALID_ARGUMENTS)
        # the approver sees the decoded, validated arguments, whatever form the model sent them in
        if tool.side_effects and not await self._approved(call.model_copy(update={"arguments": arguments}), tool):
            return self._done(call, errors.denied(tool, self.approve is not None), started, errors.DENIED)
        token = current_call.set(call)
        listening = current_context.set(self.context(call) if self.context is not None else None)
        try:
            if semaphore is None:
                value = await self._execute(tool, bound)
            else:
                async with semaphore:
                    value = await self._execute(tool, bound)
        except ToolError as exc:
            return self._done(call, str(exc) or f"Tool {tool.name!r} failed.", started, errors.TOOL_ERROR)
        except _TimedOut:
            return self._done(call, errors.timed_out(tool, tool.timeout or 0), started, errors.TIMEOUT)
        except (Exception, SystemExit) as exc:  # a tool's bug must reach the model, not crash the run
            return self._done(call, errors.tool_failed(tool, exc), started, errors.TOOL_ERROR)
        finally:
            current_context.reset(listening)
            current_call.reset(token)
        try:
            parts = parts_of(value)
            content = as_text(parts) if parts is not None else to_content(value)
        except Exception as exc:
            return self._done(call, errors.tool_failed(tool, exc), started, errors.TOOL_ERROR)
        return self._done(call, content, started, parts=parts)

    async def _approved(self, call: ToolCall, tool: Tool) -> bool:
        if self.approve is None:
            return False
        try:
            verdict = self.approve(call, tool)
            if inspect.isawaitable(verdict):
                verdict = await verdict
        except Exception:
            return False  # an approver that fails has not approved
        return verdict is True

    @staticmethod
    async def _execute(tool: Tool, bound: Callable[[], Any]) -> Any:
        if tool.is_async:
            work = bound()
        else:
            # A thread cannot be stopped: on timeout the call gets its error result and the thread ends alone.
            work = tool_threads().run(bound)
        if tool.timeout is None:
            return await work
        try:
            async with asyncio.timeout(tool.timeout) as scope:
                return await work
        except TimeoutError:
            if scope.expired():
                raise _TimedOut from None
            raise  # the tool's own TimeoutError is an ordinary tool failure

    def groups(self, calls: Sequence[ToolCall]) -> list[list[int]]:
        """Indexes of calls that may run together, in order; an exclusive tool's call stands alone."""
        out: list[list[int]] = []
        current: list[int] = []
        for i, call in enumerate(calls):
            tool = self.tools.get(call.name) if isinstance(call.name, str) else None
            if tool is not None and tool.exclusive:
                if current:
                    out.append(current)
                    current = []
                out.append([i])
            else:
                current.append(i)
        if current:
            out.append(current)
        return out

    async def dispatch_all(
        self, calls: Sequence[ToolCall], results: list[ToolResultMessage | None] | None = None
    ) -> list[ToolResultMessage]:
        """Run one turn's calls concurrently; results in call order.

        If `results` is given it is filled in place, so that when the caller is cancelled it still holds one
        result per call: those that finished, and an error result for every other.
        """
        if results is None:
            results = [None] * len(calls)
        semaphore = asyncio.Semaphore(self.max_concurrency)

        async def run_into(i: int) -> None:
            results[i] = await self.dispatch(calls[i], semaphore)

        try:
            for group in self.groups(calls):
                if len(group) == 1:
                    await run_into(group[0])
                else:
                    async with asyncio.TaskGroup() as tg:
                        for i in group:
                            tg.create_task(run_into(i))
        except asyncio.CancelledError:
            for i, result in enumerate(results):
                if result is None:
                    results[i] = self.fail(calls[i], errors.cancelled(str(calls[i].name)), errors.CANCELLED)
            raise
        return results  # type: ignore[return-value]
