"""The tools of an MCP server as toollab tools: over stdio (a child process) or streamable HTTP (with a token).

    async with MCPServer("http://127.0.0.1:8765/mcp", token=KEY, prefix="weather_") as weather:
        agent = Agent(model, [weather, *local_tools])  # the server's tools, listed again each step

A call that fails on the way (the server died, the connection dropped, no answer in time) becomes an error
result for the model, never a hang or a crash, and the next call reconnects: a restarted server is picked up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.types import CallToolResult, ElicitResult, TextContent

from toollab.interfaces.mcp.content import toollab_part
from toollab.tools import ContentPart, Text, Tool, ToolError, safe_name
from toollab.tools.call_context import Asker, put_to
from toollab.tools.content import as_text

DEFAULT_CALL_TIMEOUT = 60.0


def result_value(result: CallToolResult) -> str | list[ContentPart]:
    """A tools/call result as toollab sees a tool's return: its text when it is all text (else its structured
    content as JSON), or its content parts when it holds images, audio or resources (a resource link, which
    toollab does not carry, becomes a line naming it)."""
    if all(isinstance(c, TextContent) for c in result.content):
        if not result.content and result.structured_content is not None:
            return json.dumps(result.structured_content, ensure_ascii=False)
        return "\n".join(c.text for c in result.content if isinstance(c, TextContent))
    return [toollab_part(c) or Text(text=f"[{c.type}: {getattr(c, 'uri', '')}]") for c in result.content]


class MCPServer:
    """A connection to one MCP server. `target` is a URL (streamable HTTP) or a command line (stdio).

    `prefix` goes before every tool name (to keep servers' tools apart); `call_timeout` bounds each call;
    `env` is the environment of a stdio server's process (the MCP SDK passes only a safe few variables).
    `ask` answers the server's questions to the user (elicitation; a toollab server asks whether a tool with
    side effects may run): without it, the client does not declare the capability and the server cannot ask.
    """

    def __init__(
        self,
        target: str | Sequence[str],
        *,
        token: str | None = None,
        prefix: str = "",
        env: Mapping[str, str] | None = None,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
        ask: Asker | None = None,
    ):
        if isinstance(target, str) and not target.startswith(("http://", "https://")):
            raise ValueError(f"an MCP server is a URL (http://...) or a command as a list, got {target!r}")
        if not isinstance(target, str) and not target:
            raise ValueError("the command of a stdio MCP server is empty")
        self.target = target
        self.token = token
        self.prefix = prefix
        self.env = dict(env) if env is not None else None
        self.call_timeout = call_timeout
        self.ask = ask
        self.label = target if isinstance(target, str) else " ".join(target)
        self._client: Client[Any] | None = None
        self._lock = asyncio.Lock()
        self.connects = 0  # how many times a session was opened (1 + reconnects)

    def _new_client(self) -> Client[Any]:
        answers = {"elicitation_handler": self._answer} if self.ask is not None else {}
        if isinstance(self.target, str):
            return Client(self.target, auth=self.token, timeout=self.call_timeout, **answers)
        command, *args = self.target
        return Client(StdioTransport(command, list(args), env=self.env), timeout=self.call_timeout, **answers)

    async def _answer(self, message: str, response_type: Any, params: Any, context: Any) -> ElicitResult:
        """The server's question (`elicitation/create`, e.g. whether a tool with side effects may run), put to
        `ask` with the schema the server sent."""
        assert self.ask is not None
        reply = await put_to(self.ask, message, params.requested_schema)
        return ElicitResult(action=reply.action, content=reply.content)

    async def connect(self) -> None:
        """Open a session (closing a broken one first)."""
        async with self._lock:
            await self._open()

    async def _open(self) -> None:
        await self._drop()
        client = self._new_client()
        try:
            await client.__aenter__()
        except Exception as exc:
            raise ConnectionError(f"cannot connect to the MCP server {self.label}: {_describe(exc)}") from None
        self._client = client
        self.connects += 1

    async def _drop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            # a dead server's session cannot be closed cleanly; it is gone either way
            with contextlib.suppress(Exception):
                await client.__aexit__(None, None, None)

    async def close(self) -> None:
        async with self._lock:
            await self._drop()

    async def __aenter__(self) -> MCPServer:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _session(self) -> Client[Any]:
        async with self._lock:
            if self._client is None or not self._client.is_connected():
                await self._open()
            assert self._client is not None
            return self._client

    async def tools(self) -> list[Tool]:
        """The server's tools as toollab tools, named `prefix + name` (made safe for every provider)."""
        client = await self._session()
        listed = await client.list_tools()
        tools = []
        for t in listed:
            schema = t.input_schema if isinstance(t.input_schema, dict) else {"type": "object", "properties": {}}
            tools.append(
                Tool.from_schema(
                    safe_name(self.prefix + t.name),
                    t.description or "",
                    schema,
                    self._caller(t.name),
                    timeout=self.call_timeout + 5,  # the harness's bound, after the client's own
                )
            )
        return tools

    async def list_tools(self, step: object = None) -> list[Tool]:
        """As a toolset of an agent (`Agent(model, [server, ...])`): the server's tools, listed again each step, so
        a tool the server adds or removes during a run is seen at the next one."""
        return await self.tools()

    def _caller(self, name: str) -> Any:
        async def call(arguments: dict[str, Any]) -> str | list[ContentPart]:
            return await self.call(name, arguments)

        return call

    async def call(self, name: str, arguments: dict[str, Any]) -> str | list[ContentPart]:
        """Call a tool by its name on the server; its text (or content parts), or a ToolError carrying the
        server's message."""
        try:
            client = await self._session()
        except ConnectionError as exc:
            raise ToolError(f"{exc}. The call was not made; try again later.") from None
        try:
            result = await client.call_tool_mcp(name, arguments, timeout=self.call_timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # transport failures, timeouts, protocol errors
            async with self._lock:
                if self._client is client:
                    await self._drop()  # reconnect on the next call
            raise ToolError(
                f"The MCP server {self.label} failed during the call to {name!r} ({_describe(exc)}). Whether the "
                "tool ran is unknown; the connection will be reopened on the next call."
            ) from None
        value = result_value(result)
        if result.is_error:
            text = value if isinstance(value, str) else as_text(value)
            raise ToolError(text or f"The MCP tool {name!r} failed without a message.")
        return value


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
