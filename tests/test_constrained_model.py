"""The embedded model, constrained: every call well-formed and schema-valid, the turn ends with the grammar, and
a call cut off by the token budget is a "truncated" error (real model, small budgets)."""

from __future__ import annotations

import asyncio

import pytest

from toollab import Agent, LocalModel, UserMessage, add, multiply
from toollab.constrain import ToolGrammar
from toollab.harness import errors
from toollab.harness.request import CallPolicy, RequestParams
from toollab.tools import ToolSpec

pytestmark = pytest.mark.slow

UNIT = ToolSpec(
    "convert",
    "Convert a distance.",
    {
        "type": "object",
        "properties": {"value": {"type": "integer"}, "unit": {"type": "string", "enum": ["km", "mi"]}},
        "required": ["value", "unit"],
        "additionalProperties": False,
    },
)
QUESTION = [UserMessage(content="What is 12 times 7?")]


def ask(model: LocalModel, tools=(add.spec, multiply.spec), messages=QUESTION, choice="required", parallel=True):
    return asyncio.run(model.request(messages, RequestParams(list(tools), choice, parallel)))


@pytest.mark.parametrize("format", ["hermes", "pythonic", "text"])
def test_required_turns_are_valid_calls_that_end_with_the_grammar(format):
    # one call a turn: the grammar then ends the turn right after it (in parallel mode a small model tends to
    # repeat its call until the budget runs out, which the next test covers)
    model = LocalModel(format=format, max_new_tokens=80, constraint=ToolGrammar())
    for tools, question in [((add.spec, multiply.spec), "What is 12 times 7?"), ((UNIT,), "How far is 5 km in miles?")]:
        response = ask(model, tools, [UserMessage(content=question)], parallel=False)
        (call,) = response.message.tool_calls
        assert call.parse_error is None, response.raw
        spec = {t.name: t for t in tools}[call.name]
        assert set(call.arguments) >= set(spec.parameters["required"])
        assert set(call.arguments) <= set(spec.parameters["properties"])
        assert response.metadata["stop_reason"] == "grammar"  # nothing written after the call
        assert response.metadata["grammar"]["mask_seconds"]


def test_a_named_tool_and_none():
    named = ask(LocalModel(max_new_tokens=60, constraint=ToolGrammar()), choice="multiply", parallel=False)
    assert [c.name for c in named.message.tool_calls] == ["multiply"]
    assert named.metadata["stop_reason"] == "grammar"  # one call, then the grammar ends the turn
    none = ask(LocalModel(max_new_tokens=30, constraint=ToolGrammar()), choice="none")
    assert none.message.tool_calls == [] and "<tool_call>" not in none.raw


def test_a_cut_off_call_is_a_truncated_error_never_a_malformed_call():
    response = ask(LocalModel(max_new_tokens=10, constraint=ToolGrammar()))
    (call,) = response.message.tool_calls
    assert call.parse_error.startswith("truncated: the output reached max_new_tokens (10)")
    assert response.metadata["stop_reason"] == "length"
    model = LocalModel(max_new_tokens=10, constraint=ToolGrammar())
    result = Agent(model, [add], max_steps=1, policy=CallPolicy(first_turn="required")).run_sync("What is 2 + 2?")
    first = result.tool_results[0]
    assert first.is_error and first.error_kind == errors.PARSE_ERROR and "truncated" in first.content


def test_the_compiled_grammar_is_cached_per_tool_set():
    model = LocalModel(max_new_tokens=40, constraint=ToolGrammar())
    first, second = ask(model), ask(model)
    assert second.metadata["grammar"]["cache_hit"] and not first.metadata["grammar"]["cache_hit"]
    assert not ask(model, (UNIT,)).metadata["grammar"]["cache_hit"]
    assert first.metadata["grammar"]["compile_seconds"] > 0.0


def test_the_compiled_grammar_keeps_the_schema_order_of_the_arguments():
    """Arguments come in the order the schema gives (the order models are trained on): "start" before "end", not
    the alphabetical order a sorted cache key once imposed ("end" first made the model copy the first date there)."""
    model = LocalModel(max_new_tokens=40, constraint=ToolGrammar())
    span = ToolSpec(
        "days",
        "Count the days between two dates.",
        {
            "type": "object",
            "properties": {"start": {"type": "string"}, "end": {"type": "string"}},
            "required": ["start", "end"],
            "additionalProperties": False,
        },
    )
    params = RequestParams([span], "required", False)

    def accepted(arguments: str) -> bool:
        matcher = model._matcher(params, None)
        assert matcher is not None and model.format.envelope is not None
        text = model.format.envelope.opening("days") + arguments + model.format.envelope.end
        for token in model.load().tokenizer(text, add_special_tokens=False)["input_ids"]:
            try:
                matcher.accept(token)
            except RuntimeError:
                return False
        return matcher.can_end()

    assert accepted('{"start": "2027-01-02", "end": "2027-03-04"}')
    assert not accepted('{"end": "2027-03-04", "start": "2027-01-02"}')


def test_an_agent_run_calls_tools_then_answers():
    model = LocalModel(max_new_tokens=96, constraint=ToolGrammar())
    policy = CallPolicy(first_turn="required")
    result = Agent(model, [add, multiply], max_steps=3, policy=policy).run_sync("What is 12 times 7?")
    assert result.tool_calls and all(c.parse_error is None for c in result.tool_calls[:1])
    assert result.rounds[0].tool_calls >= 1  # the first turn had to act
