from __future__ import annotations

import asyncio
import threading
import time
from typing import Literal

import pytest
from pydantic import BaseModel

from toollab import Dispatcher, Tool, ToolCall, ToolError, tool
from toollab.harness import errors


class Item(BaseModel):
    name: str
    qty: int


@tool
def order(items: list[Item], speed: Literal["slow", "fast"] = "slow", note: str | None = None) -> str:
    """Place an order.

    Args:
        items: What to order.
        speed: Delivery speed.
        note: For the courier.
    """
    return f"{len(items)} items, {speed}"


@tool
def get_weather(city: str) -> dict:
    """Weather for a city.

    Args:
        city: The city name.
    """
    return {"city": city, "temp": 21}


@tool
def broken(x: int) -> int:
    """Always fails."""
    raise ValueError(f"cannot handle {x}")


@tool
def refuses() -> str:
    """Fails with a message for the model."""
    raise ToolError("the account is locked; ask the user to unlock it")


@tool
def exits() -> str:
    """Calls sys.exit."""
    raise SystemExit(3)


@tool(timeout=0.2)
async def slow_async() -> str:
    """Sleeps too long."""
    await asyncio.sleep(5)
    return "late"


@tool(timeout=0.2)
def slow_sync() -> str:
    """Sleeps too long in a thread."""
    time.sleep(1)
    return "late"


@tool
async def raises_timeout() -> str:
    """Raises its own TimeoutError."""
    raise TimeoutError("upstream took too long")


TOOLS = [order, get_weather, broken, refuses, exits, slow_async, slow_sync, raises_timeout]


def one(name, arguments=None, id="c1") -> ToolCall:
    return ToolCall(id=id, name=name, arguments={} if arguments is None else arguments)


async def run(call: ToolCall, **kwargs):
    return await Dispatcher(TOOLS, **kwargs).dispatch(call)


async def test_success_wraps_result_as_json_with_call_id():
    result = await run(one("get_weather", {"city": "Oslo"}, id="abc"))
    assert (result.call_id, result.name, result.is_error) == ("abc", "get_weather", False)
    assert result.content == '{"city":"Oslo","temp":21}'


@pytest.mark.parametrize(
    "arguments",
    ['{"city": "Oslo"}', ' {"city": "Oslo"}\n', '"{\\"city\\": \\"Oslo\\"}"', {"city": "Oslo"}],
)
async def test_arguments_as_string_object_or_double_encoded(arguments):
    result = await run(one("get_weather", arguments))
    assert not result.is_error and "Oslo" in result.content


@pytest.mark.parametrize("arguments", ["", None, "  ", {}])
async def test_empty_arguments_mean_no_arguments(arguments):
    result = await run(ToolCall(id="c", name="get_weather", arguments=arguments))
    assert result.error_kind == errors.INVALID_ARGUMENTS
    assert "city: missing required field; expected string (The city name.)" in result.content


async def test_unknown_tool_names_closest_match_and_valid_tools():
    result = await run(one("get_wether", {"city": "Oslo"}))
    assert result.is_error and result.error_kind == errors.UNKNOWN_TOOL
    assert "Did you mean 'get_weather'?" in result.content
    assert "Valid tools: order, get_weather, broken" in result.content


@pytest.mark.parametrize("name", ["", "   ", 42, None, "x" * 10_000])
async def test_strange_names_are_unknown_tools(name):
    result = await run(ToolCall.model_construct(id="c", name=name, arguments={}))
    assert result.error_kind == errors.UNKNOWN_TOOL and result.call_id == "c"


async def test_invalid_json_says_where_and_shows_expected_shape():
    result = await run(one("get_weather", '{"city": "Oslo"'))
    assert result.error_kind == errors.INVALID_JSON
    assert "not valid JSON" in result.content and "at character" in result.content
    assert '{"city": ...}' in result.content


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [("[1, 2]", "array"), ("42", "number"), ('"Oslo"', "string"), ([1], "array"), (3.5, "number"), ("null", "null")],
)
async def test_arguments_must_be_an_object(arguments, kind):
    result = await run(one("get_weather", arguments))
    assert result.error_kind == errors.INVALID_ARGUMENTS
    assert f"are a JSON {kind}, not an object" in result.content and '{"city": ...}' in result.content


