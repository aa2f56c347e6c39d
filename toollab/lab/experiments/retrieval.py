"""Tool retrieval on the garden services: which retriever finds the right tool among 32 for requests with plants
(unseen nouns) or a wording (unseen wording) it never saw, and what descriptions expanded with synonyms buy. The
retrievers need no model: `--model` is ignored, `--n` is the number of requests per held-out set."""

from __future__ import annotations

from collections.abc import Sequence

from toollab.eval.stats import Proportion
from toollab.lab import garden
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, save, table
from toollab.retrieval.index import BM25Index, DenseIndex, HybridIndex, ToolIndex

SETS = ("unseen nouns", "unseen wording")


def _indexes(synonyms: bool, dense_encoder: object = None) -> dict[str, ToolIndex]:
    tools = garden.catalogue(synonyms)
    bm25, dense = BM25Index(tools), DenseIndex(tools, encoder=dense_encoder)
    return {"BM25": bm25, "dense (MiniLM)": dense, "hybrid (RRF)": HybridIndex([bm25, dense])}


def scores(index: ToolIndex, asked: Sequence[garden.Request]) -> tuple[Proportion, Proportion, float]:
    found = index.search([r.text for r in asked], k=5)
    ranks = [
        next((i for i, h in enumerate(hits, 1) if h.name == r.tool), None) for r, hits in zip(asked, found, strict=True)
    ]
    at1 = Proportion(sum(rank == 1 for rank in ranks), len(asked))
    at5 = Proportion(sum(rank is not None for rank in ranks), len(asked))
    mrr = sum(1 / rank for rank in ranks if rank) / len(asked)
    return at1, at5, mrr


async def run(s: Settings) -> Report:
    held = {SETS[0]: garden.unseen_nouns(s.n, s.seed + 1), SETS[1]: garden.unseen_wording(s.n, s.seed + 2)}
    report = Report("retrieval", "no model (retrievers)")
    rows: list[list[str]] = []
    groups: dict[str, dict[str, Proportion]] = {name: {} for name in SETS}
    encoder = None
    for synonyms in (False, True):
        indexes = _indexes(synonyms, encoder)
        encoder = indexes["dense (MiniLM)"].encoder  # type: ignore[attr-defined]  # loaded once
        for label, index in indexes.items():
            name = f"{label}{', synonyms' if synonyms else ''}"
            for which, asked in held.items():
                at1, at5, mrr = scores(index, asked)
                rows.append([name, which, cell(at1), cell(at5), f"{mrr:.3f}"])
                groups[which][name] = at1
                report.headline[f"recall@1 {name}, {which}"] = at1.value
        if s.on_progress is not None:
            s.on_progress(1 + synonyms, 2)
    report.tables.append(
        table(
            f"The right tool among {len(garden.catalogue())} (95% Wilson), {s.n} requests a set",
            ["retriever", "held out", "recall@1", "recall@5", "MRR"],
            rows,
        )
    )
    if s.out is not None:
        report.files.append(bar_plot(s.out / "recall.png", "Recall@1 on the garden services", groups))
    save(report, s)
    return report
