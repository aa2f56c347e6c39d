"""MCP for real: `toollab mcp serve` in its own process, over stdio and over HTTP on 127.0.0.1, and the toollab
MCP client (fastmcp underneath) importing its tools into agents."""

from __future__ import annotations

import asyncio
import os
import sys
import time

import httpx
import mcp_tools
import pytest
from conftest import MCP_ACCEPT as ACCEPT
from conftest import MCP_INIT as INIT
from conftest import ServerProcess, assert_history_consistent, free_port, results_by_id, toollab

from toollab import Agent, ScriptedModel, ToolError, call
from toollab.harness import Dispatcher
from toollab.interfaces.mcp import MCPServer
from toollab.tools import Elicited

pytestmark = pytest.mark.slow  # real servers in their own processes

KEY = "test-key-5f1c9a"
TOOLS = "tests/mcp_tools.py:TOOLS"
STDIO = [sys.executable, "-m", "toollab", "mcp", "serve", TOOLS]


def http_server(port: int) -> ServerProcess:
    return ServerProcess(
        "mcp", "serve", TOOLS, "--transport", "http", "--port", str(port), port=port, env={"MCP_API_KEY": KEY}
    )


@pytest.fixture(scope="module")
def served():
    port = free_port()
    with http_server(port):
        yield f"http://127.0.0.1:{port}/mcp"


async def results_of(server: MCPServer, *calls):
    agent = Agent(ScriptedModel([list(calls), "done"]), await server.tools())
    run = await agent.run("go")
    assert_history_consistent(run.messages)
    return run, results_by_id(run.messages)


def test_stdio_tools_keep_their_schemas_and_messages():
    async def go():
        async with MCPServer(STDIO, prefix="s_") as server:
            tools = {t.name: t for t in await server.tools()}
            assert set(tools) == {
                f"s_{n}" for n in ("calculator", "echo", "fail", "crash", "too_slow", "wait", "pid", "launch")
            }
            assert tools["s_calculator"].parameters["required"] == ["expression"]
            _, results = await results_of(
                server,
                call("s_calculator", {"expression": "6 * 7"}, "a"),
                call("s_calculator", {"expr": "1"}, "b"),
                call("s_fail", {"reason": "testing"}, "c"),
                call("s_crash", {}, "d"),
                call("s_too_slow", {}, "e"),
            )
            # past the client's own check (which names the prefixed tool the model knows), the server answers
            # with in-process dispatch's words, as an MCP isError result
            with pytest.raises(ToolError) as served_error:
                await server.call("calculator", {"expr": "1"})
        assert results["a"].content == "42" and not results["a"].is_error
        assert results["b"].is_error and "Invalid arguments for 's_calculator'" in results["b"].content
        local = await Dispatcher(mcp_tools.TOOLS).dispatch(call("calculator", {"expr": "1"}, "x"))
        assert str(served_error.value) == local.content
        assert results["c"].is_error and results["c"].content == "failed on purpose: testing"
        assert results["d"].is_error and "RuntimeError: unexpected state" in results["d"].content
        assert results["e"].is_error and "timed out after 0.5 s" in results["e"].content

    asyncio.run(go())


def test_http_agent_with_parallel_calls(served):
    async def go():
        async with MCPServer(served, token=KEY, prefix="h_") as server:
            started = time.perf_counter()
            run, results = await results_of(
                server,
                *(call("h_wait", {"seconds": 1.0}, f"w{i}") for i in range(4)),
                call("h_echo", {"text": "hello"}, "e"),
            )
            elapsed = time.perf_counter() - started
        assert [results[f"w{i}"].content for i in range(4)] == ["waited 1.0"] * 4
        assert results["e"].content == "hello"
        assert elapsed < 3.5  # four 1 s calls ran side by side over one session (serially they take 4 s)
        assert run.answer == "done"

    asyncio.run(go())


