"""A catalogue: many tools behind a retriever, as a toolset an agent shows a few of at a time.

    agent = Agent(model, Catalogue(tools), tools_per_turn=3)

Each round the model sees the catalogue's 3 tools that fit the user's request best, plus the tools the run has
already called (`toollab.harness.toolsets`). `index` is "hybrid" (BM25 and MiniLM, fused by reciprocal rank;
the best of the three on BFCL's 2,574 functions, benchmarks/retrieval.py), "bm25", "dense", or an index of your
own (a saved `DenseIndex` with a fine-tuned encoder, say); the catalogue's tools are added to it at the first
ranking, so a saved dense index re-embeds only what is new or changed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence

from toollab.harness.prepare import StepContext
from toollab.retrieval.index import BM25Index, DenseIndex, Hit, HybridIndex, ToolIndex
from toollab.tools import Tool, ToolSpec

INDEXES = ("bm25", "dense", "hybrid")


def new_index(kind: str) -> ToolIndex:
    """An empty index of a kind named in INDEXES."""
    if kind == "bm25":
        return BM25Index()
    if kind == "dense":
        return DenseIndex()
    if kind == "hybrid":
        return HybridIndex([BM25Index(), DenseIndex()])
    raise ValueError(f"unknown index {kind!r}; known: {', '.join(INDEXES)}")


class Catalogue:
    """Tools with an index over them (a `RankedToolset`): lists all of its tools, ranks them for a request.

    With `index="bm25"` alone, a request that shares no word with any tool ranks none: the round shows none of
    the catalogue's tools. The default, hybrid, always ranks (MiniLM finds what shares meaning but no words)."""

    def __init__(self, tools: Iterable[Tool], index: str | ToolIndex = "hybrid", *, label: str = "catalogue"):
        self.tools = list(tools)
        names = [t.name for t in self.tools]
        if len(set(names)) != len(names):
            raise ValueError("two tools of the catalogue have the same name")
        self.index = new_index(index) if isinstance(index, str) else index
        self._indexed = False  # tools go into the index at the first ranking: a catalogue never ranked costs nothing
        self.label = label

    async def list_tools(self, step: StepContext) -> Sequence[Tool]:
        return self.tools

    async def rank(self, request: str, tools: Sequence[Tool], k: int) -> Sequence[Tool]:
        """The `k` of `tools` that fit `request` best, best first (embedding a query is worth a thread)."""
        wanted = {t.name: t for t in tools}
        depth = k + len(self.tools) - len(wanted)  # enough hits to find k among `tools`
        hits = await asyncio.to_thread(self._search, request, depth)
        return [wanted[h.name] for h in hits if h.name in wanted][:k]

    def _search(self, request: str, depth: int) -> list[Hit]:
        if not self._indexed:
            self.index.add(t.spec for t in self.tools)
            self._indexed = True
        return self.index.search([request], depth)[0]


def best_fits(request: str, specs: Sequence[ToolSpec], k: int, index: str = "hybrid") -> list[ToolSpec]:
    """The `k` of `specs` that fit `request` best, in their own order: what a `Catalogue` of them shows."""
    fresh = new_index(index)
    fresh.add(specs)
    keep = {h.name for h in fresh.search([request], k)[0]}
    return [s for s in specs if s.name in keep]
