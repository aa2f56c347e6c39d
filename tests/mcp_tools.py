"""Tools that the MCP and REST tests serve from a separate process."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from toollab import Tool, ToolError, calculator, tool


@tool
def echo(text: str) -> str:
    """Return the text unchanged.

    Args:
        text: Any text.
    """
    return text


@tool
def fail(reason: str) -> str:
    """Always fails, with the reason given.

    Args:
        reason: What to say.
    """
    raise ToolError(f"failed on purpose: {reason}")


@tool
def crash() -> str:
    """Raises an unexpected exception (a bug in the tool)."""
    raise RuntimeError("unexpected state")


@tool(timeout=0.5)
async def too_slow() -> str:
    """Takes longer than its own time limit."""
    await asyncio.sleep(5)
    return "never"


@tool
async def wait(seconds: float, marker: str = "") -> str:
    """Wait, then answer; touches the file `marker` first so a test knows the call started.

    Args:
        seconds: How long to wait.
        marker: A file to create when the call starts.
    """
    if marker:
        Path(marker).touch()
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


@tool(side_effects=True)
def launch(target: str) -> str:
    """Something with side effects: runs only when the server approves it.

    Args:
        target: What to launch.
    """
    return f"launched {target}"


@tool
def pid() -> int:
    """The server's process id."""
    return os.getpid()


TOOLS: list[Tool] = [calculator, echo, fail, crash, too_slow, wait, pid, launch]
