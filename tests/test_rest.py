"""`toollab rest serve` in its own process, and the OpenAPI importer turning it (or any OpenAPI service) back into
tools that an agent calls."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from conftest import ServerProcess, assert_history_consistent, free_port, results_by_id, toollab

from toollab import Agent, ScriptedModel, calculator, call
from toollab.interfaces.rest import load_spec, openapi_tools
from toollab.interfaces.rest.openapi import credential_for
from toollab.interfaces.secrets import Scrubber, cut

pytestmark = pytest.mark.slow  # real servers in their own processes

KEY = "rest-key-31d0c6e2"


@pytest.fixture(scope="module")
def rest():
    port = free_port()
    with ServerProcess(
        "rest", "serve", "tests/mcp_tools.py:TOOLS", "--port", str(port), port=port, env={"TOOLLAB_API_KEY": KEY}
    ):
        yield f"http://127.0.0.1:{port}"


def test_one_endpoint_per_tool_with_the_tools_schemas(rest):
    spec = httpx.get(f"{rest}/openapi.json").json()
    assert {"/tools", "/tools/calculator", "/tools/echo", "/tools/fail", "/tools/wait"} <= set(spec["paths"])
    op = spec["paths"]["/tools/calculator"]["post"]
    assert op["operationId"] == "calculator"
    assert op["requestBody"]["content"]["application/json"]["schema"] == calculator.parameters
    assert spec["components"]["securitySchemes"]["APIKeyHeader"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "The server's API key.",
    }


def test_api_key_and_errors_over_http(rest):
    url = f"{rest}/tools/calculator"
    assert httpx.post(url, json={"expression": "1+1"}).status_code == 401
    assert httpx.post(url, json={"expression": "1+1"}, headers={"X-API-Key": "wrong"}).status_code == 401
    good = {"X-API-Key": KEY}
    assert httpx.post(url, json={"expression": "6*7"}, headers=good).json() == {"result": "42"}
    bad = httpx.post(url, json={"expr": "1"}, headers=good)
    assert bad.status_code == 422 and bad.json()["kind"] == "invalid_arguments"
    assert "missing required field" in bad.json()["error"]
    broken = httpx.post(url, content=b"{not json", headers={**good, "content-type": "application/json"})
    assert broken.status_code == 400 and broken.json()["kind"] == "invalid_json"
    failed = httpx.post(f"{rest}/tools/fail", json={"reason": "why"}, headers=good)
    assert failed.status_code == 500 and failed.json() == {"error": "failed on purpose: why", "kind": "tool_error"}
    denied = httpx.post(f"{rest}/tools/launch", json={"target": "x"}, headers=good)
    assert denied.status_code == 403 and denied.json()["kind"] == "denied"
    slow = httpx.post(f"{rest}/tools/too_slow", json={}, headers=good)
    assert slow.status_code == 504 and slow.json()["kind"] == "timeout"


def test_imported_tools_call_the_service_for_an_agent(rest):
    tools = openapi_tools(f"{rest}/openapi.json", base_url=rest, api_key=KEY, prefix="svc_")
    names = {t.name for t in tools}
    assert {"svc_calculator", "svc_echo", "svc_list_tools"} <= names
    by_name = {t.name: t for t in tools}
    assert by_name["svc_calculator"].parameters["properties"] == calculator.parameters["properties"]
    assert "X-API-Key" not in json.dumps([t.spec.to_dict() for t in tools])
    script = [
        [
            call("svc_calculator", {"expression": "6 * 7"}, "a"),
            call("svc_echo", {"text": "hi"}, "b"),
            call("svc_fail", {"reason": "upstream says no"}, "c"),
            call("svc_calculator", {"expression": "1", "X-API-Key": "mine"}, "d"),
        ],
        "done",
    ]
    run = asyncio.run(Agent(ScriptedModel(script), tools).run("go"))
    assert_history_consistent(run.messages)
    results = results_by_id(run.messages)
    assert json.loads(results["a"].content) == {"result": "42"}
    assert json.loads(results["b"].content) == {"result": "hi"}
    assert results["c"].is_error and "500" in results["c"].content and "upstream says no" in results["c"].content
    assert results["d"].is_error and "unexpected field" in results["d"].content


def test_an_unreachable_service_is_an_error_result_naming_no_secret():
    spec = {
        "openapi": "3.1.0",
        "paths": {
            "/x": {
                "get": {
                    "operationId": "x",
                    "parameters": [{"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}],
                }
            }
        },
        "components": {"securitySchemes": {"k": {"type": "apiKey", "in": "query", "name": "key"}}},
    }
    secret = "query-secret-99887766"
    tools = openapi_tools(spec, base_url=f"http://127.0.0.1:{free_port()}", api_key=secret)
    assert list(tools[0].parameters["properties"]) == ["q"]  # the key's query parameter is not an argument
    run = asyncio.run(Agent(ScriptedModel([[call("x", {"q": "a"}, "c")], "done"]), tools).run("go"))
    result = results_by_id(run.messages)["c"]
    assert result.is_error and "could not be reached" in result.content and secret not in result.content


def test_specs_and_credentials_are_read_as_documented(tmp_path):
    yaml_spec = tmp_path / "api.yaml"
    yaml_spec.write_text("openapi: 3.0.0\npaths:\n  /a:\n    get:\n      operationId: a\n")
    assert load_spec(yaml_spec)["paths"]["/a"]["get"]["operationId"] == "a"
    with pytest.raises(ValueError, match="no `paths`"):
        load_spec({"openapi": "3.0.0"})
    with pytest.raises(ValueError, match="cannot read"):
        load_spec(tmp_path / "missing.json")
    bearer = {"components": {"securitySchemes": {"b": {"type": "http", "scheme": "bearer"}}}}
    assert credential_for(bearer, "k" * 8).headers == {"Authorization": "Bearer " + "k" * 8}
    assert credential_for({}, None).headers == {}


def test_scrubbing_and_cutting():
    scrub = Scrubber(["s3cret/key+1"])
    text = "a s3cret/key+1 b s3cret%2Fkey%2B1 c czNjcmV0L2tleSsx"
    assert scrub(text) == "a [redacted] b [redacted] c [redacted]"
    with pytest.raises(ValueError, match="at least 8"):
        Scrubber(["short"])
    assert cut("x" * 10, 4) == "xxxx... [6 more characters cut]" and cut("abc", 4) == "abc"


def test_rest_serving_needs_a_key():
    out = toollab("rest", "serve", "tests/mcp_tools.py:TOOLS", "--port", str(free_port()))
    assert out.returncode == 2 and "TOOLLAB_API_KEY" in out.stderr


def test_an_openapi_service_as_a_toolset_sees_an_operation_added_to_its_document(rest, tmp_path):
    from toollab import tool
    from toollab.interfaces.rest import OpenAPIService

    full = httpx.get(f"{rest}/openapi.json").json()
    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(full | {"paths": {"/tools/calculator": full["paths"]["/tools/calculator"]}}))

    def publish() -> str:
        """Publish the echo operation in the service's document."""
        document.write_text(json.dumps(full))
        return "published"

    service = OpenAPIService(document, base_url=rest, api_key=KEY, prefix="svc_", refresh_seconds=0)
    seen: list[list[str]] = []
    script = [[call("publish", {}, "p")], [call("svc_echo", {"text": "hi"}, "e")], "done"]
    agent = Agent(
        ScriptedModel(script),
        [tool(publish), service],
        on_event=lambda e: seen.append(e.shown) if e.event == "model_request" else None,
    )
    run = asyncio.run(agent.run("go"))
    assert results_by_id(run.messages)["e"].content == '{"result":"hi"}'
    assert seen[0] == ["publish", "svc_calculator", "finish"]
    assert "svc_echo" in seen[1] and "svc_echo" in seen[2]
