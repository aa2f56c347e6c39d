"""Toolsets: an agent's tools listed again each round, a catalogue shown `tools_per_turn` at a time (its best for
the request, plus what the run already called), the log naming what each round showed, and toolsets that fail."""

from __future__ import annotations

import json

import pytest

from toollab import Agent, FunctionModel, ScriptedModel, call, tool
from toollab.harness.messages import AssistantMessage
from toollab.harness.result import RunStatus
from toollab.harness.toolsets import RankedToolset, Toolset
from toollab.retrieval import Catalogue


def _service(name: str, description: str):
    def fn(query: str) -> str:
        return f"{name}: {query}"

    return tool(fn, name=name, description=description)


SERVICES = [
    _service("weather", "Current weather and temperature for a city."),
    _service("convert_currency", "Convert an amount of money from one currency to another."),
    _service("translate", "Translate a text into another language."),
    _service("stock_price", "The latest stock price of a company, by ticker."),
    _service("word_count", "Count the words in a text."),
]


class Growing:
    """A toolset whose listing grows by one tool each time it is listed (as a live service's might)."""

    label = "growing service"

    def __init__(self) -> None:
        self.listed = 0

    async def list_tools(self, step):
        self.listed += 1
        return SERVICES[: self.listed]


class Flaky:
    """Lists once, then fails."""

    def __init__(self, fail_first: bool = False) -> None:
        self.calls = 0
        self.fail_first = fail_first

    async def list_tools(self, step):
        self.calls += 1
        if self.fail_first or self.calls > 1:
            raise ConnectionError("service unreachable")
        return SERVICES[:2]


def _recording(turns):
    seen: list[list[str]] = []

    def model(messages, tools):
        seen.append([t.name for t in tools])
        return turns.pop(0)

    return FunctionModel(model), seen


def test_the_protocols_recognise_toolsets_and_not_tools():
    assert isinstance(Catalogue(SERVICES), RankedToolset) and isinstance(Growing(), Toolset)
    assert not isinstance(Growing(), RankedToolset) and not isinstance(SERVICES[0], Toolset)
    with pytest.raises(TypeError, match="Tools or toolsets"):
        Agent(ScriptedModel(["x"]), ["weather"])  # type: ignore[list-item]


def test_a_toolset_is_listed_again_each_round_and_the_log_says_what_each_round_showed(tmp_path):
    model, seen = _recording(
        [
            AssistantMessage(tool_calls=[call("weather", query="Oslo")]),
            AssistantMessage(tool_calls=[call("convert_currency", query="5 EUR")]),
            AssistantMessage(content="done"),
        ]
    )
    local = _service("wiki", "Look a topic up in the encyclopedia.")
    log = tmp_path / "run.jsonl"
    result = Agent(model, [local, Growing()]).run_sync("Weather, then money.", log=log)
    assert result.status == RunStatus.COMPLETED and result.answer == "done"
    assert seen == [
        ["wiki", "weather", "finish"],
        ["wiki", "weather", "convert_currency", "finish"],
        ["wiki", "weather", "convert_currency", "translate", "finish"],
    ]
    assert [r.content for r in result.tool_results] == ["weather: Oslo", "convert_currency: 5 EUR"]
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["shown"] for e in logged if e["event"] == "model_request"] == seen


def test_a_tool_the_toolset_does_not_list_this_round_is_an_unknown_tool():
    turns = [AssistantMessage(tool_calls=[call("translate", query="hej")]), AssistantMessage(content="ok")]
    result = Agent(ScriptedModel(turns), Growing()).run_sync("Translate hej.")
    refused = result.tool_results[0]
    assert refused.error_kind == "unknown_tool"
    assert refused.content == 'Unknown tool "translate". Valid tools: weather, finish.'


def test_a_catalogue_shows_its_k_best_for_the_request_and_keeps_what_was_used():
    model, seen = _recording(
        [
            AssistantMessage(tool_calls=[call("stock_price", query="ACME")]),
            AssistantMessage(tool_calls=[call("weather", query="Oslo")]),  # not among the 1 best: refused
            AssistantMessage(content="42 dollars"),
        ]
    )
    catalogue = Catalogue(SERVICES)
    result = Agent(model, catalogue, tools_per_turn=1).run_sync("What is the stock price of ACME?")
    assert seen == [["stock_price", "finish"]] * 3
    assert result.tool_results[0].content == "stock_price: ACME"
    assert result.tool_results[1].error_kind == "unknown_tool"
    model, seen = _recording(
        [
            AssistantMessage(tool_calls=[call("word_count", query="a b")]),
            AssistantMessage(tool_calls=[call("translate", query="a b")]),
            AssistantMessage(content="done"),
        ]
    )
    Agent(model, catalogue, tools_per_turn=2).run_sync("Count the words in 'a b', then translate the text into French.")
    assert seen[0] == ["translate", "word_count", "finish"]  # the two best, in the catalogue's order
    assert all(s == seen[0] for s in seen)


