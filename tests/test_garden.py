"""The garden services: held-out nouns and wording never reach the training set; the retrieval experiment's
retrievers rank as the seed says (dense beats BM25 on new wording; synonyms in descriptions lift both)."""

from __future__ import annotations

import asyncio

from toollab.lab import EXPERIMENTS, Settings, SimulatedModel, garden


def test_the_catalogue_and_the_splits():
    tools = garden.catalogue()
    assert len(tools) == 32 and len({t.name for t in tools}) == 32
    assert tools[0].description == "Water flowers such as rose and tulip."
    train = garden.training_set()
    assert len(train) == 3000 and {r.tool for r in train} == {t.name for t in tools}
    held_nouns = {n for nouns in garden.KINDS.values() for n in nouns[garden.HELD_OUT_NOUNS]}
    held_wordings = {a[2].split("{}")[0] for a in garden.ACTIONS.values()}
    assert not any(n in r.text for r in train for n in held_nouns)
    assert not any(r.text.startswith(w) and w for r in train for w in held_wordings)
    assert all(any(n in r.text for n in held_nouns) for r in garden.unseen_nouns(50))


def test_the_retrieval_experiment():
    report = asyncio.run(EXPERIMENTS["retrieval"](Settings(SimulatedModel(), n=120, seed=0)))
    h = report.headline
    assert h["recall@1 dense (MiniLM), unseen wording"] > h["recall@1 BM25, unseen wording"] + 0.3
    assert h["recall@1 dense (MiniLM), synonyms, unseen wording"] > h["recall@1 dense (MiniLM), unseen wording"]
    assert h["recall@1 hybrid (RRF), synonyms, unseen nouns"] > h["recall@1 hybrid (RRF), unseen nouns"]
