"""A toollab tool set as an MCP server (fastmcp), over stdio or streamable HTTP.

Every `tools/call` goes through toollab's own `Dispatcher`, so a model behind MCP gets the same schema check and
the same model-facing error messages as in-process dispatch; failures come back as `isError` results, never as
protocol errors. A tool's content parts (images, audio, embedded resources) go out as MCP content; its progress
and log reports as the client's notifications; its questions as `elicitation/create`, its sampling as
`sampling/createMessage` (`toollab.tools.call_context`). A tool with side effects runs when the approver says
yes, and without one when the client's user accepts it by elicitation. Resources, resource templates and
prompts (`toollab.tools.served`) are served with completion and subscriptions. Over HTTP the server requires a
bearer token (compared in constant time), or none on loopback when asked (`anonymous=True`), and checks the
Host and Origin headers against DNS rebinding.
"""

from __future__ import annotations

import hmac
import itertools
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import uvicorn
from fastmcp import FastMCP
from fastmcp.server.auth.providers.debug import DebugTokenVerifier
from fastmcp.server.event_store import EventStore
from fastmcp.tools.base import InputRequiredToolResult, ToolResult
from fastmcp.tools.base import Tool as FastMCPTool
from mcp.shared.exceptions import NoBackChannelError
from mcp.types import (
    ClientCapabilities,
    CreateMessageRequest,
    CreateMessageRequestParams,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    SamplingCapability,
    SamplingMessage,
    TextContent,
)
from pydantic import PrivateAttr

from toollab.harness.dispatch import Approver, Dispatcher, asking_approver
from toollab.harness.messages import ToolCall
from toollab.interfaces.heap import freeze_startup_heap
from toollab.interfaces.mcp.content import mcp_content
from toollab.interfaces.mcp.offerings import Subscriptions, serve_offerings
from toollab.tools import Elicited, NobodyToAsk, Tool
from toollab.tools.served import Served

Transport = Literal["stdio", "http"]
MCP_PATH = "/mcp"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
RETRY_MS = 500  # how long a client whose stream was closed waits before it reconnects


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
        try:
            result = await self._dispatcher.dispatch(call)
        except NeedsInput as ask:  # a 2026-era client: ask in the result; it calls again with the answer
            return InputRequiredToolResult(InputRequiredResult(input_requests={ask.key: ask.request}))
        content = [mcp_content(p) for p in result.parts] or [TextContent(type="text", text=result.content)]
        return ToolResult(content=content, is_error=result.is_error)


class NeedsInput(BaseException):
    """A question for a client that takes questions only in a call's result (MCP 2026-07-28, SEP-2322): the
    call returns it, and the client calls again with the answer, under `key`. A BaseException, so that the
    dispatcher's error handling lets it through to the MCP layer (only `ClientContext` raises it)."""

    def __init__(self, key: str, request: ElicitRequest | CreateMessageRequest):
        super().__init__(key)
        self.key, self.request = key, request


class ClientContext:
    """Whoever runs a call over MCP: the client of the request being served (progress and log notifications,
    elicitation, sampling). A client on a connection with a back-channel (protocol up to 2025-11-25) is asked
    while the call runs; a 2026-era client gets the question as the call's result and calls again with the
    answer, which the re-run finds here (the n-th question of a call is keyed `ask-n` both times)."""

    def __init__(self, context: Any):
        self.context = context
        self.asked = 0

    def _answer(self, request: ElicitRequest | CreateMessageRequest) -> Any:
        """The answer a retried call carries for its next question, or NeedsInput to ask it."""
        self.asked += 1
        key = f"ask-{self.asked}"
        answers = self.context.input_responses or {}
        if key in answers:
            return answers[key]
        raise NeedsInput(key, request)

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        await self.context.report_progress(done, total, message)

    async def log(self, level: str, message: str) -> None:
        await self.context.log(message, level=level)

    def _can(self, capability: ClientCapabilities, what: str) -> None:
        if not self.context.session.check_client_capability(capability):
            raise NobodyToAsk(f"The MCP client cannot answer {what} (it did not declare the capability).")

    async def elicit(self, message: str, schema: dict[str, Any]) -> Elicited:
        self._can(ClientCapabilities(elicitation=ElicitationCapability()), "questions to its user (elicitation)")
        try:
            reply = await self.context.session.elicit(
                message=message, requested_schema=schema, related_request_id=self.context.request_id
            )
        except NoBackChannelError:
            params = ElicitRequestFormParams(message=message, requested_schema=schema)
            reply = self._answer(ElicitRequest(params=params))
        return Elicited(action=reply.action, content=reply.content)

    async def sample(self, messages: Sequence[str], *, system: str | None, max_tokens: int) -> str:
        self._can(ClientCapabilities(sampling=SamplingCapability()), "sampling requests")
        asked = [SamplingMessage(role="user", content=TextContent(type="text", text=m)) for m in messages]
        try:
            reply = await self.context.session.create_message(
                asked, max_tokens=max_tokens, system_prompt=system, related_request_id=self.context.request_id
            )
        except NoBackChannelError:
            params = CreateMessageRequestParams(messages=asked, max_tokens=max_tokens, system_prompt=system)
            reply = self._answer(CreateMessageRequest(params=params))
        content = reply.content if isinstance(reply.content, list) else [reply.content]
        return "".join(c.text for c in content if isinstance(c, TextContent))

    async def close_stream(self) -> None:
        await self.context.close_sse_stream()


