"""An MCP server (stdio) whose tool list grows during a session: calling `unlock` adds the tool `vault`."""

from __future__ import annotations

from fastmcp import FastMCP

server = FastMCP("growing")


@server.tool
def unlock() -> str:
    """Open the vault: adds the tool `vault`."""

    def vault() -> str:
        """What the vault holds."""
        return "gold"

    server.tool(vault)
    return "unlocked"


if __name__ == "__main__":
    server.run(show_banner=False)
