"""The gateway for real: an upstream REST API (uvicorn, its own process), `toollab gateway` in front of it (its
own process), and an agent talking MCP to the gateway. The upstream key must appear nowhere the agent, the model
or the logs could see it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from conftest import MCP_ACCEPT, MCP_INIT, ServerProcess, assert_history_consistent, free_port, results_by_id, toollab

from toollab import Agent, ScriptedModel, call
from toollab.interfaces.mcp import MCPServer
from toollab.interfaces.secrets import Scrubber

pytestmark = pytest.mark.slow  # real servers in their own processes

UPSTREAM_KEY = "upstream-7c2e41d9b8aa"
AGENT_KEY = "agent-0b94f3e1c577"
TESTS = Path(__file__).parent


@pytest.fixture(scope="module")
def upstream():
    port = free_port()
    env = {"UPSTREAM_API_KEY": UPSTREAM_KEY, "PYTHONPATH": str(TESTS)}
    args = ("upstream_api:app", "--port", str(port), "--log-level", "warning")
    with ServerProcess(*args, port=port, env=env, module="uvicorn", cwd=str(TESTS)):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def gateway(upstream):
    port = free_port()
    server = ServerProcess(
        "gateway",
        "--openapi",
        f"{upstream}/openapi.json",
        "--upstream",
        upstream,
        "--port",
        str(port),
        port=port,
        env={"MCP_API_KEY": AGENT_KEY, "UPSTREAM_API_KEY": UPSTREAM_KEY},
    )
    server.start()
    yield f"http://127.0.0.1:{port}/mcp", server
    server.stop()


def test_a_whole_agent_session_never_sees_the_upstream_key(gateway, tmp_path):
    url, server = gateway
    log = tmp_path / "events.jsonl"
    seen_by_model: list[str] = []

    class Recording(ScriptedModel):
        async def request(self, messages, params):
            seen_by_model.append(json.dumps([m.model_dump(mode="json") for m in messages]))
            seen_by_model.append(json.dumps([t.to_dict() for t in params.tools]))
            return await super().request(messages, params)

    script = [
        [
            call("get_weather", {"city": "Lima", "units": "celsius"}, "w"),
            call("add_note", {"text": "bring a coat", "urgent": True}, "n"),
            call("echo_headers", {}, "h"),
            call("broken", {}, "b"),
            call("get_weather", {"city": "Lima", "Authorization": f"Bearer {AGENT_KEY}"}, "x"),
        ],
        "done",
    ]

    async def go():
        async with MCPServer(url, token=AGENT_KEY) as gw:
            tools = await gw.tools()
            agent = Agent(Recording(script), tools)
            return tools, await agent.run("Weather in Lima?", log=log)

    tools, run = asyncio.run(go())
    assert_history_consistent(run.messages)
    results = results_by_id(run.messages)
    assert json.loads(results["w"].content) == {"city": "Lima", "temperature": 21, "units": "celsius"}
    assert json.loads(results["n"].content)["stored"] == "bring a coat"
    headers = json.loads(results["h"].content)
    assert headers["x-upstream-key"] == "[redacted]"  # the upstream got its key; the agent sees it scrubbed
    assert "authorization" not in headers and AGENT_KEY not in results["h"].content  # agent's token not forwarded
    assert results["b"].is_error and "500" in results["b"].content and "[redacted]" in results["b"].content
    assert len(results["b"].content) < 2_500 and "more characters cut" in results["b"].content
    assert results["x"].is_error and "Authorization" in results["x"].content  # not a declared argument: refused
    schemas = json.dumps([t.spec.to_dict() for t in tools])
    assert "X-Upstream-Key" not in schemas and "x-upstream-key" not in schemas.lower()

    everything = "\n".join([*seen_by_model, schemas, log.read_text(), json.dumps(run.to_dict()), server.stop()])
    server.start()  # the module's other tests still need it
    for form in Scrubber([UPSTREAM_KEY]).forms:
        assert form not in everything


def test_the_gateway_refuses_agents_without_its_token(gateway):
    url, _ = gateway
    assert httpx.post(url, json=MCP_INIT, headers=MCP_ACCEPT).status_code == 401
    upstream_key_as_token = {**MCP_ACCEPT, "Authorization": f"Bearer {UPSTREAM_KEY}"}
    assert httpx.post(url, json=MCP_INIT, headers=upstream_key_as_token).status_code == 401


def test_the_gateway_needs_both_keys_and_they_must_differ(upstream):
    spec = f"{upstream}/openapi.json"
    out = toollab("gateway", "--openapi", spec, "--upstream", upstream, "--port", str(free_port()))
    assert out.returncode == 2 and "UPSTREAM_API_KEY" in out.stderr
