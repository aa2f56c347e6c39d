"""A toollab tool set as an MCP server (fastmcp), over stdio or streamable HTTP.

Every `tools/call` goes through toollab's own `Dispatcher`, so a model behind MCP gets the same schema check and
the same model-facing error messages as in-process dispatch; failures come back as `isError` results, never as
protocol errors. Over HTTP the server requires a bearer token (compared in constant time) and checks the Host
and Origin headers against DNS rebinding.
"""

from __future__ import annotations

import hmac
import itertools
from collections.abc import Iterable
from typing import Any, Literal

from fastmcp import FastMCP
from fastmcp.server.auth.providers.debug import DebugTokenVerifier
from fastmcp.tools.base import Tool as FastMCPTool
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent
from pydantic import PrivateAttr

from toollab.harness.dispatch import Approver, Dispatcher
from toollab.harness.messages import ToolCall
from toollab.tools import Tool

Transport = Literal["stdio", "http"]
MCP_PATH = "/mcp"


class _DispatchedTool(FastMCPTool):
    """One toollab tool as fastmcp sees it: its exact schema, run through the shared dispatcher."""

    _dispatcher: Dispatcher = PrivateAttr()
    _ids: Any = PrivateAttr()

    @classmethod
    def of(cls, tool: Tool, dispatcher: Dispatcher, ids: Any) -> _DispatchedTool:
        exposed = cls(name=tool.name, description=tool.description, parameters=tool.parameters)
        exposed._dispatcher = dispatcher
        exposed._ids = ids
        return exposed

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        call = ToolCall(id=f"mcp-{next(self._ids)}", name=self.name, arguments=arguments)
        result = await self._dispatcher.dispatch(call)
        return ToolResult(content=[TextContent(type="text", text=result.content)], is_error=result.is_error)


class ClientReporter:
    """A call's progress and log reports as the MCP client's notifications (of the request being served)."""

    def __init__(self, context: Any):
        self.context = context

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        await self.context.report_progress(done, total, message)

    async def log(self, level: str, message: str) -> None:
        await self.context.log(message, level=level)


def client_reporter(call: ToolCall) -> ClientReporter | None:
    """The reporter of the MCP request now being served (None outside one)."""
    from fastmcp.server.dependencies import get_context

    try:
        return ClientReporter(get_context())
    except RuntimeError:  # no request context: nobody to tell
        return None


def token_verifier(token: str) -> DebugTokenVerifier:
    """Accepts exactly `token`, compared in constant time."""
    if not token:
        raise ValueError("an empty bearer token would let anyone in")
    expected = token.encode()
    return DebugTokenVerifier(validate=lambda given: hmac.compare_digest(given.encode(), expected))


def mcp_server(
    tools: Iterable[Tool], *, name: str = "toollab", token: str | None = None, approve: Approver | None = None
) -> FastMCP:
    """An MCP server offering `tools`; with `token`, every HTTP request must carry `Authorization: Bearer TOKEN`.

    Tools with side effects run only when `approve(call, tool)` says yes; without an approver they are refused,
    as in-process (a remote client cannot be asked)."""
    tools = list(tools)
    dispatcher = Dispatcher(tools, approve=approve, reporter=client_reporter)
    server = FastMCP(name, auth=token_verifier(token) if token is not None else None)
    ids = itertools.count(1)
    for tool in tools:
        server.add_tool(_DispatchedTool.of(tool, dispatcher, ids))
    return server


def allowed_hosts(host: str) -> list[str]:
    """The Host header values a server bound to `host` answers: its own name, and localhost's for loopback."""
    loopback = ["127.0.0.1", "localhost", "[::1]"]
    return loopback if host in ("127.0.0.1", "localhost", "::1") else [host]


def serve_mcp(
    tools: Iterable[Tool],
    *,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    name: str = "toollab",
    approve: Approver | None = None,
) -> None:
    """Serve until stopped. HTTP needs a token; stdio is the client's own child process and needs none."""
    if transport == "stdio":
        mcp_server(tools, name=name, approve=approve).run(transport="stdio", show_banner=False)
        return
    if not token:
        raise ValueError("serving MCP over HTTP needs a bearer token (set MCP_API_KEY)")
    server = mcp_server(tools, name=name, token=token, approve=approve)
    server.run(
        transport="http",
        host=host,
        port=port,
        path=MCP_PATH,
        show_banner=False,
        host_origin_protection=True,  # every request's Host (and Origin, if any) must name this server
        allowed_hosts=allowed_hosts(host),
        log_level="warning",
    )
