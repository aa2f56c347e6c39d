"""Fine-tuning the dense retriever on (request, right tool) pairs: contrastive, InfoNCE, three kinds of negatives.

The loss is InfoNCE: cross-entropy over the cosine of a request with its tool's text against the other tool texts
of the batch, divided by a temperature. What the negatives are is the choice this module makes:

- `in-batch`: the tools of the other requests in the batch only;
- `bm25`: besides those, for each request the tools BM25 ranks highest that are not its own (hard negatives
  that share words with it, mined once);
- `ance`: besides those, the wrong tools the retriever being trained ranks highest, mined from its own index
  and mined again every `refresh` steps as it learns (ANCE, Xiong et al. 2021).

Each tool text of a batch is encoded once and every request is scored against all of them, its own tool the only
positive. sentence-transformers' `MultipleNegativesRankingLoss` takes one positive column per row instead, so two
requests for the same tool in a batch would push each other's tool away; with a catalogue of a few dozen tools
that happens in most batches, and avoiding it (no tool twice in a batch) left the end of each epoch in batches of
one or two rows (over 425 batches for 3,000 garden requests at 16 a batch, instead of 188).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from toollab.retrieval.index import BM25Index, DenseIndex, ToolIndex
from toollab.retrieval.relevance import tool_text
from toollab.tools import ToolSpec

Negatives = Literal["in-batch", "bm25", "ance"]
NEGATIVES: tuple[Negatives, ...] = ("in-batch", "bm25", "ance")


@dataclass(frozen=True)
class RetrieverTraining:
    """How to train. `hard`: mined negatives per request (`bm25`, `ance`); `refresh`: steps between two ANCE
    minings; `temperature`: InfoNCE's (cosines are divided by it)."""

    negatives: Negatives = "in-batch"
    temperature: float = 0.05
    epochs: int = 1
    batch_size: int = 16
    hard: int = 1
    refresh: int = 50
    learning_rate: float = 2e-5
    warmup: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        if self.negatives not in NEGATIVES:
            raise ValueError(f"unknown negatives {self.negatives!r}; known: {', '.join(NEGATIVES)}")
        if self.temperature <= 0 or self.batch_size < 2 or self.epochs < 1 or self.hard < 0 or self.refresh < 1:
            raise ValueError(f"invalid training settings: {self}")


@dataclass(frozen=True)
class Pair:
    request: str
    tool: str  # the right tool's name


def base_encoder() -> Any:
    """A fresh, trainable copy of all-MiniLM-L6-v2 (not the shared one the call gate uses)."""
    from toollab.retrieval.dense import load_encoder, model_folder

    return load_encoder(model_folder())


def mine(
    index: ToolIndex, names: Sequence[str], pairs: Sequence[Pair], hard: int, rng: random.Random
) -> list[list[str]]:
    """For each pair, the `hard` tools of `names` that `index` ranks highest that are not the pair's own; where the
    index finds fewer (BM25 ranks no tool that shares no word), random wrong tools make up the number."""
    found = index.search([p.request for p in pairs], k=hard + 1)
    out = []
    for p, hits in zip(pairs, found, strict=True):
        chosen = [h.name for h in hits if h.name != p.tool][:hard]
        others = [n for n in names if n != p.tool and n not in chosen]
        out.append(chosen + rng.sample(others, min(hard - len(chosen), len(others))))
    return out


def info_nce(queries: Any, documents: Any, positives: Any, temperature: float) -> Any:
    """InfoNCE for a batch: row i of `queries` against every row of `documents` (both L2-normalised embeddings),
    `positives[i]` the index of its own document."""
    import torch

    return torch.nn.functional.cross_entropy(queries @ documents.T / temperature, positives)


def train_retriever(
    pairs: Sequence[Pair],
    tools: Sequence[ToolSpec],
    training: RetrieverTraining = RetrieverTraining(),
    *,
    encoder: Any = None,
    out: Path | None = None,
    on_progress: Callable[[int, int, float], None] | None = None,
) -> Any:
    """Fine-tune `encoder` (default: a fresh MiniLM) so that each request lands nearest its tool's text; returns it,
    saved to `out` when given. `on_progress(step, steps, loss)` after each step."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    by_name = {t.name: t for t in tools}
    unknown = {p.tool for p in pairs} - set(by_name)
    if unknown:
        raise ValueError(f"pairs name tools not in the catalogue: {sorted(unknown)[:5]}")
    torch.manual_seed(training.seed)
    rng = random.Random(training.seed)
    model = encoder if encoder is not None else base_encoder()
    texts = {name: tool_text(t) for name, t in by_name.items()}
    hard = training.hard if training.negatives != "in-batch" else 0
    negatives: list[list[str]] = [[] for _ in pairs]
    if training.negatives == "bm25":
        negatives = mine(BM25Index(tools), list(by_name), pairs, hard, rng)

    steps = -(-len(pairs) // training.batch_size) * training.epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=training.learning_rate)
    schedule = get_linear_schedule_with_warmup(optimizer, int(training.warmup * steps), steps)
    model.train()
    step = 0
    for _ in range(training.epochs):
        order = list(range(len(pairs)))
        rng.shuffle(order)
        for start in range(0, len(order), training.batch_size):
            if training.negatives == "ance" and step % training.refresh == 0:
                negatives = _ance(model, tools, pairs, hard, rng)  # from the index the retriever has now
            batch = order[start : start + training.batch_size]
            names = list(dict.fromkeys(n for i in batch for n in (pairs[i].tool, *negatives[i])))
            queries = _embed(model, [pairs[i].request for i in batch])
            documents = _embed(model, [texts[n] for n in names])
            positives = torch.tensor([names.index(pairs[i].tool) for i in batch])
            loss = info_nce(queries, documents, positives, training.temperature)
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            if on_progress is not None:
                on_progress(step, steps, loss.item())
    model.eval()
    if out is not None:
        model.save(str(out))
    return model


def _embed(model: Any, texts: list[str]) -> Any:
    import torch

    embedded = model(model.preprocess(texts))["sentence_embedding"]
    return torch.nn.functional.normalize(embedded, dim=-1)


def _ance(
    model: Any, tools: Sequence[ToolSpec], pairs: Sequence[Pair], hard: int, rng: random.Random
) -> list[list[str]]:
    import torch

    model.eval()
    with torch.inference_mode():
        found = mine(DenseIndex(tools, encoder=model), [t.name for t in tools], pairs, hard, rng)
    model.train()
    return found
