"""Harness overhead per agent step: toollab beside pydantic-ai, the OpenAI Agents SDK, LangGraph and smolagents.

Every framework is driven the same way: a scripted model that calls a no-op tool (a plain sync function) until
N calls are made, then answers. The model counts its own calls (it never scans the history), so what grows with
N is the framework's own work. For each framework and N it prints microseconds per step (best of --repeats
runs), the ratio to toollab, the mean cost of the first 20 and the last 20 steps (time between consecutive model
calls), and peak traced memory (one extra run under tracemalloc). Then toollab's parallel efficiency.

    python benchmarks/overhead.py                 # N = 50, 200, 800
    python benchmarks/overhead.py --n 200 --repeats 5 --json out.json

Frameworks that are not installed are skipped (install them with `pip install -e '.[bench]'`, or `make bench`).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.metadata
import json
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

console = Console(width=150)


class Script:
    """The model's side of a run: call the tool until N calls were made, then answer. Records when it is asked."""

    def __init__(self, n: int):
        self.n = n
        self.calls = 0
        self.stamps: list[float] = []

    def next(self) -> bool:
        """True: call the tool again; False: answer now."""
        self.stamps.append(time.perf_counter())
        if self.calls < self.n:
            self.calls += 1
            return True
        return False


def noop() -> str:
    """Do nothing and say so."""
    return "ok"


# ---- one driver per framework: build an agent around `script`, run it to the end -------------------------------


def run_toollab(script: Script) -> None:
    from toollab import Agent, AssistantMessage, FunctionModel, ToolCall, tool

    noop_tool = tool(noop)

    def model(messages, tools):
        if script.next():
            return AssistantMessage(tool_calls=[ToolCall(id=f"c{script.calls}", name="noop", arguments={})])
        return AssistantMessage(content="done")

    result = Agent(FunctionModel(model), [noop_tool], max_steps=script.n + 5).run_sync("go")
    assert result.answer == "done" and len(result.tool_results) == script.n, result


def run_pydantic_ai(script: Script) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.usage import UsageLimits

    def model(messages, info):
        if script.next():
            return ModelResponse(parts=[ToolCallPart("noop", {}, tool_call_id=f"c{script.calls}")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model))
    agent.tool_plain(noop)
    result = agent.run_sync("go", usage_limits=UsageLimits(request_limit=None, tool_calls_limit=None))
    assert result.output == "done"


def run_openai_agents(script: Script) -> None:
    from agents import Agent, Runner, function_tool, set_tracing_disabled
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    set_tracing_disabled(True)

    class ScriptModel(Model):
        async def get_response(self, *args, **kwargs):
            if script.next():
                item = ResponseFunctionToolCall(
                    id=f"fc{script.calls}",
                    call_id=f"c{script.calls}",
                    name="noop",
                    arguments="{}",
                    type="function_call",
                )
            else:
                item = ResponseOutputMessage(
                    id="m",
                    role="assistant",
                    status="completed",
                    type="message",
                    content=[ResponseOutputText(text="done", type="output_text", annotations=[])],
                )
            return ModelResponse(output=[item], usage=Usage(), response_id=None)

        def stream_response(self, *args, **kwargs):
            raise NotImplementedError("the benchmark does not stream")

    agent = Agent(name="bench", model=ScriptModel(), tools=[function_tool(noop)])
    result = Runner.run_sync(agent, "go", max_turns=script.n + 5)
    assert result.final_output == "done"


