"""MCP: serve a toollab tool set as an MCP server, and import an MCP server's tools as toollab tools."""

from toollab.interfaces.mcp.client import MCPServer
from toollab.interfaces.mcp.server import mcp_server, serve_mcp

__all__ = ["MCPServer", "mcp_server", "serve_mcp"]
