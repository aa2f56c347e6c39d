"""`toollab mcp serve`, `toollab rest serve` and `toollab gateway`: the same tools, reachable from elsewhere."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from toollab.harness.model import ModelError
from toollab.interfaces.heap import freeze_startup_heap
from toollab.interfaces.loading import load_local, load_served, load_tools
from toollab.interfaces.options import AdapterOption, Constrained, TokensOption, fail, stderr
from toollab.models.registry import MODEL_FORMS, load_model

mcp_app = typer.Typer(help="Serve tools over MCP.", no_args_is_help=True)
rest_app = typer.Typer(help="Serve tools over REST, with an OpenAPI document.", no_args_is_help=True)

MCP_KEY_ENV = "MCP_API_KEY"
REST_KEY_ENV = "TOOLLAB_API_KEY"
UPSTREAM_KEY_ENV = "UPSTREAM_API_KEY"
SERVE_KEY_ENV = "TOOLLAB_SERVE_KEY"

Host = Annotated[str, typer.Option(help="Address to bind; 127.0.0.1 keeps the server on this machine.")]
AllowSideEffects = Annotated[
    bool,
    typer.Option(
        "--allow-side-effects",
        help="Run tools marked side_effects=True when called (the caller approves); refused by default.",
    ),
]


def _approver(allow: bool) -> Any:
    """Approve every call (the remote caller is trusted to have approved it), or none."""
    return (lambda call, tool: True) if allow else None


@mcp_app.command("serve")
def mcp_serve(
    tools: Annotated[str, typer.Argument(help="The tools, as MODULE:ATTR or FILE.py:ATTR.")],
    transport: Annotated[str, typer.Option(help="stdio (a client's child process) or http.")] = "stdio",
    host: Host = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port for http.")] = 8765,
    name: Annotated[str, typer.Option(help="The server's name, as clients see it.")] = "toollab",
    allow_side_effects: AllowSideEffects = False,
    anonymous: Annotated[
        bool,
        typer.Option(
            "--anonymous", help="Over http on a loopback address, accept clients without a token (local tools)."
        ),
    ] = False,
) -> None:
    """Serve TOOLS (tools, or a toollab.tools.served.Served with resources and prompts too) as an MCP server.
    Over http, clients must send `Authorization: Bearer $MCP_API_KEY` unless --anonymous. Tools with side
    effects run when the client's user accepts each call (elicitation), or always with --allow-side-effects."""
    if transport not in ("stdio", "http"):
        raise fail(f"--transport must be stdio or http, got {transport!r}")
    try:
        served = load_served(tools)
    except ValueError as exc:
        raise fail(str(exc)) from None
    token = os.environ.get(MCP_KEY_ENV)
    if transport == "http" and anonymous and host not in ("127.0.0.1", "localhost", "::1"):
        raise fail(f"--anonymous is for loopback addresses only, not {host}")
    if transport == "http" and not token and not anonymous:
        raise fail(f"serving MCP over http needs a bearer token: set {MCP_KEY_ENV} (or --anonymous on loopback)")
    from toollab.interfaces.mcp.server import serve_mcp  # fastmcp loads only when serving (extra `serve`)

    serve_mcp(
        served,
        transport="http" if transport == "http" else "stdio",
        host=host,
        port=port,
        token=token,
        name=name,
        approve=_approver(allow_side_effects),
        anonymous=anonymous,
    )


@rest_app.command("serve")
def rest_serve(
    tools: Annotated[str, typer.Argument(help="The tools, as MODULE:ATTR or FILE.py:ATTR.")],
    host: Host = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8766,
    allow_side_effects: AllowSideEffects = False,
) -> None:
    """Serve TOOLS as REST endpoints (POST /tools/NAME); clients send `X-API-Key: $TOOLLAB_API_KEY`. The OpenAPI
    document is at /openapi.json."""
    try:
        tool_set = load_tools(tools)
    except ValueError as exc:
        raise fail(str(exc)) from None
    key = os.environ.get(REST_KEY_ENV)
    if not key:
        raise fail(f"the REST server needs an API key: set {REST_KEY_ENV}")
    from toollab.interfaces.rest.server import serve_rest

    serve_rest(tool_set, api_key=key, host=host, port=port, approve=_approver(allow_side_effects))


def gateway(
    openapi: Annotated[str, typer.Option(help="The upstream's OpenAPI document: a URL or a file.")],
    upstream: Annotated[str, typer.Option(help="The upstream's base URL.")],
    host: Host = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8767,
) -> None:
    """An MCP server (HTTP) in front of a REST API. Agents send `Authorization: Bearer $MCP_API_KEY`; only the
    gateway holds $UPSTREAM_API_KEY, and it never shows it to them."""
    agent_key, upstream_key = os.environ.get(MCP_KEY_ENV), os.environ.get(UPSTREAM_KEY_ENV)
    if not agent_key or not upstream_key:
        raise fail(f"set {MCP_KEY_ENV} (for the agents) and {UPSTREAM_KEY_ENV} (for the upstream)")
    from toollab.interfaces.gateway import serve_gateway

    try:
        serve_gateway(openapi, upstream, agent_key=agent_key, upstream_key=upstream_key, host=host, port=port)
    except ValueError as exc:
        raise fail(str(exc)) from None


def serve(
    model: Annotated[str, typer.Option(help=f"Model: {MODEL_FORMS}.")] = "local",
    host: Host = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8000,
    name: Annotated[str | None, typer.Option(help="The model's id in /v1/models and responses.")] = None,
    max_new_tokens: TokensOption = None,
    constrained: Constrained = None,
    adapter: AdapterOption = None,
) -> None:
    """Serve MODEL behind an OpenAI-compatible endpoint: POST /v1/chat/completions (tools, every tool_choice,
    parallel_tool_calls, streaming, usage) and GET /v1/models. With $TOOLLAB_SERVE_KEY set, clients must send
    `Authorization: Bearer $TOOLLAB_SERVE_KEY`."""
    try:
        chosen = load_model(model, max_new_tokens=max_new_tokens, constrained=constrained, adapter=adapter)
        load_local(chosen, stderr)
    except (ValueError, ModelError) as exc:
        raise fail(str(exc)) from None
    import uvicorn

    from toollab.interfaces.chat import chat_app

    app = chat_app(chosen, name=name, api_key=os.environ.get(SERVE_KEY_ENV) or None)
    stderr.print(f"[dim]serving {name or chosen.name} on http://{host}:{port}/v1[/dim]")
    freeze_startup_heap()
    uvicorn.run(app, host=host, port=port, log_level="warning")
