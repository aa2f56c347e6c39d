from __future__ import annotations

import asyncio

import pytest
from conftest import assert_history_consistent, results_by_id

from toollab import (
    Agent,
    AssistantMessage,
    CallPolicy,
    FunctionModel,
    ModelError,
    ModelResponse,
    RunStatus,
    ScriptedModel,
    SystemMessage,
    ToolCall,
    Usage,
    UserMessage,
    add,
    call,
    multiply,
    tool,
)
from toollab.harness import errors


def test_finish_ends_the_run_with_its_answer():
    model = ScriptedModel([call("add", a=5, b=3), call("multiply", a=8, b=2), call("finish", answer="16")])
    result = Agent(model, [add, multiply]).run_sync("What is (5+3)*2?")
    assert result.status == RunStatus.COMPLETED and result.answer == "16"
    assert [r.content for r in result.tool_results] == ["8.0", "16.0", "Final answer recorded."]
    assert [r.kind for r in result.rounds] == ["tools", "tools", "tools"]
    assert_history_consistent(result.messages)


def test_a_turn_without_calls_ends_the_run():
    result = Agent(ScriptedModel([call("add", a=1, b=2), "It is 3."]), [add]).run_sync("1+2?")
    assert (result.status, result.answer) == (RunStatus.COMPLETED, "It is 3.")
    assert [r.kind for r in result.rounds] == ["tools", "answer"]


def test_finish_comes_alone_with_a_real_answer_or_the_run_goes_on():
    model = ScriptedModel(
        [
            [call("finish", answer="2"), call("add", a=1, b=1)],  # beside a call: refused, the call runs
            call("finish"),  # no answer at all
            call("finish", answer="  "),  # an empty one
            call("finish", answer="What to tell the user, taken from the results."),  # its own description
            call("finish", answer="what to tell the user taken from results"),  # nearly
            call("finish", answer="1 + 1 is 2"),
        ]
    )
    result = Agent(model, [add]).run_sync("1 + 1?")
    assert result.status == RunStatus.COMPLETED and result.answer == "1 + 1 is 2"
    kinds = [(r.name, r.error_kind) for r in result.tool_results]
    assert kinds == [
        ("finish", errors.NOT_ALONE),
        ("add", None),
        ("finish", errors.INVALID_ARGUMENTS),
        ("finish", errors.TOOL_ERROR),
        ("finish", errors.TOOL_ERROR),
        ("finish", errors.TOOL_ERROR),
        ("finish", None),
    ]
    contents = [r.content for r in result.tool_results]
    assert "must come alone" in contents[0] and "answer: missing required field" in contents[2]
    assert "empty" in contents[3] and "repeats the finish action's own description" in contents[4]
    assert contents[5] == contents[4]
    assert result.rounds[0].tool_calls == 2 and result.usage is not None


def test_max_steps_asks_once_more_without_tools():
    seen_tools = []

    def looping(messages, tools):
        seen_tools.append([t.name for t in tools])
        if not tools:
            return "best guess: 42"
        return call("add", a=1, b=1)

    result = Agent(FunctionModel(looping), [add], max_steps=3).run_sync("loop")
    assert result.status == RunStatus.MAX_STEPS and result.answer == "best guess: 42"
    assert seen_tools == [["add", "finish"]] * 3 + [[]]
    assert isinstance(result.messages[-2], UserMessage) and "step limit" in result.messages[-2].content
    assert [r.kind for r in result.rounds] == ["tools"] * 3 + ["final"]


def test_calls_made_anyway_in_the_final_round_get_results():
    result = Agent(ScriptedModel([call("add", a=1, b=1), call("add", a=2, b=2)]), [add], max_steps=1).run_sync("x")
    assert result.status == RunStatus.MAX_STEPS and result.answer is None
    assert result.tool_results[-1].error_kind == errors.TOOLS_DISABLED
    assert_history_consistent(result.messages)


def test_max_steps_zero_answers_without_tools():
    result = Agent(ScriptedModel(["no tools needed"]), [add], max_steps=0).run_sync("hi")
    assert result.status == RunStatus.MAX_STEPS and result.answer == "no tools needed"


def test_token_budget_ends_the_run_the_same_way():
    turn = ModelResponse(
        AssistantMessage(tool_calls=[ToolCall(name="add", arguments={"a": 1, "b": 1})]),
        Usage(input_tokens=60, output_tokens=10),
    )
    final = ModelResponse(AssistantMessage(content="stopped"), Usage(input_tokens=70, output_tokens=5))
    result = Agent(ScriptedModel([turn, turn, final]), [add], max_tokens=100).run_sync("x")
    assert result.status == RunStatus.MAX_TOKENS and result.answer == "stopped"
    assert result.usage == Usage(input_tokens=190, output_tokens=25)
    assert [r.usage.input_tokens for r in result.rounds] == [60, 60, 70]


def test_tool_call_budget_refuses_the_calls_beyond_it():
    model = ScriptedModel([[call("add", a=i, b=0) for i in range(3)], "fine"])
    result = Agent(model, [add], max_tool_calls=2).run_sync("x")
    assert result.status == RunStatus.MAX_TOOL_CALLS and result.answer == "fine"
    assert [r.error_kind for r in result.tool_results] == [None, None, errors.BUDGET]
    assert "budget of 2 tool calls" in result.tool_results[2].content
    assert_history_consistent(result.messages)


