"""Training the dense retriever on the garden services: MiniLM off the shelf against MiniLM fine-tuned
contrastively (InfoNCE) with in-batch negatives, with BM25 hard negatives, and with ANCE negatives mined from its
own index. Needs no model: `--model` is ignored; `--n` is the number of requests per held-out set, and the
training set has 7.5 times as many (3,000, the seed's size, at `--n 400`)."""

from __future__ import annotations

import time

from toollab.eval.stats import Proportion
from toollab.lab import garden
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, save, table
from toollab.lab.experiments.retrieval import SETS, scores
from toollab.retrieval.index import DenseIndex
from toollab.retrieval.training import NEGATIVES, Negatives, Pair, RetrieverTraining, base_encoder, train_retriever

TRAINING_PER_HELD_OUT = 7.5


async def run(s: Settings) -> Report:
    tools = garden.catalogue()
    held = {SETS[0]: garden.unseen_nouns(s.n, s.seed + 1), SETS[1]: garden.unseen_wording(s.n, s.seed + 2)}
    pairs = [Pair(r.text, r.tool) for r in garden.training_set(int(TRAINING_PER_HELD_OUT * s.n), s.seed)]
    report = Report("retriever", "no model (retrievers)")
    rows: list[list[str]] = []
    groups: dict[str, dict[str, Proportion]] = {name: {} for name in SETS}
    conditions: list[tuple[str, Negatives | None]] = [("off the shelf", None)]
    conditions += [(f"fine-tuned, {negatives}", negatives) for negatives in NEGATIVES]
    for done, (condition, negatives) in enumerate(conditions):
        started = time.perf_counter()
        if negatives is None:
            encoder = base_encoder()
        else:
            # kept for use: `toollab.retrieval.dense.load_encoder(folder)` reads it back
            folder = s.out / f"encoder-{negatives}" if s.out else None
            encoder = train_retriever(pairs, tools, RetrieverTraining(negatives, seed=s.seed), out=folder)
        seconds = time.perf_counter() - started
        index = DenseIndex(tools, encoder=encoder)
        for which, asked in held.items():
            at1, at5, mrr = scores(index, asked)
            rows.append([condition, which, cell(at1), cell(at5), f"{mrr:.3f}", f"{seconds:.0f}"])
            groups[which][condition] = at1
            report.headline[f"recall@1 {condition}, {which}"] = at1.value
        if s.on_progress is not None:
            s.on_progress(done + 1, len(conditions))
    report.tables.append(
        table(
            f"Dense retrieval among {len(tools)} tools after training on {len(pairs)} requests (95% Wilson), "
            f"{s.n} requests a held-out set",
            ["MiniLM", "held out", "recall@1", "recall@5", "MRR", "training s"],
            rows,
        )
    )
    d = RetrieverTraining()
    report.notes.append(
        f"InfoNCE at temperature {d.temperature}, one epoch, batches of {d.batch_size} (each tool text once), "
        f"{d.hard} mined negative a request, ANCE mined again every {d.refresh} steps; seed {s.seed}."
    )
    if s.out is not None:
        report.files.append(bar_plot(s.out / "recall.png", "Recall@1 of MiniLM, by training", groups))
    save(report, s)
    return report
