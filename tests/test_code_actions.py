"""Code actions: a program's tool calls are validated, approved, dispatched, logged and counted like JSON calls."""

from __future__ import annotations

import asyncio

import pytest

from toollab import Agent, ScriptedModel, call, tool
from toollab.harness.code_actions import CODE_ACTION, signature
from toollab.harness.events import ToolCalled, ToolReturned
from toollab.harness.result import RunStatus
from toollab.sandbox import Limits, SandboxedPython
from toollab.sandbox import bwrap as bwrap_module
from toollab.tools import add

pytestmark = pytest.mark.skipif(not bwrap_module.works(), reason=f"bwrap cannot run: {bwrap_module.why_not()}")


@tool
def price(country: str) -> float:
    """The price of a phone in a country, in euros.

    Args:
        country: The country's name.
    """
    return {"France": 700.0, "Japan": 540.0, "Brazil": 910.0}[country]


@tool(side_effects=True)
def buy(country: str) -> str:
    """Buy the phone in a country."""
    return f"bought in {country}"


def run_agent(turns, tools, **options):
    events = []

    async def go():
        async with SandboxedPython(Limits(cpu_seconds=2, wall_seconds=10), warm=1) as sandbox:
            agent = Agent(ScriptedModel(turns), tools, code_actions=sandbox, on_event=events.append, **options)
            return agent, await agent.run("Where is the phone cheapest?")

    agent, result = asyncio.run(go())
    return agent, result, events


def test_a_program_loops_over_tool_calls_and_its_printout_is_the_observation():
    program = (
        "prices = {c: price(country=c) for c in ['France', 'Japan', 'Brazil']}\n"
        "best = min(prices, key=prices.get)\nprint(best, prices[best])"
    )
    agent, result, events = run_agent([call(CODE_ACTION, code=program), call("finish", answer="Japan")], [price])
    assert [s.name for s in agent.tool_specs] == [CODE_ACTION, "finish"]
    assert "def price(*, country: str) -> Any:" in agent.tool_specs[0].description
    assert result.status == RunStatus.COMPLETED and result.answer == "Japan"
    outer = result.tool_results[0]
    assert outer.content == "Japan 540.0" and not outer.is_error
    inner = [e for e in events if isinstance(e, ToolCalled) and e.parent is not None]
    assert [e.call.name for e in inner] == ["price"] * 3
    assert [e.call.id for e in inner] == [f"{outer.call_id}.{n}" for n in (1, 2, 3)]
    returned = [e.result.content for e in events if isinstance(e, ToolReturned) and e.parent == outer.call_id]
    assert returned == ["700.0", "540.0", "910.0"]


def test_inner_calls_get_the_same_errors_as_json_calls_and_the_same_approvals():
    program = """
for attempt in ("price(city='Oslo')", "buy(country='Japan')", "price(country='Mars')"):
    try:
        eval(attempt)
    except RuntimeError as exc:
        print(exc)
"""
    _, result, _ = run_agent([call(CODE_ACTION, code=program), call("finish", answer="none")], [price, buy])
    out = result.tool_results[0].content
    assert "Invalid arguments for 'price':" in out and "country: missing required field" in out
    assert "Tool 'buy' was not run: it has side effects and needs approval, and no approver is set." in out
    assert "KeyError" in out  # the tool's own failure, as a JSON call would report it
    _, approved, _ = run_agent(
        [call(CODE_ACTION, code="print(buy(country='Japan'))"), call("finish", answer="done")],
        [price, buy],
        approve=lambda c, t: c.arguments == {"country": "Japan"},
    )
    assert approved.tool_results[0].content == "bought in Japan"


def test_inner_calls_count_against_the_budget():
    program = """
for i in range(5):
    try:
        print(add(a=i, b=1))
    except RuntimeError as exc:
        print(exc)
"""
    _, result, _ = run_agent([call(CODE_ACTION, code=program), "done"], [add], max_tool_calls=3)
    lines = result.tool_results[0].content.splitlines()
    assert lines[:3] == ["1.0", "2.0", "3.0"]
    assert all("budget of 3 tool calls is used up" in line for line in lines[3:]) and len(lines) == 5
    assert result.status == RunStatus.MAX_TOOL_CALLS  # the harness then asks for the answer without tools


def test_a_failing_program_is_an_error_result_that_says_what_went_wrong():
    turns = [call(CODE_ACTION, code=c) for c in ("print('before'); 1/0", "while True: pass", "x = add(a=1, b=2)")]
    _, result, _ = run_agent([*turns, "gave up"], [add])
    first, second, third = result.tool_results
    assert first.is_error and "before" in first.content and "ZeroDivisionError" in first.content
    assert second.is_error and "cpu time limit" in second.content
    assert third.is_error and "print what you want to see" in third.content  # nothing printed, nothing learned
    assert result.answer == "gave up"


def test_signatures_show_types_defaults_and_descriptions():
    assert signature(price.spec).startswith('def price(*, country: str) -> Any:\n    """The price of a phone')
    assert "country: The country's name." in signature(price.spec)


def test_a_run_killed_inside_a_code_action_resumes_with_its_inner_calls_counted(tmp_path):
    log = tmp_path / "run.jsonl"
    program = "print(add(a=1, b=2), add(a=3, b=4))"

    async def go(turns, resume: bool):
        async with SandboxedPython(Limits(cpu_seconds=2, wall_seconds=10), warm=0) as sandbox:
            agent = Agent(ScriptedModel(turns), [add], code_actions=sandbox, max_tool_calls=2)
            return await (agent.resume(log) if resume else agent.run("Add them.", log=log))

    asyncio.run(go([call(CODE_ACTION, code=program), "3.0 and 7.0"], resume=False))
    lines = log.read_text().splitlines()
    last_inner = max(i for i, line in enumerate(lines) if '"tool_result"' in line and '"parent"' in line)
    log.write_text("\n".join(lines[: last_inner + 1]) + "\n")  # the process died before the program's end
    result = asyncio.run(go(["3.0 and 7.0"], resume=True))
    outer = result.tool_results[0]
    assert outer.is_error and outer.error_kind == "interrupted"  # a program is not run twice
    assert result.status == RunStatus.MAX_TOOL_CALLS  # the two inner calls were counted on replay
    assert result.answer == "3.0 and 7.0"
