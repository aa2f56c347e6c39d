"""What an async tool can do with whoever runs its call, while it runs: report progress, log, ask the user for
input (elicitation), and ask for a model's completion (sampling).

In-process the agent answers: reports become events of the run (the live view shows them, the log keeps them),
questions go to the agent's `ask` function (the terminal for `toollab run`), and sampling to the agent's own
model. Over MCP the client answers, with its progress and log notifications, `elicitation/create` and
`sampling/createMessage`. Reports to nobody cost nothing; a question nobody can answer raises `NobodyToAsk`,
a `ToolError`, so the model reads why the tool could not go on.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from toollab.tools.tool import ToolError

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")  # MCP's (RFC 5424)
ACTIONS = ("accept", "decline", "cancel")


class Elicited(BaseModel):
    """The user's reply to an elicitation: accepted with `content` (fitting the schema asked), declined, or
    cancelled (dismissed without a choice)."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


class NobodyToAsk(ToolError):
    """Elicitation or sampling where whoever runs the call cannot answer it (no user, no model, or an MCP
    client without the capability)."""


class CallContext(Protocol):
    """Whoever runs a call (set by the harness or the MCP server for each call)."""

    async def progress(self, done: float, total: float | None, message: str | None) -> None: ...

    async def log(self, level: str, message: str) -> None: ...

    async def elicit(self, message: str, schema: dict[str, Any]) -> Elicited: ...

    async def sample(self, messages: Sequence[str], *, system: str | None, max_tokens: int) -> str: ...

    async def close_stream(self) -> None: ...


Asker = Callable[[str, dict[str, Any]], "Elicited | Awaitable[Elicited]"]
"""Asks the user `message` for an object fitting a schema (in-process elicitation: `Agent(ask=...)`)."""


async def put_to(ask: Asker, message: str, schema: dict[str, Any]) -> Elicited:
    """Put a question to an `Asker` (sync or async): its reply, which must be an `Elicited`."""
    reply = ask(message, schema)
    if inspect.isawaitable(reply):
        reply = await reply
    if not isinstance(reply, Elicited):
        raise TypeError(f"an ask function must return an Elicited, not {type(reply).__name__}")
    return reply


current_context: ContextVar[CallContext | None] = ContextVar("current_call_context", default=None)


async def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """From an async tool: how far the call is (`done` of `total`, with an optional message)."""
    context = current_context.get()
    if context is not None:
        await context.progress(done, total, message)


async def log(message: str, level: str = "info") -> None:
    """From an async tool: a log message for whoever runs the call (`level` one of MCP's, info by default)."""
    if level not in LEVELS:
        raise ValueError(f"log level {level!r} is not one of {', '.join(LEVELS)}")
    context = current_context.get()
    if context is not None:
        await context.log(level, message)


async def elicit(message: str, schema: dict[str, Any]) -> Elicited:
    """From an async tool: ask the user `message`, for an object fitting `schema` (a flat JSON object schema of
    strings, numbers, integers, booleans and enums, as MCP's elicitation allows; `default`s are offered)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError("an elicitation asks for an object: its schema needs type 'object'")
    context = current_context.get()
    if context is None:
        raise NobodyToAsk(f"This tool needs an answer from the user ({message!r}), and there is nobody to ask.")
    return await context.elicit(message, schema)


async def confirm(message: str) -> bool:
    """From an async tool: ask the user a yes/no question; True only when they accept."""
    reply = await elicit(message, {"type": "object", "properties": {}})
    return reply.accepted


async def sample(prompt: str | Sequence[str], *, system: str | None = None, max_tokens: int = 256) -> str:
    """From an async tool: a model's reply to `prompt` (or to several user messages), from whoever runs the
    call: the agent's own model in-process, the client's over MCP."""
    messages = [prompt] if isinstance(prompt, str) else list(prompt)
    if not messages or max_tokens < 1:
        raise ValueError("sampling needs at least one message and max_tokens of at least 1")
    context = current_context.get()
    if context is None:
        raise NobodyToAsk("This tool needs a model's completion, and no model is available to it.")
    return await context.sample(messages, system=system, max_tokens=max_tokens)


async def close_stream() -> None:
    """From an async tool: over MCP's streamable HTTP, close this call's response stream now; the client
    reconnects after the server's retry interval and receives what follows, the result included (SSE polling,
    for calls longer than a proxy's idle timeout). Elsewhere it does nothing."""
    context = current_context.get()
    if context is not None:
        await context.close_stream()
