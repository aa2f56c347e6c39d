"""Tool indexes: BM25, dense (the real MiniLM, offline), hybrid by reciprocal rank fusion; batched queries; saved
and loaded back; adding embeds only what is new."""

from __future__ import annotations

import pytest

from toollab.retrieval.index import BM25Index, DenseIndex, Hit, HybridIndex, fuse
from toollab.tools import ToolSpec


def spec(name: str, description: str, **params: str) -> ToolSpec:
    properties = {p: {"type": "string", "description": d} for p, d in params.items()}
    return ToolSpec(name, description, {"type": "object", "properties": properties})


CATALOGUE = [
    spec("get_weather", "Current weather and temperature for a city.", city="The city's name."),
    spec("convert_currency", "Convert an amount of money between currencies.", amount="How much money."),
    spec("book_flight", "Reserve a seat on a flight between two airports.", origin="Airport code."),
    spec("translate_text", "Translate a text into another language.", text="What to translate."),
    spec("stock_quote", "The latest share price of a listed company.", ticker="Its ticker symbol."),
]


def names(hits):
    return [h.name for h in hits]


def test_bm25_finds_tools_by_their_words_in_one_batch():
    index = BM25Index(CATALOGUE)
    found = index.search(["weather in Lima", "share price of ACME", "zzz"], k=2)
    assert names(found[0])[0] == "get_weather" and names(found[1])[0] == "stock_quote"
    assert found[2] == []  # no word in common: nothing, not noise


@pytest.fixture(scope="module")
def dense():
    return DenseIndex(CATALOGUE)


def test_dense_finds_tools_by_meaning(dense):
    found = dense.search(["Is it raining in Oslo?", "How much is 20 dollars in euros?", "fly from JFK to LHR"], k=3)
    assert [names(f)[0] for f in found] == ["get_weather", "convert_currency", "book_flight"]
    assert all(len(f) == 3 and f[0].score >= f[1].score for f in found)


def test_a_saved_index_loads_without_embedding_again_and_adding_embeds_only_the_new(dense, tmp_path):
    dense.save(tmp_path / "index")
    loaded = DenseIndex.load(tmp_path / "index", encoder=dense.encoder)
    assert loaded.embedded == 0
    assert loaded.search(["temperature in Paris"], k=1) == dense.search(["temperature in Paris"], k=1)
    loaded.add([*CATALOGUE, spec("send_sms", "Send a text message to a phone number.", number="The number.")])
    assert loaded.embedded == 1 and names(loaded.search(["text my mother"], k=1)[0]) == ["send_sms"]
    changed = spec("get_weather", "Weather forecast for the next days in a city.", city="The city's name.")
    loaded.add([changed])
    assert loaded.embedded == 2  # a changed description is embedded again
    bm25 = BM25Index(CATALOGUE)
    bm25.save(tmp_path / "bm25")
    assert BM25Index.load(tmp_path / "bm25").search(["weather"], k=1) == bm25.search(["weather"], k=1)


def test_reciprocal_rank_fusion():
    a = [Hit("x", 9.0), Hit("y", 5.0), Hit("z", 1.0)]
    b = [Hit("y", 0.9), Hit("z", 0.8)]
    fused = fuse([a, b], k=3)
    assert names(fused) == ["y", "z", "x"]  # in both rankings beats first in one: 1/63 + 1/62 > 1/61
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)


def test_hybrid_keeps_what_either_finds(dense):
    hybrid = HybridIndex([BM25Index(CATALOGUE), dense])
    found = hybrid.search(["stock_quote ACME", "Is it raining in Oslo?"], k=2)
    assert names(found[0])[0] == "stock_quote" and names(found[1])[0] == "get_weather"
