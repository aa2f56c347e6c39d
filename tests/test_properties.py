"""Random and malformed calls thrown at the dispatcher and the loop: nothing escapes, every id gets one result."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import assert_history_consistent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import model_calls, text

from toollab import (
    Agent,
    AssistantMessage,
    Dispatcher,
    FunctionModel,
    RunStatus,
    ScriptedModel,
    ToolCall,
    ToolResultMessage,
    add,
    tool,
)
from toollab.formats import FORMATS, get_format
from toollab.harness import errors
from toollab.harness.arguments import MAX_NESTING, too_deep


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
    errors.NOT_ALONE,
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


# ---- hostile text in every wire format ---------------------------------------------------------------------------

SLOT = "HOSTILE_SLOT"


def _deep(draw_kinds: list[str]) -> str:
    opening = {"[": "[", "{": '{"k": '}
    closing = {"[": "]", "{": "}"}
    return "".join(opening[k] for k in draw_kinds) + "1" + "".join(closing[k] for k in reversed(draw_kinds))


nestings = st.builds(
    lambda kinds, n: _deep((kinds * n)[:n]),
    st.lists(st.sampled_from(["[", "{"]), min_size=1, max_size=3),
    st.integers(MAX_NESTING + 1, 6000),
)
control_text = st.text(alphabet=st.characters(categories=["Cc"]), min_size=1, max_size=50)
# lone surrogates, kept apart: JSON reads an escaped high-low pair back as the one character it encodes
surrogates = st.lists(st.characters(categories=["Cs"]), min_size=1, max_size=5).map("x".join)
huge = st.builds(
    lambda c, n: c * n, st.sampled_from(["a", "{", "[", '"', "\\", "(", "é", "\x00"]), st.integers(1, 1_000_000)
)
hostile = nestings | control_text | surrogates | huge | st.text(max_size=200)


def envelope(format_name: str) -> str:
    """A call as the format writes it, its argument value replaced by SLOT (quoted or not, as the format writes)."""
    # the code format's one call is a program: the hostile value goes into the program text
    arguments = {"code": f"print(add(a={SLOT}))"} if format_name == "code" else {"a": SLOT}
    text = get_format(format_name).render_calls([ToolCall(name="add", arguments=arguments)])
    for quoted in (json.dumps(SLOT), repr(SLOT)):
        text = text.replace(quoted, SLOT)
    assert SLOT in text, text
    return text


@st.composite
def hostile_turns(draw, format_name: str) -> str:
    """Model text carrying hostile content where it hurts: as raw argument text, inside a string, as the tool's
    name, around the call, or alone."""
    piece = draw(hostile)
    call = envelope(format_name)
    where = draw(st.sampled_from(["value", "string", "name", "prose", "alone"]))
    if where == "value":
        return call.replace(SLOT, piece)
    if where == "string":
        return call.replace(SLOT, json.dumps(piece))
    if where == "name":
        return call.replace(SLOT, "1").replace("add", piece, 1)
    if where == "prose":
        return piece + call.replace(SLOT, "1") + piece
    return piece


@pytest.mark.parametrize("format_name", sorted(FORMATS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_parse_never_raises_on_hostile_text(format_name, data):
    text = data.draw(hostile_turns(format_name))
    message = get_format(format_name).parse(text, [add.spec])
    assert isinstance(message, AssistantMessage) and message.raw == text
    for c in message.tool_calls:
        assert c.parse_error is not None or not too_deep(c.arguments)


@pytest.mark.parametrize("format_name", sorted(set(FORMATS) - {"code"}))  # a program is text: nothing nests
@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 3000])
@pytest.mark.parametrize("kind", ["[", "{"])
def test_arguments_nested_too_deeply_become_a_parse_error(format_name, depth, kind):
    text = envelope(format_name).replace(SLOT, _deep([kind] * depth))
    message = get_format(format_name).parse(text, [add.spec])
    assert [c.name for c in message.tool_calls] == ["add"]
    assert "nested too deeply" in (message.tool_calls[0].parse_error or "")


def test_a_call_just_inside_the_bound_is_read():
    value = json.loads(_deep(["["] * (MAX_NESTING - 2)))  # the call's object and its arguments are two levels
    message = get_format("hermes").parse(envelope("hermes").replace(SLOT, json.dumps(value)), [add.spec])
    assert message.tool_calls[0].parse_error is None and message.tool_calls[0].arguments == {"a": value}


@pytest.mark.parametrize("format_name", sorted(FORMATS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_hostile_text_through_the_agent_loop_and_event_log(tmp_path_factory, format_name, data):
    """What the format parses goes through the whole loop: every call gets one result and the log reads back."""
    fmt = get_format(format_name)
    turns = data.draw(st.lists(hostile_turns(format_name), min_size=1, max_size=3))

    def model(messages, tools):
        return fmt.parse(turns.pop(0), tools) if turns else AssistantMessage(content="done")

    log = tmp_path_factory.mktemp("log") / "run.jsonl"
    result = Agent(FunctionModel(model), [add], max_steps=5).run_sync("go", log=log)
    assert_history_consistent(result.messages)
    replayed = Agent(ScriptedModel([]), [add]).resume_sync(log)
    assert (replayed.status, replayed.answer) == (result.status, result.answer)
    # compared as JSON sees them: a Python string may hold a high and a low surrogate that JSON reads as one character
    as_json = json.loads(json.dumps([m.model_dump(mode="json") for m in result.messages]))
    assert [m.model_dump(mode="json") for m in replayed.messages] == as_json