def run_langgraph(script: Script) -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class ScriptChatModel(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "script"

        def bind_tools(self, tools, **kwargs):
            return self

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            if script.next():
                message = AIMessage(content="", tool_calls=[{"name": "noop", "args": {}, "id": f"c{script.calls}"}])
            else:
                message = AIMessage(content="done")
            return ChatResult(generations=[ChatGeneration(message=message)])

    agent = create_agent(ScriptChatModel(), tools=[noop])
    state = agent.invoke({"messages": [("user", "go")]}, {"recursion_limit": 2 * script.n + 10})
    assert state["messages"][-1].content == "done"


def run_smolagents(script: Script) -> None:
    from smolagents import ToolCallingAgent, tool
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model
    from smolagents.monitoring import LogLevel, TokenUsage

    noop_tool = tool(noop)

    class ScriptModel(Model):
        def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
            if script.next():
                name, arguments = "noop", {}
            else:
                name, arguments = "final_answer", {"answer": "done"}
            call = ChatMessageToolCall(
                id=f"c{script.calls}",
                type="function",
                function=ChatMessageToolCallFunction(name=name, arguments=arguments),
            )
            return ChatMessage(
                role=MessageRole.ASSISTANT,
                content="",
                tool_calls=[call],
                token_usage=TokenUsage(input_tokens=0, output_tokens=0),
            )

    agent = ToolCallingAgent(
        tools=[noop_tool], model=ScriptModel(), max_steps=script.n + 5, verbosity_level=LogLevel.OFF
    )
    assert agent.run("go") == "done"


FRAMEWORKS: dict[str, tuple[str, Callable[[Script], None]]] = {
    "toollab": ("toollab", run_toollab),
    "smolagents": ("smolagents", run_smolagents),
    "langgraph": ("langgraph", run_langgraph),
    "pydantic-ai": ("pydantic-ai-slim", run_pydantic_ai),
    "openai-agents": ("openai-agents", run_openai_agents),
}


# ---- measuring -------------------------------------------------------------------------------------------------


@dataclass
class Measure:
    framework: str
    n: int
    us_per_step: float
    first20_us: float
    last20_us: float
    peak_kib: float
    runs_us: list[float] = field(default_factory=list)


def step_costs(script: Script) -> list[float]:
    return [b - a for a, b in zip(script.stamps, script.stamps[1:], strict=False)]


def measure(name: str, runner: Callable[[Script], None], n: int, repeats: int, no_gc: bool) -> Measure:
    best: tuple[float, Script] | None = None
    runs = []
    for _ in range(repeats):
        script = Script(n)
        gc.collect()
        if no_gc:
            gc.disable()
        started = time.perf_counter()
        try:
            runner(script)
        finally:
            elapsed = time.perf_counter() - started
            gc.enable()
        assert script.calls == n, f"{name}: {script.calls} tool calls, expected {n}"
        runs.append(elapsed / n * 1e6)
        if best is None or elapsed < best[0]:
            best = (elapsed, script)
    assert best is not None
    costs = step_costs(best[1])
    gc.collect()
    tracemalloc.start()
    runner(Script(n))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    k = min(20, len(costs) // 2)
    return Measure(
        name, n, min(runs), statistics.fmean(costs[:k]) * 1e6, statistics.fmean(costs[-k:]) * 1e6, peak / 1024, runs
    )


async def parallel_sleeps() -> tuple[float, float]:
    """10 async tools sleeping 50-200 ms, called in one turn: wall time and the slowest sleep."""
    from toollab import Dispatcher, ToolCall, tool

    @tool
    async def sleep_async(ms: int) -> int:
        """Sleep."""
        await asyncio.sleep(ms / 1000)
        return ms

    @tool
    def sleep_sync(ms: int) -> int:
        """Sleep in a thread."""
        time.sleep(ms / 1000)
        return ms

    sleeps = [50 + 150 * i // 9 for i in range(10)]
    calls = [
        ToolCall(id=str(i), name="sleep_async" if i % 2 else "sleep_sync", arguments={"ms": ms})
        for i, ms in enumerate(sleeps)
    ]
    dispatcher = Dispatcher([sleep_async, sleep_sync])
    await dispatcher.dispatch_all(calls)  # warm the thread pool
    started = time.perf_counter()
    results = await dispatcher.dispatch_all(calls)
    wall = time.perf_counter() - started
    assert not any(r.is_error for r in results)
    return wall, max(sleeps) / 1000


async def thousand_noops() -> float:
    """1,000 calls of a no-op tool in one turn (async tool; the default concurrency limit applies)."""
    from toollab import Dispatcher, ToolCall, tool

    @tool
    async def nothing() -> str:
        """Nothing."""
        return "ok"

    calls = [ToolCall(id=str(i), name="nothing") for i in range(1000)]
    dispatcher = Dispatcher([nothing])
    await dispatcher.dispatch_all(calls)
    started = time.perf_counter()
    results = await dispatcher.dispatch_all(calls)
    assert len(results) == 1000 and all(r.content == "ok" for r in results)
    return time.perf_counter() - started


def version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[50, 200, 800], help="tool calls per run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per cell; the best is reported")
    parser.add_argument("--frameworks", nargs="+", default=list(FRAMEWORKS), choices=list(FRAMEWORKS))
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument(
        "--no-gc",
        action="store_true",
        help="turn Python's cyclic garbage collector off during timed runs (frameworks that build "
        "large histories spend much of their time in it)",
    )
    args = parser.parse_args()

    console.print(
        f"python {platform.python_version()}, {platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores"
    )
    available = {}
    for name in args.frameworks:
        dist, runner = FRAMEWORKS[name]
        v = version(dist)
        if v is None:
            console.print(f"[yellow]skipping {name}: {dist} is not installed[/yellow]")
            continue
        runner(Script(3))  # warm-up: imports and first-call caches stay out of the figures
        available[name] = (v, runner)

    results: list[Measure] = []
    for n in args.n:
        for name, (_, runner) in available.items():
            console.print(f"[dim]N={n} {name} ...[/dim]")
            results.append(measure(name, runner, n, args.repeats, args.no_gc))

    gc_note = ", garbage collector off" if args.no_gc else ""
    table = Table(title=f"harness overhead per agent step (no-op tool, scripted model{gc_note})")
    for col in (
        "framework",
        "version",
        "N",
        "us/step",
        "x toollab",
        "first 20 us",
        "last 20 us",
        "last/first",
        "peak KiB",
        "KiB/step",
    ):
        table.add_column(col, justify="left" if col in ("framework", "version") else "right")
    base = {m.n: m for m in results if m.framework == "toollab"}
    for m in results:
        ratio = m.us_per_step / base[m.n].us_per_step if m.n in base else float("nan")
        table.add_row(
            m.framework,
            available[m.framework][0],
            str(m.n),
            f"{m.us_per_step:,.0f}",
            f"{ratio:.1f}",
            f"{m.first20_us:,.0f}",
            f"{m.last20_us:,.0f}",
            f"{m.last20_us / m.first20_us:.2f}",
            f"{m.peak_kib:,.0f}",
            f"{m.peak_kib / m.n:.1f}",
        )
    console.print(table)

    wall, slowest = asyncio.run(parallel_sleeps())
    thousand = asyncio.run(thousand_noops())
    console.print(
        f"parallel: 10 tools sleeping 50-200 ms in one turn took {wall * 1000:.1f} ms, "
        f"{wall / slowest:.3f}x the slowest (goal <= 1.05)"
    )
    console.print(
        f"parallel: 1,000 no-op calls in one turn took {thousand * 1000:.1f} ms "
        f"({thousand / 1000 * 1e6:.0f} us per call)"
    )
    if "toollab" in available:
        for m in results:
            if m.framework == "toollab" and m.n == max(args.n):
                console.print(
                    f"toollab flatness at N={m.n}: last 20 steps / first 20 = "
                    f"{m.last20_us / m.first20_us:.2f} (goal <= 1.5)"
                )
        peers = [m for m in results if m.framework != "toollab" and m.n in base]
        for n in sorted(base):
            fastest = min((m for m in peers if m.n == n), key=lambda m: m.us_per_step, default=None)
            if fastest:
                console.print(
                    f"N={n}: fastest peer {fastest.framework} {fastest.us_per_step:,.0f} us/step = "
                    f"{fastest.us_per_step / base[n].us_per_step:.1f}x toollab (goal >= 3)"
                )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "results": [m.__dict__ for m in results],
                    "parallel_ratio": wall / slowest,
                    "thousand_calls_seconds": thousand,
                    "versions": {k: v for k, (v, _) in available.items()},
                },
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