def test_http_refuses_missing_and_wrong_tokens_and_foreign_hosts(served):
    assert httpx.post(served, json=INIT, headers=ACCEPT).status_code == 401
    wrong = httpx.post(served, json=INIT, headers={**ACCEPT, "Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"].startswith("Bearer")
    good = {**ACCEPT, "Authorization": f"Bearer {KEY}"}
    assert httpx.post(served, json=INIT, headers=good).status_code == 200
    # DNS rebinding: a page on another name that resolves here, or a browser page of another origin
    assert httpx.post(served, json=INIT, headers={**good, "Host": "evil.example"}).status_code == 421
    assert httpx.post(served, json=INIT, headers={**good, "Origin": "http://evil.example"}).status_code == 403

    async def connect(token):
        async with MCPServer(served, token=token):
            pass

    for token in (None, "wrong"):
        with pytest.raises(ConnectionError, match="cannot connect"):
            asyncio.run(connect(token))


def test_http_serving_without_a_token_is_refused():
    out = toollab("mcp", "serve", TOOLS, "--transport", "http", "--port", str(free_port()))
    assert out.returncode == 2 and "MCP_API_KEY" in out.stderr


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_server_killed_mid_call_gives_an_error_result_and_a_restart_is_picked_up(transport, tmp_path):
    port = free_port()
    marker = tmp_path / "started"
    process = http_server(port) if transport == "http" else None

    async def go():
        target = f"http://127.0.0.1:{port}/mcp" if process else STDIO
        server = MCPServer(target, token=KEY, call_timeout=20)
        async with server:
            tools = {t.name: t for t in await server.tools()}
            pid = int(await server.call("pid", {}))
            agent = Agent(
                ScriptedModel([[call("wait", {"seconds": 30, "marker": str(marker)}, "w")], "ok"]), list(tools.values())
            )
            run_task = asyncio.create_task(agent.run("go"))
            while not marker.exists():
                await asyncio.sleep(0.05)
            killed = time.perf_counter()
            os.kill(pid, 9)
            run = await asyncio.wait_for(run_task, 15)
            assert time.perf_counter() - killed < 10  # an error result, not the 30 s wait or a hang
            result = results_by_id(run.messages)["w"]
            assert result.is_error and "failed during the call" in result.content
            if process:
                process.start()  # the same port, a new process
            for _ in range(50):  # a server that has just bound its port may still be starting its app
                try:
                    echoed = await server.call("echo", {"text": "back"})
                    break
                except ToolError as exc:
                    assert "The call was not made" in str(exc)
                    await asyncio.sleep(0.2)
            else:
                pytest.fail("the restarted server never answered")
            assert echoed == "back"
            assert server.connects == 2

    if process:
        process.start()
    try:
        asyncio.run(go())
    finally:
        if process:
            process.stop()


def test_two_servers_and_local_tools_in_one_agent_with_prefixes(served):
    from toollab import calculator

    async def go():
        async with MCPServer(STDIO, prefix="a_") as a, MCPServer(served, token=KEY, prefix="b_") as b:
            tools = [*await a.tools(), *await b.tools(), calculator]
            assert len({t.name for t in tools}) == len(tools)  # the same tools twice, apart by prefix
            script = [
                [call("a_pid", {}, "pa"), call("b_pid", {}, "pb"), call("calculator", {"expression": "2+2"}, "c")]
            ]
            return await Agent(ScriptedModel([*script, "done"]), tools).run("go")

    run = asyncio.run(go())
    results = results_by_id(run.messages)
    assert results["pa"].content != results["pb"].content  # two different server processes
    assert results["c"].content == "4"


def test_the_official_sdk_client_sees_the_same_tools_and_errors():
    """Not only our own client: the reference MCP SDK's ClientSession over stdio."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def go():
        params = StdioServerParameters(command=STDIO[0], args=STDIO[1:])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            ok = await session.call_tool("calculator", {"expression": "6*7"})
            failed = await session.call_tool("fail", {"reason": "sdk"})
            return listed, ok, failed

    listed, ok, failed = asyncio.run(go())
    by_name = {t.name: t for t in listed.tools}
    assert by_name["calculator"].input_schema == mcp_tools.calculator.parameters
    assert not ok.is_error and ok.content[0].text == "42"
    assert failed.is_error and failed.content[0].text == "failed on purpose: sdk"


def test_side_effects_run_when_the_clients_user_accepts_or_the_server_allows_them():
    questions = []

    def user(answer):
        def ask(message, schema):
            questions.append((message, schema))
            return Elicited(action=answer)

        return ask

    async def launch(command, ask=None):
        async with MCPServer(command, ask=ask) as server:
            try:
                return await server.call("launch", {"target": "rocket"})
            except ToolError as exc:
                return f"error: {exc}"

    assert "denied" in asyncio.run(launch(STDIO))  # a client that cannot be asked
    assert "denied" in asyncio.run(launch(STDIO, user("decline")))
    assert asyncio.run(launch(STDIO, user("accept"))) == "launched rocket"
    assert len(questions) == 2
    message, schema = questions[0]
    assert "'launch'" in message and '{"target":"rocket"}' in message and schema["type"] == "object"
    assert asyncio.run(launch([*STDIO, "--allow-side-effects"])) == "launched rocket"


def test_a_server_as_a_toolset_is_listed_each_step_and_a_tool_it_adds_is_seen():
    seen: list[list[str] | None] = []

    def on_event(event):
        if event.event == "model_request":
            seen.append(event.shown)

    async def go():
        async with MCPServer([sys.executable, "tests/mcp_growing.py"]) as server:
            script = ScriptedModel([[call("unlock", {}, "u")], [call("vault", {}, "v")], "done"])
            return await Agent(script, server, on_event=on_event).run("Open the vault.")

    run = asyncio.run(go())
    assert_history_consistent(run.messages)
    assert [r.content for r in run.tool_results] == ["unlocked", "gold"]
    assert seen == [["unlock", "finish"], ["unlock", "vault", "finish"], ["unlock", "vault", "finish"]]