def client_context(call: ToolCall | None = None) -> ClientContext | None:
    """The client of the MCP request now being served (None outside one)."""
    from fastmcp.server.dependencies import get_context

    try:
        return ClientContext(get_context())
    except RuntimeError:  # no request context: nobody to tell
        return None


async def ask_client(message: str, schema: dict[str, Any]) -> Elicited:
    """Ask the user of the client being served; a client that cannot be asked declines."""
    client = client_context()
    if client is None:
        return Elicited(action="decline")
    try:
        return await client.elicit(message, schema)
    except NobodyToAsk:
        return Elicited(action="decline")


def token_verifier(token: str) -> DebugTokenVerifier:
    """Accepts exactly `token`, compared in constant time."""
    if not token:
        raise ValueError("an empty bearer token would let anyone in")
    expected = token.encode()
    return DebugTokenVerifier(validate=lambda given: hmac.compare_digest(given.encode(), expected))


def mcp_server(
    tools: Iterable[Tool] | Served,
    *,
    name: str = "toollab",
    token: str | None = None,
    approve: Approver | None = None,
    subscriptions: Subscriptions | None = None,
) -> FastMCP:
    """An MCP server offering `tools` (or a `Served`: tools, resources and prompts); with `token`, every HTTP
    request must carry `Authorization: Bearer TOKEN`.

    Tools with side effects run when `approve(call, tool)` says yes; without an approver, when the client's user
    accepts the call (asked by elicitation; a client that cannot be asked gets a refusal). `subscriptions` (give
    your own to call its `updated(uri)` when a resource changes) records which sessions follow which resource."""
    served = tools if isinstance(tools, Served) else Served(tools=list(tools))
    dispatcher = Dispatcher(served.tools, approve=approve or asking_approver(ask_client), context=client_context)
    # schemas go out exactly as the tools wrote them ($defs and $ref kept), as the model sees them in-process
    auth = token_verifier(token) if token is not None else None
    server = FastMCP(name, auth=auth, dereference_schemas=False)
    ids = itertools.count(1)
    for tool in served.tools:
        server.add_tool(_DispatchedTool.of(tool, dispatcher, ids))
    serve_offerings(server, served, subscriptions or Subscriptions())
    return server


def allowed_hosts(host: str) -> list[str]:
    """The Host header values a server bound to `host` answers: its own name, and localhost's for loopback."""
    loopback = ["127.0.0.1", "localhost", "[::1]"]
    return loopback if host in LOOPBACK else [host]


def serve_mcp(
    tools: Iterable[Tool] | Served,
    *,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    name: str = "toollab",
    approve: Approver | None = None,
    anonymous: bool = False,
) -> None:
    """Serve until stopped. HTTP needs a token, unless `anonymous` on a loopback address (for local clients that
    send none, as the MCP conformance suite's); stdio is the client's own child process and needs none."""
    if transport == "stdio":
        server = mcp_server(tools, name=name, approve=approve)
        freeze_startup_heap()
        server.run(transport="stdio", show_banner=False)
        return
    if anonymous and host not in LOOPBACK:
        raise ValueError(f"serving MCP without a token is allowed on loopback only, not on {host}")
    if not token and not anonymous:
        raise ValueError("serving MCP over HTTP needs a bearer token (set MCP_API_KEY)")
    server = mcp_server(tools, name=name, token=None if anonymous else token, approve=approve)
    app = server.http_app(
        path=MCP_PATH,
        event_store=EventStore(),  # a client that lost a response stream resumes it (Last-Event-ID)
        retry_interval=RETRY_MS,
        host_origin_protection=True,  # every request's Host (and Origin, if any) must name this server
        allowed_hosts=allowed_hosts(host),
    )
    freeze_startup_heap()
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