def test_a_request_no_tool_fits_by_bm25_shows_none_of_the_catalogue_but_the_fixed_tools_stay():
    model, seen = _recording([AssistantMessage(content="Hello!")])
    local = _service("wiki", "Look a topic up in the encyclopedia.")
    Agent(model, [local, Catalogue(SERVICES, "bm25")], tools_per_turn=2).run_sync("Hi there")
    assert seen == [["wiki", "finish"]]


def test_tools_per_turn_needs_a_ranking_toolset_and_code_actions_a_fixed_list():
    with pytest.raises(ValueError, match="Catalogue"):
        Agent(ScriptedModel(["x"]), SERVICES, tools_per_turn=2)
    with pytest.raises(ValueError, match="at least 1"):
        Agent(ScriptedModel(["x"]), Catalogue(SERVICES), tools_per_turn=0)
    with pytest.raises(ValueError, match="same name"):
        Catalogue([SERVICES[0], SERVICES[0]])
    with pytest.raises(ValueError, match="fixed list"):
        Agent(ScriptedModel(["x"]), Growing(), code_actions=object())  # type: ignore[arg-type]


def test_a_toolset_that_fails_keeps_its_last_listing_and_one_that_never_listed_ends_the_run(tmp_path):
    model, seen = _recording(
        [
            AssistantMessage(tool_calls=[call("weather", query="Oslo")]),
            AssistantMessage(tool_calls=[call("convert_currency", query="5 EUR")]),
            AssistantMessage(content="done"),
        ]
    )
    log = tmp_path / "run.jsonl"
    result = Agent(model, Flaky()).run_sync("Go.", log=log)
    assert result.status == RunStatus.COMPLETED and seen == [["weather", "convert_currency", "finish"]] * 3
    requests = [json.loads(line) for line in log.read_text().splitlines() if '"model_request"' in line]
    assert "unlisted" not in requests[0]
    assert requests[1]["unlisted"] == ["Flaky: ConnectionError: service unreachable"]

    failed = Agent(ScriptedModel(["never asked"]), [Flaky(fail_first=True)]).run_sync("Go.")
    assert failed.status == RunStatus.MODEL_ERROR
    assert failed.error == (
        "choosing the tools failed: RuntimeError: cannot list the tools of Flaky: service unreachable"
    )
    assert failed.messages[-1].content == "Go."  # the history is kept


def test_two_toolsets_offering_the_same_name_end_the_run_with_a_clear_error():
    failed = Agent(ScriptedModel(["x"]), [Catalogue(SERVICES), Growing()]).run_sync("Go.")
    assert failed.status == RunStatus.MODEL_ERROR and "two tools are named 'weather'" in (failed.error or "")


def test_a_killed_run_resumes_with_the_toolsets_listed_again(tmp_path):
    def weather(query: str) -> str:
        return f"sunny in {query}"

    catalogue = Catalogue([tool(weather, description="Current weather for a city.", idempotent=True), *SERVICES[1:]])
    log = tmp_path / "run.jsonl"
    turns = [AssistantMessage(tool_calls=[call("weather", {"query": "Oslo"}, "w")]), AssistantMessage(content="sunny")]
    Agent(ScriptedModel([turns[0], "unused"]), catalogue, tools_per_turn=1).run_sync("Weather in Oslo?", log=log)
    lines = log.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"tool_call"' in line)  # killed before the call returned
    log.write_text("\n".join(lines[: cut + 1]) + "\n")
    resumed = Agent(ScriptedModel(turns[1:]), catalogue, tools_per_turn=1).resume_sync(log)
    assert resumed.status == RunStatus.COMPLETED and resumed.answer == "sunny"
    assert next(r for r in resumed.tool_results if r.call_id == "w").content == "sunny in Oslo"  # ran again
