"""The gateway: an MCP server in front of a REST API, holding the API's credential so that agents never do.

Agents authenticate to the gateway with their own token (MCP_API_KEY); the gateway calls the upstream with
UPSTREAM_API_KEY, which it alone holds. The key is not in any tool schema (security schemes and credential
headers never become arguments), and it is scrubbed from results and error texts, as is the agents' token.
Nothing an agent sends reaches the upstream except the arguments the API document declares.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toollab.interfaces.mcp.server import serve_mcp
from toollab.interfaces.rest.openapi import openapi_tools
from toollab.tools import Tool


def gateway_tools(
    spec: str | Path | dict[str, Any], upstream: str, *, upstream_key: str, agent_key: str | None = None
) -> list[Tool]:
    """The upstream's operations as tools that carry `upstream_key` and never show it (nor `agent_key`)."""
    if not upstream_key:
        raise ValueError("the gateway needs the upstream's key (UPSTREAM_API_KEY)")
    return openapi_tools(spec, base_url=upstream, api_key=upstream_key, secrets=[agent_key])


def serve_gateway(
    spec: str | Path | dict[str, Any],
    upstream: str,
    *,
    agent_key: str,
    upstream_key: str,
    host: str = "127.0.0.1",
    port: int = 8767,
) -> None:
    if not agent_key:
        raise ValueError("the gateway needs a token for its agents (MCP_API_KEY)")
    if agent_key == upstream_key:
        raise ValueError("MCP_API_KEY and UPSTREAM_API_KEY must differ: agents would hold the upstream's key")
    tools = gateway_tools(spec, upstream, upstream_key=upstream_key, agent_key=agent_key)
    serve_mcp(tools, transport="http", host=host, port=port, token=agent_key, name="toollab-gateway")
