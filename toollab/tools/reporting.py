"""What an async tool tells whoever runs its call while it runs: progress, and log messages. In-process they
become events of the run (the live view shows them, the log keeps them); over MCP, the client's progress and
log notifications. When nobody listens they cost nothing and say nothing."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")  # MCP's (RFC 5424)


class Reporter(Protocol):
    """Where a running call's reports go (set by the harness or the MCP server for each call)."""

    async def progress(self, done: float, total: float | None, message: str | None) -> None: ...

    async def log(self, level: str, message: str) -> None: ...


current_reporter: ContextVar[Reporter | None] = ContextVar("current_reporter", default=None)


async def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """From an async tool: how far the call is (`done` of `total`, with an optional message)."""
    reporter = current_reporter.get()
    if reporter is not None:
        await reporter.progress(done, total, message)


async def log(message: str, level: str = "info") -> None:
    """From an async tool: a log message for whoever runs the call (`level` one of MCP's, info by default)."""
    if level not in LEVELS:
        raise ValueError(f"log level {level!r} is not one of {', '.join(LEVELS)}")
    reporter = current_reporter.get()
    if reporter is not None:
        await reporter.log(level, message)
