"""Random and malformed calls thrown at the dispatcher and the loop: nothing escapes, every id gets one result."""

from __future__ import annotations

import asyncio

from conftest import assert_history_consistent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import model_calls, text

from toollab import Agent, AssistantMessage, Dispatcher, FunctionModel, RunStatus, ToolResultMessage, add, tool
from toollab.harness import errors


@tool
async def get_weather(city: str, unit: str = "celsius") -> str:
    """Weather."""
    return f"{city}: 20 {unit}"


@tool
def boom(a: int = 0) -> str:
    """Always raises."""
    raise RuntimeError(f"boom {a}")


@tool(timeout=0.01)
async def slow() -> str:
    """Times out."""
    await asyncio.sleep(1)
    return "late"


@tool(exclusive=True)
async def nap() -> str:
    """Runs alone."""
    await asyncio.sleep(0)
    return "rested"


TOOLS = [add, get_weather, boom, slow, nap]
ERROR_KINDS = {
    errors.UNKNOWN_TOOL,
    errors.INVALID_JSON,
    errors.PARSE_ERROR,
    errors.INVALID_ARGUMENTS,
    errors.TOOL_ERROR,
    errors.TIMEOUT,
    errors.DENIED,
    errors.BUDGET,
    errors.TOOLS_DISABLED,
}


def check_results(calls, results):
    assert len(results) == len(calls)
    for c, r in zip(calls, results, strict=True):
        assert isinstance(r, ToolResultMessage) and r.call_id == c.id
        assert isinstance(r.content, str) and r.content
        assert r.is_error == (r.error_kind is not None)
        assert r.error_kind is None or r.error_kind in ERROR_KINDS


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(model_calls, max_size=8))
def test_dispatcher_never_raises_and_answers_every_call(calls):
    calls = [c.model_copy(update={"id": f"id{i}"}) for i, c in enumerate(calls)]
    results = asyncio.run(Dispatcher(TOOLS, max_concurrency=3).dispatch_all(calls))
    check_results(calls, results)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_agent_loop_keeps_the_history_valid_whatever_the_model_sends(data):
    turns = data.draw(st.lists(st.lists(model_calls, max_size=5), min_size=1, max_size=6))
    final_text = data.draw(st.none() | text)

    def model(messages, tools):
        assert_history_consistent(messages)
        if turns:
            return AssistantMessage(content=data.draw(st.none() | text), tool_calls=turns.pop(0))
        return AssistantMessage(content=final_text)

    limits = data.draw(
        st.fixed_dictionaries({"max_steps": st.integers(0, 6), "max_tool_calls": st.none() | st.integers(0, 10)})
    )
    result = Agent(FunctionModel(model), TOOLS, **limits).run_sync("go")
    assert result.status in set(RunStatus) - {RunStatus.CANCELLED, RunStatus.MODEL_ERROR}
    assert_history_consistent(result.messages)
    for m in result.messages:
        if isinstance(m, AssistantMessage):
            check_results(m.tool_calls, [r for r in result.tool_results if r.call_id in {c.id for c in m.tool_calls}])
