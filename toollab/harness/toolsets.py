"""Toolsets: where an agent's tools come from when they are not a fixed list.

A toolset is listed again before every model request, so its tools may change during a run: an MCP server
(`toollab.interfaces.mcp.MCPServer`) that adds a tool is seen at the next step, an OpenAPI service
(`toollab.interfaces.rest.OpenAPIService`) is read when first needed, and a catalogue behind a retriever
(`toollab.retrieval.Catalogue`) ranks its tools so that `Agent(tools_per_turn=k)` shows only the `k` that fit the
request best. Anything with these methods is a toolset; nothing needs to inherit from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from toollab.harness.prepare import StepContext
from toollab.tools import Tool


@runtime_checkable
class Toolset(Protocol):
    """A source of tools, listed before each model request (`step` says which round of which run asks)."""

    async def list_tools(self, step: StepContext) -> Sequence[Tool]: ...


@runtime_checkable
class RankedToolset(Toolset, Protocol):
    """A toolset that orders its tools by how well they fit a request: with `Agent(tools_per_turn=k)` the model
    sees its `k` best each round (besides the tools given directly, other toolsets' tools, and tools the run has
    already called)."""

    async def rank(self, request: str, tools: Sequence[Tool], k: int) -> Sequence[Tool]: ...


def label(source: object) -> str:
    """A toolset as a person reads it in an error: its own `label` if it has one, else its class."""
    own = getattr(source, "label", None)
    return own if isinstance(own, str) and own else type(source).__name__
