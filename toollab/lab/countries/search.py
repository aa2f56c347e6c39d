"""A small generated document collection about the countries, searched with BM25 (bm25s).

Each country has three short articles (geography, economy, politics) that also name another country, so a
search by country name returns several countries' articles; a capital is named only in its own country's
geography article. No article gives a language: that takes the `lookup` tool.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from toollab.lab.countries.data import COUNTRIES, Country


@dataclass(frozen=True, slots=True)
class Document:
    title: str
    text: str


def _articles(c: Country, neighbour: Country) -> list[Document]:
    return [
        Document(
            f"{c.name}: geography",
            f"The capital and largest administrative centre of {c.name} is {c.capital}. "
            f"Travellers often arrive from {neighbour.name}.",
        ),
        Document(
            f"{c.name}: economy",
            f"The main export of {c.name} is {c.export}. Much of its trade goes through ports serving "
            f"{neighbour.name}, whose own main export is {neighbour.export}.",
        ),
        Document(
            f"{c.name}: politics",
            f"{c.name} is led by {c.leader}, who met the leader of {neighbour.name} last year to discuss trade.",
        ),
    ]


def documents() -> list[Document]:
    out: list[Document] = []
    for i, c in enumerate(COUNTRIES):
        out += _articles(c, COUNTRIES[(i + 7) % len(COUNTRIES)])
    return out


def _bm25s() -> Any:
    try:
        import bm25s
    except ImportError:
        raise ImportError("the lab's search tool needs bm25s: pip install 'toollab[lab]'") from None
    return bm25s


class SearchIndex:
    """BM25 over the documents; `search` returns the best `k` as text a model can read."""

    def __init__(self, docs: list[Document] | None = None):
        self.docs = docs if docs is not None else documents()
        self._bm25s = _bm25s()
        self._bm25 = self._bm25s.BM25()
        corpus = [f"{d.title}. {d.text}" for d in self.docs]
        self._bm25.index(self._bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)

    def top(self, query: str, k: int = 3) -> list[Document]:
        tokens = self._bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:  # only stopwords or punctuation: nothing to rank by
            return []
        k = min(k, len(self.docs))
        ids, scores = self._bm25.retrieve(tokens, k=k, show_progress=False)
        return [self.docs[int(i)] for i, s in zip(ids[0], scores[0], strict=True) if s > 0]

    def search(self, query: str, k: int = 3) -> str:
        hits = self.top(query, k)
        if not hits:
            return f"No documents match {query!r}."
        return "\n".join(f"[{n}] {d.title}: {d.text}" for n, d in enumerate(hits, 1))


@functools.cache
def default_index() -> SearchIndex:
    """Built once a process (about 20 ms)."""
    return SearchIndex()