@pytest.mark.parametrize("arguments", ["[" * 5000 + "]" * 5000, '{"a":' * 150 + "1" + "}" * 150, "deep object"])
async def test_arguments_nested_too_deeply_are_refused_not_recursed_into(arguments):
    if arguments == "deep object":  # an object handed over as one (as providers' SDKs decode their JSON)
        arguments = {"city": "Oslo"}
        for _ in range(200):
            arguments = {"city": arguments}
    result = await run(one("get_weather", arguments))
    assert result.error_kind == errors.INVALID_JSON and "nested too deeply" in result.content


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"city": 5}, "city: got 5 (integer); expected string"),
        ({"city": "Oslo", "country": "NO"}, "country: unexpected field; allowed fields: city"),
        ({"city": None}, "city: got null (null); expected string"),
    ],
)
async def test_validation_names_path_given_and_allowed(arguments, expected):
    result = await run(one("get_weather", arguments))
    assert result.error_kind == errors.INVALID_ARGUMENTS
    assert result.content.startswith("Invalid arguments for 'get_weather':")
    assert expected in result.content


async def test_nested_validation_paths_and_enums():
    result = await run(
        one("order", {"items": [{"name": "tea", "qty": 1}, {"name": "cake", "qty": "two", "x": 1}], "speed": "warp"})
    )
    assert result.error_kind == errors.INVALID_ARGUMENTS
    assert 'items[1].qty: got "two" (string); expected integer' in result.content
    assert "items[1].x: unexpected field; allowed fields: name, qty" in result.content
    assert 'speed: got "warp"; allowed: one of "slow", "fast"' in result.content
    assert "note" not in result.content
    ok = await run(one("order", {"items": [{"name": "tea", "qty": 1}], "speed": "fast"}))
    assert ok.content == "1 items, fast"


async def test_many_problems_are_capped():
    args = {"items": [{"name": i, "qty": "x"} for i in range(20)]}
    result = await run(one("order", args))
    assert "... and" in result.content and result.content.count("\n- ") <= 9


async def test_tool_exceptions_become_results():
    failed = await run(one("broken", {"x": 7}))
    assert failed.error_kind == errors.TOOL_ERROR
    assert failed.content == "Tool 'broken' failed: ValueError: cannot handle 7"
    verbatim = await run(one("refuses"))
    assert verbatim.content == "the account is locked; ask the user to unlock it" and verbatim.is_error
    exited = await run(one("exits"))
    assert exited.error_kind == errors.TOOL_ERROR and "SystemExit" in exited.content


async def test_timeouts_async_and_sync_and_a_tools_own_timeout_error():
    for name in ("slow_async", "slow_sync"):
        result = await run(one(name))
        assert result.error_kind == errors.TIMEOUT
        assert result.content == f"Tool '{name}' timed out after 0.2 s and was stopped; its result is unknown."
    own = await run(one("raises_timeout"))
    assert own.error_kind == errors.TOOL_ERROR and "upstream took too long" in own.content


