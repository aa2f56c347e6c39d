"""Training the dense retriever: the InfoNCE loss, mined negatives that are never the right tool, ANCE mining again as
it learns, and a fine-tuned MiniLM that finds the garden's tools better than off the shelf."""

from __future__ import annotations

import asyncio
import random

import pytest

from toollab.lab import EXPERIMENTS, Settings, SimulatedModel, garden
from toollab.retrieval import training as rt
from toollab.retrieval.dense import load_encoder
from toollab.retrieval.index import BM25Index, DenseIndex


def test_info_nce_is_the_cross_entropy_of_each_request_over_the_batchs_tools():
    import math

    import torch

    queries = torch.nn.functional.normalize(torch.tensor([[1.0, 0.0], [0.6, 0.8]]), dim=-1)
    documents = torch.nn.functional.normalize(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), dim=-1)
    positives = torch.tensor([0, 1])
    t = 0.1

    def by_hand(q, own):
        logits = [float(q @ d) / t for d in documents]
        return -logits[own] + math.log(sum(math.exp(x) for x in logits))

    expected = (by_hand(queries[0], 0) + by_hand(queries[1], 1)) / 2
    assert float(rt.info_nce(queries, documents, positives, t)) == pytest.approx(expected, rel=1e-5)


def test_mined_negatives_are_wrong_tools_and_make_up_the_number():
    tools = garden.catalogue()
    names = [t.name for t in tools]
    pairs = [rt.Pair(r.text, r.tool) for r in garden.training_set(40, seed=3)]
    pairs.append(rt.Pair("zzz qqq", "water_herbs"))  # BM25 ranks nothing for words no tool has
    mined = rt.mine(BM25Index(tools), names, pairs, 3, random.Random(0))
    for pair, negatives in zip(pairs, mined, strict=True):
        assert len(negatives) == 3 == len(set(negatives)) and pair.tool not in negatives
        assert set(negatives) <= set(names)
    water = mined[0] if pairs[0].tool.startswith("water") else None
    if water is not None:  # BM25's hardest negatives share the request's words
        assert any(n.startswith("water") or n.endswith(pairs[0].tool.split("_", 1)[1]) for n in water)


def test_bad_settings_and_unknown_tools_are_refused():
    with pytest.raises(ValueError, match="unknown negatives"):
        rt.RetrieverTraining(negatives="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid training settings"):
        rt.RetrieverTraining(temperature=0)
    with pytest.raises(ValueError, match="not in the catalogue"):
        rt.train_retriever([rt.Pair("water my roses", "water_cacti")], garden.catalogue())


def test_ance_mines_its_own_index_again_every_refresh_steps(monkeypatch):
    minings = []
    real = rt._ance

    def counted(*args):
        minings.append(1)
        return real(*args)

    monkeypatch.setattr(rt, "_ance", counted)
    pairs = [rt.Pair(r.text, r.tool) for r in garden.training_set(48, seed=4)]
    steps = []
    rt.train_retriever(
        pairs,
        garden.catalogue(),
        rt.RetrieverTraining(negatives="ance", batch_size=8, refresh=2),
        on_progress=lambda step, total, loss: steps.append(step),
    )
    assert steps == [1, 2, 3, 4, 5, 6]  # 48 requests in batches of 8
    assert len(minings) == 3  # before steps 1, 3 and 5


@pytest.mark.slow
def test_a_fine_tuned_retriever_finds_unseen_plants_better_saves_and_repeats(tmp_path):
    tools = garden.catalogue()
    asked = garden.unseen_nouns(100, seed=1)

    def recall(encoder) -> float:
        found = DenseIndex(tools, encoder=encoder).search([r.text for r in asked], k=1)
        return sum(hits[0].name == r.tool for r, hits in zip(asked, found, strict=True)) / len(asked)

    pairs = [rt.Pair(r.text, r.tool) for r in garden.training_set(192, seed=0)]
    settings = rt.RetrieverTraining(negatives="bm25", seed=5)
    trained = rt.train_retriever(pairs, tools, settings, out=tmp_path / "enc")
    assert recall(trained) > recall(rt.base_encoder()) + 0.05
    again = rt.train_retriever(pairs[:32], tools, settings)
    once_more = rt.train_retriever(pairs[:32], tools, settings)
    texts = ["Please water my daisy.", "How much are onions?"]
    assert (again.encode(texts) == once_more.encode(texts)).all()  # the seed fixes the run
    assert (load_encoder(tmp_path / "enc").encode(texts) == trained.encode(texts)).all()


def test_the_retriever_experiment_writes_its_table_plot_and_encoders(tmp_path):
    report = asyncio.run(EXPERIMENTS["retriever"](Settings(SimulatedModel(), n=8, seed=0, out=tmp_path)))
    conditions = ["off the shelf", *(f"fine-tuned, {n}" for n in rt.NEGATIVES)]
    assert {f"recall@1 {c}, {s}" for c in conditions for s in ("unseen nouns", "unseen wording")} == set(
        report.headline
    )
    assert (tmp_path / "recall.png").is_file() and (tmp_path / "summary.json").is_file()
    assert all((tmp_path / f"encoder-{n}" / "config.json").is_file() for n in rt.NEGATIVES)
