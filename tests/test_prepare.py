"""The per-step hook: what the model sees each round is what `prepare` chose plus the tools already used, the
log says so, and a call of a tool not shown that round is refused like an unknown tool."""

from __future__ import annotations

import json

from toollab import Agent, FunctionModel, call, tool
from toollab.harness.messages import AssistantMessage
from toollab.harness.prepare import StepContext
from toollab.harness.result import RunStatus


def _tools():
    made = []
    for name in ("weather", "convert", "translate", "stock_price", "wiki"):

        def fn(query: str) -> str:
            return f"ok: {query}"

        made.append(tool(fn, name=name, description=f"The {name.replace('_', ' ')} service."))
    return made


def test_each_round_shows_what_prepare_chose_and_what_was_already_used(tmp_path):
    steps: list[StepContext] = []

    def prepare(step, tools):
        steps.append(step)
        wanted = "weather" if step.round == 0 else "convert"
        return [t for t in tools if t.name == wanted]

    seen: list[list[str]] = []
    turns = [
        AssistantMessage(tool_calls=[call("weather", query="Oslo")]),
        AssistantMessage(tool_calls=[call("convert", query="12 C to F")]),
        AssistantMessage(content="53.6 F"),
    ]

    def model(messages, tools):
        seen.append([t.name for t in tools])
        return turns.pop(0)

    log = tmp_path / "run.jsonl"
    result = Agent(FunctionModel(model), _tools(), prepare=prepare).run_sync("Weather in Oslo, in F?", log=log)
    assert result.status == RunStatus.COMPLETED and result.answer == "53.6 F"
    assert seen == [["weather", "finish"], ["weather", "convert", "finish"], ["weather", "convert", "finish"]]
    assert [s.round for s in steps] == [0, 1, 2] and steps[0].request == "Weather in Oslo, in F?"
    assert steps[1].used == frozenset({"weather"})
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["shown"] for e in logged if e["event"] == "model_request"] == seen


def test_a_call_of_a_tool_not_shown_is_refused_and_names_what_was(tmp_path):
    turns = [AssistantMessage(tool_calls=[call("wiki", query="x")]), AssistantMessage(content="done")]
    result = Agent(FunctionModel(lambda m, t: turns.pop(0)), _tools(), prepare=lambda step, tools: tools[:2]).run_sync(
        "Look it up."
    )
    refused = result.tool_results[0]
    assert refused.is_error and refused.error_kind == "unknown_tool"
    assert refused.content == 'Unknown tool "wiki". Valid tools: weather, convert, finish.'


async def _async_prepare(step, tools):
    return [t for t in tools if t.name == "translate"]


def test_an_async_hook_and_a_failing_hook():
    seen = []

    def model(messages, tools):
        seen.append([t.name for t in tools])
        return AssistantMessage(content="fine")

    Agent(FunctionModel(model), _tools(), prepare=_async_prepare).run_sync("Translate it.")
    assert seen == [["translate", "finish"]]

    def broken(step, tools):
        raise RuntimeError("index offline")

    failed = Agent(FunctionModel(model), _tools(), prepare=broken).run_sync("Translate it.")
    assert failed.status == RunStatus.MODEL_ERROR and "index offline" in (failed.error or "")
    assert failed.messages[-1].content == "Translate it."  # the history is kept


def test_without_a_hook_nothing_changes_in_the_log(tmp_path):
    log = tmp_path / "run.jsonl"
    Agent(FunctionModel(lambda m, t: AssistantMessage(content="hi")), _tools()).run_sync("Hi.", log=log)
    assert all("shown" not in json.loads(line) for line in log.read_text().splitlines())