async def test_side_effects_need_approval():
    calls = []

    @tool(side_effects=True)
    def delete(path: str) -> str:
        """Delete a file."""
        calls.append(path)
        return "deleted"

    call = one("delete", {"path": "/tmp/x"})
    denied = await Dispatcher([delete]).dispatch(call)
    assert denied.error_kind == errors.DENIED and "no approver is set" in denied.content
    no = await Dispatcher([delete], approve=lambda c, t: False).dispatch(call)
    assert no.error_kind == errors.DENIED and "approver denied" in no.content

    def boom(c, t):
        raise RuntimeError("approver bug")

    assert (await Dispatcher([delete], approve=boom).dispatch(call)).error_kind == errors.DENIED
    assert (await Dispatcher([delete], approve=lambda c, t: "yes").dispatch(call)).error_kind == errors.DENIED
    assert calls == []

    async def approve(c, t):
        return t.name == "delete" and c.arguments["path"].startswith("/tmp/")

    yes = await Dispatcher([delete], approve=approve).dispatch(call)
    assert yes.content == "deleted" and calls == ["/tmp/x"]
    as_text = await Dispatcher([delete], approve=approve).dispatch(one("delete", '{"path": "/tmp/y"}'))
    assert as_text.content == "deleted" and calls == ["/tmp/x", "/tmp/y"]  # the approver saw a dict


async def test_results_that_cannot_be_serialised_still_become_text():
    @tool
    def odd() -> object:
        """Returns an object."""
        return {"when": object()}

    result = await Dispatcher([odd]).dispatch(one("odd"))
    assert not result.is_error and "object object" in result.content


def test_duplicate_tool_names_are_refused():
    with pytest.raises(ValueError, match="two tools are named"):
        Dispatcher([get_weather, get_weather])


# ---- parallel calls -----------------------------------------------------------------------------------------


class Tracker:
    def __init__(self):
        self.running = 0
        self.peak = 0
        self.lock = threading.Lock()
        self.log: list[tuple[str, str]] = []

    def enter(self, name):
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.log.append(("start", name))

    def leave(self, name):
        with self.lock:
            self.running -= 1
            self.log.append(("end", name))


def tracked_tools(tracker: Tracker):
    @tool
    async def nap(seconds: float, label: str) -> str:
        """Sleep."""
        tracker.enter(label)
        await asyncio.sleep(seconds)
        tracker.leave(label)
        return label

    @tool
    def block(seconds: float, label: str) -> str:
        """Sleep in a thread."""
        tracker.enter(label)
        time.sleep(seconds)
        tracker.leave(label)
        return label

    @tool(exclusive=True)
    def migrate(label: str) -> str:
        """Must run alone."""
        tracker.enter(label)
        assert tracker.running == 1, "an exclusive tool ran beside another call"
        time.sleep(0.05)
        tracker.leave(label)
        return label

    return [nap, block, migrate]


async def test_calls_run_concurrently_and_results_keep_call_order():
    tracker = Tracker()
    dispatcher = Dispatcher(tracked_tools(tracker))
    calls = [
        ToolCall(id=f"c{i}", name="nap" if i % 2 else "block", arguments={"seconds": 0.3 - 0.05 * i, "label": str(i)})
        for i in range(5)
    ]
    results = await dispatcher.dispatch_all(calls)
    assert [r.call_id for r in results] == [c.id for c in calls]
    assert [r.content for r in results] == ["0", "1", "2", "3", "4"]
    assert tracker.peak == 5


async def test_concurrency_limit_is_honoured():
    tracker = Tracker()
    dispatcher = Dispatcher(tracked_tools(tracker), max_concurrency=3)
    calls = [ToolCall(id=f"c{i}", name="nap", arguments={"seconds": 0.02, "label": str(i)}) for i in range(12)]
    results = await dispatcher.dispatch_all(calls)
    assert len(results) == 12 and not any(r.is_error for r in results)
    assert tracker.peak == 3


async def test_exclusive_tools_run_alone_in_order():
    tracker = Tracker()
    dispatcher = Dispatcher(tracked_tools(tracker))
    calls = [
        ToolCall(id="a", name="nap", arguments={"seconds": 0.05, "label": "a"}),
        ToolCall(id="b", name="block", arguments={"seconds": 0.05, "label": "b"}),
        ToolCall(id="m", name="migrate", arguments={"label": "m"}),
        ToolCall(id="c", name="nap", arguments={"seconds": 0.01, "label": "c"}),
    ]
    results = await dispatcher.dispatch_all(calls)
    assert not any(r.is_error for r in results), results
    log = tracker.log
    assert log.index(("start", "m")) > max(log.index(("end", "a")), log.index(("end", "b")))
    assert log.index(("start", "c")) > log.index(("end", "m"))