def test_model_errors_end_the_run_and_keep_the_history():
    def failing(messages, tools):
        if len(messages) > 2:
            raise ModelError("HTTP 503 from upstream", source="provider")
        return call("add", a=1, b=1)

    result = Agent(FunctionModel(failing), [add]).run_sync("x")
    assert result.status == RunStatus.MODEL_ERROR and result.error_source == "provider"
    assert result.error == "HTTP 503 from upstream" and len(result.messages) == 3

    def buggy(messages, tools):
        raise KeyError("oops")

    result = Agent(FunctionModel(buggy), []).run_sync("x")
    assert result.status == RunStatus.MODEL_ERROR and result.error_source == "harness" and "KeyError" in result.error
    exhausted = Agent(ScriptedModel([call("add", a=1, b=1)]), [add]).run_sync("x")
    assert exhausted.status == RunStatus.MODEL_ERROR and "only 1 turns" in exhausted.error


def test_missing_and_repeated_call_ids_are_made_unique():
    model = ScriptedModel(
        [
            [
                ToolCall(id="", name="add", arguments={"a": 1, "b": 1}),
                ToolCall(id="x", name="add", arguments={"a": 2, "b": 2}),
                ToolCall(id="x", name="add", arguments={"a": 3, "b": 3}),
            ],
            [ToolCall(id="x", name="add", arguments={"a": 4, "b": 4}), ToolCall(id="call_0", name="nope")],
            "done",
        ]
    )
    result = Agent(model, [add]).run_sync("x")
    assert_history_consistent(result.messages)
    ids = [c.id for c in result.tool_calls]
    assert len(set(ids)) == 5 and ids[1] == "x"
    assert [results_by_id(result.messages)[i].content for i in ids[:4]] == ["2.0", "4.0", "6.0", "8.0"]


async def test_async_function_model_sees_history_and_tools():
    seen = []

    async def model(messages, tools):
        seen.append((len(messages), [t.name for t in tools]))
        await asyncio.sleep(0)
        return call("finish", answer="ok") if len(messages) > 2 else call("add", a=1, b=2)

    result = await Agent(FunctionModel(model), [add], system_prompt="Be brief.").run("hi")
    assert result.answer == "ok"
    assert seen == [(2, ["add", "finish"]), (4, ["add", "finish"])]
    assert isinstance(result.messages[0], SystemMessage) and result.messages[0].content == "Be brief."


def test_history_is_extended_in_place_for_a_conversation():
    history = []
    agent = Agent(ScriptedModel(["first", "second"]), [add], system_prompt="sys")
    first = agent.run_sync("one", history=history)
    second = agent.run_sync("two", history=history)
    assert first.messages is history and second.messages is history
    assert [m.role for m in history] == ["system", "user", "assistant", "user", "assistant"]


def test_use_finish_false_and_name_clash():
    @tool
    def finish(answer: str) -> str:
        """My own finish."""
        return answer

    with pytest.raises(ValueError, match="control action"):
        Agent(ScriptedModel([]), [finish])
    agent = Agent(ScriptedModel([call("finish", answer="x"), "end"]), [finish], use_finish=False)
    result = agent.run_sync("go")
    assert [s.name for s in agent.tool_specs] == ["finish"] and result.answer == "end"


def test_nothing_to_run_is_a_clear_error():
    with pytest.raises(ValueError, match="nothing to run"):
        Agent(ScriptedModel([])).run_sync()


async def test_cancelling_a_run_leaves_no_call_without_a_result():
    started = asyncio.Event()

    @tool
    async def wait_forever() -> str:
        """Never returns."""
        started.set()
        await asyncio.sleep(3600)
        return "never"

    history = []
    model = ScriptedModel([[call("add", a=1, b=2), call("wait_forever"), call("wait_forever")]])
    task = asyncio.create_task(Agent(model, [add, wait_forever]).run("x", history=history))
    await started.wait()
    await asyncio.sleep(0.2)  # let the quick call finish
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_history_consistent(history)
    assert [r.error_kind for r in history[-3:]] == [None, errors.CANCELLED, errors.CANCELLED]


async def test_a_run_timeout_is_a_cancellation_too():
    @tool
    def sleepy() -> str:
        """Blocks in a thread."""
        import time

        time.sleep(0.5)
        return "late"

    history = []
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.1):
            await Agent(ScriptedModel([call("sleepy")]), [sleepy]).run("x", history=history)
    assert_history_consistent(history)
    assert history[-1].error_kind == errors.CANCELLED


def test_rounds_record_timings_and_usage():
    turn = ModelResponse(
        AssistantMessage(tool_calls=[ToolCall(name="add", arguments={"a": 1, "b": 1})]),
        Usage(input_tokens=10, output_tokens=3, cached_input_tokens=4),
    )
    result = Agent(ScriptedModel([turn, "done"]), [add]).run_sync("x")
    first = result.rounds[0]
    assert first.usage.cached_input_tokens == 4 and first.tool_calls == 1
    assert first.model_seconds >= 0 and first.tool_seconds > 0 and result.duration_seconds > 0
    data = result.to_dict()
    assert data["status"] == "completed" and data["rounds"][0]["usage"]["input_tokens"] == 10
    assert "messages=4" in repr(result)


def test_direct_results_end_the_run_with_what_the_tools_returned():
    policy = CallPolicy(direct=True)
    model = ScriptedModel([[call("add", a=1, b=2), call("add", a=3, b=4)]])
    result = Agent(model, [add], policy=policy).run_sync("1+2 and 3+4?")
    assert result.status == RunStatus.COMPLETED and result.answer == "3.0\n7.0"
    twice = ScriptedModel([[call("add", a=1, b=2), call("add", a=1, b=2)]])
    assert Agent(twice, [add], policy=policy).run_sync("1+2?").answer == "3.0"  # a repeated result is said once
    failing = ScriptedModel([call("add", a="x", b=2), call("add", a=1, b=2), "3"])  # a failed call: go on
    result = Agent(failing, [add], policy=policy).run_sync("1+2?")
    assert result.answer == "3.0" and [r.error_kind for r in result.tool_results] == [errors.INVALID_ARGUMENTS, None]
