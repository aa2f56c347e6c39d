"""`toollab mcp serve`, `toollab rest serve` and `toollab gateway`: the same tools, reachable from elsewhere."""

from __future__ import annotations

import os
from typing import Annotated

import typer
from rich.console import Console

from toollab.interfaces.loading import load_tools

errors = Console(stderr=True)
mcp_app = typer.Typer(help="Serve tools over MCP.", no_args_is_help=True)

MCP_KEY_ENV = "MCP_API_KEY"

Host = Annotated[str, typer.Option(help="Address to bind; 127.0.0.1 keeps the server on this machine.")]


def _fail(message: str) -> typer.Exit:
    errors.print(f"[red]error:[/red] {message}")
    return typer.Exit(2)


@mcp_app.command("serve")
def mcp_serve(
    tools: Annotated[str, typer.Argument(help="The tools, as MODULE:ATTR or FILE.py:ATTR.")],
    transport: Annotated[str, typer.Option(help="stdio (a client's child process) or http.")] = "stdio",
    host: Host = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port for http.")] = 8765,
    name: Annotated[str, typer.Option(help="The server's name, as clients see it.")] = "toollab",
) -> None:
    """Serve TOOLS as an MCP server. Over http, clients must send `Authorization: Bearer $MCP_API_KEY`."""
    if transport not in ("stdio", "http"):
        raise _fail(f"--transport must be stdio or http, got {transport!r}")
    try:
        tool_set = load_tools(tools)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    token = os.environ.get(MCP_KEY_ENV)
    if transport == "http" and not token:
        raise _fail(f"serving MCP over http needs a bearer token: set {MCP_KEY_ENV}")
    from toollab.interfaces.mcp.server import serve_mcp  # fastmcp loads only when serving (extra `serve`)

    serve_mcp(tool_set, transport="http" if transport == "http" else "stdio", host=host, port=port, token=token, name=name)