async def test_one_failing_or_timing_out_call_does_not_disturb_the_others():
    dispatcher = Dispatcher(TOOLS)
    calls = [
        one("get_weather", {"city": "A"}, "1"),
        one("broken", {"x": 1}, "2"),
        one("slow_async", None, "3"),
        one("nope", None, "4"),
        one("get_weather", {"city": "B"}, "5"),
    ]
    results = await dispatcher.dispatch_all(calls)
    assert [r.error_kind for r in results] == [None, errors.TOOL_ERROR, errors.TIMEOUT, errors.UNKNOWN_TOOL, None]
    assert '"A"' in results[0].content and '"B"' in results[4].content


async def test_cancelling_a_batch_gives_every_pending_call_a_result():
    tracker = Tracker()
    dispatcher = Dispatcher(tracked_tools(tracker))
    calls = [
        ToolCall(id="fast", name="nap", arguments={"seconds": 0.0, "label": "f"}),
        ToolCall(id="slow", name="nap", arguments={"seconds": 10, "label": "s"}),
        ToolCall(id="thread", name="block", arguments={"seconds": 0.5, "label": "t"}),
        ToolCall(id="later", name="migrate", arguments={"label": "never"}),
    ]
    results = [None] * len(calls)
    task = asyncio.create_task(dispatcher.dispatch_all(calls, results))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [r.call_id for r in results] == ["fast", "slow", "thread", "later"]
    assert results[0].content == "f" and not results[0].is_error
    assert [r.error_kind for r in results[1:]] == [errors.CANCELLED] * 3
    assert "cancelled before it finished" in results[1].content


async def test_a_thousand_calls_in_one_turn():
    @tool
    async def noop() -> str:
        """Nothing."""
        return "ok"

    calls = [ToolCall(id=str(i), name="noop") for i in range(1000)]
    results = await Dispatcher([noop], max_concurrency=100).dispatch_all(calls)
    assert [r.call_id for r in results] == [str(i) for i in range(1000)]
    assert all(r.content == "ok" for r in results)


def test_tool_from_schema_dispatches_with_dict():
    seen = []
    t = Tool.from_schema(
        "echo",
        "Echo.",
        {"type": "object", "properties": {"v": {"type": "integer"}}, "required": ["v"], "additionalProperties": False},
        lambda args: seen.append(args) or args["v"] * 2,
    )
    result = asyncio.run(Dispatcher([t]).dispatch(one("echo", '{"v": 21}')))
    assert result.content == "42" and seen == [{"v": 21}]


async def test_sync_tools_see_context_variables_and_stopiteration_is_an_error():
    import contextvars

    request_id = contextvars.ContextVar("request_id", default="none")

    @tool
    def whoami() -> str:
        """Reads a context variable."""
        return request_id.get()

    @tool
    def stops() -> str:
        """Raises StopIteration, which asyncio futures cannot carry."""
        raise StopIteration("no more")

    request_id.set("r-42")
    dispatcher = Dispatcher([whoami, stops])
    assert (await dispatcher.dispatch(one("whoami"))).content == "r-42"
    stopped = await dispatcher.dispatch(one("stops"))
    assert stopped.error_kind == errors.TOOL_ERROR and "StopIteration" in stopped.content


def test_a_hung_sync_tool_does_not_keep_the_process_alive(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "hang.py"
    script.write_text(
        "import time\n"
        "from toollab import Agent, ScriptedModel, call, tool\n"
        "@tool(timeout=0.1)\n"
        "def hang() -> str:\n"
        '    """Never returns."""\n'
        "    time.sleep(3600)\n"
        "r = Agent(ScriptedModel([call('hang'), 'gave up']), [hang]).run_sync('x')\n"
        "print(r.tool_results[0].error_kind, r.answer)\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "timeout gave up"
