"""How well a request fits the tools offered with it, by one of two signals.

`dense`: the largest cosine similarity between the request and a tool's text (MiniLM embeddings). `bm25`: the
largest BM25 score of a tool's text for the request, with word weights learned over the offered tools plus a
fixed background of tool texts (a handful of tools alone gives BM25 no sense of which words are common).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from toollab.harness.messages import without_quoted
from toollab.tools import ToolSpec

__all__ = ["SIGNALS", "TopTools", "relevance", "tool_scores", "tool_text", "without_quoted"]

SIGNALS = ("bm25", "dense")
_SPLIT = re.compile(r"[_.\-]+|(?<=[a-z])(?=[A-Z])")


def tool_text(spec: ToolSpec) -> str:
    """A tool in words: its name split into words, its description, and its parameters' names and descriptions."""
    parts = [_SPLIT.sub(" ", spec.name), spec.description]
    for name, schema in spec.parameters.get("properties", {}).items():
        parts.append(_SPLIT.sub(" ", name))
        if isinstance(schema, dict) and isinstance(schema.get("description"), str):
            parts.append(schema["description"])
    return ". ".join(p for p in parts if p)


def tool_scores(query: str, tools: Sequence[ToolSpec], signal: str) -> list[float]:
    """How well the request fits each tool."""
    if not tools:
        return []
    texts = [tool_text(t) for t in tools]
    if signal == "dense":
        from toollab.retrieval.dense import cosines

        return cosines(query, texts)
    if signal == "bm25":
        from toollab.retrieval.lexical import bm25_scores

        return bm25_scores(query, texts)
    raise ValueError(f"unknown relevance signal {signal!r}; known: {', '.join(SIGNALS)}")


def relevance(query: str, tools: Sequence[ToolSpec], signal: str) -> float:
    """The request's fit to its best-fitting tool; 0.0 when no tool is offered."""
    return max(tool_scores(query, tools, signal), default=0.0)


@dataclass(frozen=True)
class TopTools:
    """A tool selector (`CallPolicy.select`): the tools that fit the request best by `signal`, in the order they
    were offered. At most `k`, and only those scoring at least `ratio` times the best one (a request that asks for
    two things keeps two tools; one that asks for one drops the near misses)."""

    k: int
    signal: str = "dense"
    ratio: float = 0.0

    def __call__(self, request: str, tools: Sequence[ToolSpec]) -> Sequence[ToolSpec]:
        if len(tools) <= 1 or (len(tools) <= self.k and not self.ratio):
            return tools
        scores = tool_scores(request, tools, self.signal)
        best = max(scores)
        ranked = sorted(range(len(tools)), key=lambda i: -scores[i])[: self.k]
        kept = [i for i in ranked if scores[i] >= self.ratio * best] if best > 0 else ranked[:1]
        return [tools[i] for i in sorted(kept)]
