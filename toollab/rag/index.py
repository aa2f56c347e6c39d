"""The index over a folder's passages: BM25 (bm25s) and MiniLM embeddings, collection and metadata filters,
neighbours and sections of a hit, and a reranker. Saved beside the documents and loaded back; rebuilding embeds
only passages whose text changed.

Reranking: no cross-encoder ships offline (FlashRank, the small one on PyPI, fetches its model from a hub at run
time), so `rerank` scores each candidate by BM25 and MiniLM together, each scaled to 0-1 over the candidates
and averaged: a second look that weighs exact words and meaning at once, where each search alone ranks by one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from toollab.rag.documents import load_folder
from toollab.rag.passages import Passage, passages
from toollab.retrieval.index import Hit as RankedHit
from toollab.retrieval.index import fuse as fuse_ranks
from toollab.retrieval.lexical import bm25_index, bm25_row

Hit = tuple[Passage, float]
Progress = Callable[[int, int], None]
INDEX_FOLDER = ".toollab-index"  # where `toollab rag index DIR` saves, inside DIR (hidden: never read as a document)


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class DocumentIndex:
    def __init__(self, items: Sequence[Passage], vectors: Mapping[str, Any] | None = None, encoder: Any = None):
        self.passages = list(items)
        self.by_id = {p.id: i for i, p in enumerate(self.passages)}
        self._encoder = encoder
        self._vectors: dict[str, Any] = dict(vectors or {})  # text hash -> embedding
        self._matrix: Any = None
        self._bm25: Any = None
        self.embedded = 0  # passages embedded by this object (what building or loading cost)

    # ---- building, saving, loading ---------------------------------------------------------------------

    @classmethod
    def build(cls, folder: str | Path, words: int = 80, on_progress: Progress | None = None,
              reuse: DocumentIndex | None = None) -> tuple[DocumentIndex, list[str]]:  # fmt: skip
        """The index of a folder's documents, and the files that could not be read. Embeddings of passages
        `reuse` already holds are not computed again."""
        documents, problems = load_folder(folder)
        index = cls(passages(documents, words), reuse._vectors if reuse is not None else None)
        index.embed(on_progress)
        return index, problems

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from toollab.retrieval.dense import encoder

            self._encoder = encoder()
        return self._encoder

    def embed(self, on_progress: Progress | None = None, batch: int = 64) -> None:
        """Embed every passage not embedded yet."""
        keys = [_key(p.searchable()) for p in self.passages]
        missing = [i for i, k in enumerate(keys) if k not in self._vectors]
        for start in range(0, len(missing), batch):
            chunk = missing[start : start + batch]
            texts = [self.passages[i].searchable() for i in chunk]
            vectors = self.encoder.encode(texts, normalize_embeddings=True, show_progress_bar=False, batch_size=batch)
            self._vectors.update(zip((keys[i] for i in chunk), vectors, strict=True))
            self.embedded += len(chunk)
            if on_progress is not None:
                on_progress(start + len(chunk), len(missing))
        self._vectors = {k: self._vectors[k] for k in keys}  # forget passages that are gone
        self._matrix = None

    def save(self, folder: str | Path) -> None:
        import numpy as np

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "passages.jsonl").open("w", encoding="utf-8") as f:
            for p in self.passages:
                f.write(json.dumps(asdict(p), ensure_ascii=False) + "\n")
        keys = list(self._vectors)
        (folder / "keys.json").write_text(json.dumps(keys), encoding="utf-8")
        np.save(folder / "embeddings.npy", np.stack([self._vectors[k] for k in keys]) if keys else np.zeros((0, 384)))

    @classmethod
    def load(cls, folder: str | Path, encoder: Any = None) -> DocumentIndex:
        import numpy as np

        folder = Path(folder)
        if not (folder / "passages.jsonl").is_file():
            raise ValueError(f"no document index in {folder} (build one with `toollab rag index`)")
        lines = (folder / "passages.jsonl").read_text(encoding="utf-8").splitlines()
        items = [Passage(**json.loads(line)) for line in lines if line.strip()]
        keys = json.loads((folder / "keys.json").read_text(encoding="utf-8"))
        return cls(items, dict(zip(keys, np.load(folder / "embeddings.npy"), strict=True)), encoder)

    # ---- what the tools ask ----------------------------------------------------------------------------

    def collections(self) -> dict[str, tuple[int, int]]:
        """Each collection's documents and passages."""
        out: dict[str, tuple[set[str], int]] = {}
        for p in self.passages:
            docs, n = out.get(p.collection, (set(), 0))
            docs.add(p.document)
            out[p.collection] = (docs, n + 1)
        return {name: (len(docs), n) for name, (docs, n) in sorted(out.items())}

    def metadata_values(self) -> dict[str, list[str]]:
        """The metadata keys that filters may use, with the values they take."""
        values: dict[str, set[str]] = {}
        for p in self.passages:
            for k, v in p.metadata.items():
                values.setdefault(k, set()).add(str(v))
        return {k: sorted(v) for k, v in sorted(values.items())}

    def allowed(self, collection: str | None, filters: Mapping[str, Any] | None) -> list[bool]:
        wanted = {k: str(v).lower() for k, v in (filters or {}).items()}
        return [
            (collection is None or p.collection == collection)
            and all(str(p.metadata.get(k, "")).lower() == v for k, v in wanted.items())
            for p in self.passages
        ]

    def _ranked(self, scores: Sequence[float], allowed: Sequence[bool], k: int, positive: bool) -> list[Hit]:
        order = sorted((i for i in range(len(scores)) if allowed[i]), key=lambda i: -scores[i])
        return [(self.passages[i], float(scores[i])) for i in order[:k] if not positive or scores[i] > 0]

    def lexical_scores(self, query: str) -> list[float]:
        if self._bm25 is None:
            self._bm25 = bm25_index([p.searchable() for p in self.passages], with_background=False)
        return bm25_row(self._bm25, query, len(self.passages))

    def dense_scores(self, text: str) -> list[float]:
        import numpy as np

        if self._matrix is None:
            self._matrix = np.stack([self._vectors[_key(p.searchable())] for p in self.passages])
        query = self.encoder.encode([text], normalize_embeddings=True, show_progress_bar=False)[0]
        return [float(x) for x in self._matrix @ query]

    def search_text(self, query: str, k: int = 5, collection: str | None = None,
                    filters: Mapping[str, Any] | None = None) -> list[Hit]:  # fmt: skip
        """BM25: passages sharing the query's words (none when no word is shared)."""
        if not self.passages:
            return []
        return self._ranked(self.lexical_scores(query), self.allowed(collection, filters), k, positive=True)

    def search_meaning(self, text: str, k: int = 5, collection: str | None = None,
                       filters: Mapping[str, Any] | None = None) -> list[Hit]:  # fmt: skip
        """MiniLM: passages closest in meaning to `text` (a question, or a hypothetical answer)."""
        if not self.passages:
            return []
        return self._ranked(self.dense_scores(text), self.allowed(collection, filters), k, positive=False)

    def search(self, query: str, k: int = 5, collection: str | None = None,
               filters: Mapping[str, Any] | None = None, depth: int = 20) -> list[Hit]:  # fmt: skip
        """Both, fused by reciprocal rank."""
        return fuse([self.search_text(query, depth, collection, filters),
                     self.search_meaning(query, depth, collection, filters)], k)  # fmt: skip

    def rerank(self, query: str, candidates: Sequence[Passage]) -> list[Hit]:
        """The candidates ordered by BM25 and MiniLM together (each scaled to 0-1 over them, then averaged)."""
        if not candidates:
            return []
        lexical, dense = self.lexical_scores(query), self.dense_scores(query)
        rows = [self.by_id[p.id] for p in candidates]

        def scaled(scores: Sequence[float]) -> list[float]:
            picked = [scores[i] for i in rows]
            low, high = min(picked), max(picked)
            return [(s - low) / (high - low) if high > low else 0.5 for s in picked]

        combined = [(a + b) / 2 for a, b in zip(scaled(lexical), scaled(dense), strict=True)]
        order = sorted(range(len(rows)), key=lambda j: -combined[j])
        return [(candidates[j], combined[j]) for j in order]

    def get(self, passage_id: str) -> Passage | None:
        i = self.by_id.get(passage_id)
        return None if i is None else self.passages[i]

    def neighbours(self, passage_id: str, n: int = 1) -> list[Passage]:
        """The passage with up to `n` passages before and after it in its document."""
        i = self.by_id[passage_id]
        document = self.passages[i].document
        span = self.passages[max(0, i - n) : i + n + 1]
        return [p for p in span if p.document == document]

    def section(self, passage_id: str) -> list[Passage]:
        """Every passage of the passage's section, in order."""
        hit = self.passages[self.by_id[passage_id]]
        return [p for p in self.passages if p.document == hit.document and p.section == hit.section]


def fuse(rankings: Sequence[Sequence[Hit]], k: int) -> list[Hit]:
    """Reciprocal rank fusion of rankings of passages (`toollab.retrieval.index.fuse`, by passage id)."""
    seen = {p.id: p for ranking in rankings for p, _ in ranking}
    named = [[RankedHit(p.id, score) for p, score in ranking] for ranking in rankings]
    return [(seen[h.name], h.score) for h in fuse_ranks(named, k)]
