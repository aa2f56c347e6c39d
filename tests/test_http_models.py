"""The HTTP backends against real servers on 127.0.0.1 speaking the providers' wire formats."""

from __future__ import annotations

import asyncio
import email.utils
import json
import socket
import time

import pytest
from provider_server import ProviderServer, Reply, openai_call, openai_reply

from toollab import Agent, RunStatus, UserMessage, add
from toollab.harness import errors
from toollab.harness.model import ModelError
from toollab.harness.request import CallPolicy, RequestParams, policy_of
from toollab.models.anthropic import AnthropicModel
from toollab.models.http import RateLimit, RetryPolicy, TokenBucket, retry_after_seconds
from toollab.models.openai_compatible import OpenAIModel

FAST = RetryPolicy(max_retries=3, base_delay=0.01, max_delay=0.05)


def openai(server, **kwargs):
    return OpenAIModel("test-model", base_url=server.url, api_key="sk-test", retry=FAST, **kwargs)


def test_openai_tool_loop_on_the_wire():
    replies = [
        openai_reply(
            tool_calls=[openai_call("c1", "add", '{"a": 2, "b": 3}')],
            usage={"prompt_tokens": 50, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 32}},
        ),
        openai_reply("It is 5."),
    ]
    with ProviderServer(replies) as server:
        result = Agent(openai(server), [add], system_prompt="sys").run_sync("2+3?")
    assert result.status == RunStatus.COMPLETED and result.answer == "It is 5."
    assert result.rounds[0].usage.input_tokens == 50 and result.rounds[0].usage.cached_input_tokens == 32
    first, second = server.requests
    assert first.path == "/chat/completions" and first.headers["authorization"] == "Bearer sk-test"
    assert first.body["model"] == "test-model"
    assert first.body["tools"][0] == {"type": "function", "function": add.spec.to_dict()}
    assert [m["role"] for m in first.body["messages"]] == ["system", "user"]
    assert second.body["messages"][-2]["tool_calls"][0]["function"] == {"name": "add", "arguments": '{"a": 2, "b": 3}'}
    assert second.body["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "5.0"}


def test_arguments_as_an_object_and_malformed_json():
    replies = [
        openai_reply(
            tool_calls=[openai_call("c1", "add", {"a": 1, "b": 1}), openai_call("c2", "add", '{"a": 1, "b": ')]
        ),
        openai_reply("done"),
    ]
    with ProviderServer(replies) as server:
        result = Agent(openai(server), [add]).run_sync("x")
    ok, broken = result.tool_results
    assert ok.content == "2.0" and not ok.is_error
    assert broken.error_kind == errors.INVALID_JSON and "not valid JSON" in broken.content
    assert server.requests[1].body["messages"][-1]["content"] == broken.content  # the model is told


def test_429_with_retry_after_and_500s_are_retried():
    replies = [
        Reply({"error": "slow down"}, 429, {"retry-after": "0"}),
        Reply({"error": "oops"}, 500),
        Reply({"error": "oops"}, 502),
        openai_reply("fine"),
    ]
    with ProviderServer(replies) as server:
        model = openai(server)
        response = asyncio.run(model.request([], RequestParams()))
    assert response.message.content == "fine" and response.metadata["retries"] == 3
    assert len(server.requests) == 4 and model.transport.retries == 3


def test_slow_responses_time_out_and_are_retried():
    with ProviderServer([Reply(delay=1.0, body={}), openai_reply("after the timeout")]) as server:
        response = asyncio.run(openai(server, timeout=0.3).request([], RequestParams()))
    assert response.message.content == "after the timeout" and response.metadata["retries"] == 1


def test_exhausted_retries_end_the_run_attributed_to_the_provider():
    with ProviderServer([Reply({"error": "down"}, 503)] * 4) as server:
        result = Agent(openai(server), [add]).run_sync("x")
    assert result.status == RunStatus.MODEL_ERROR and result.error_source == "provider"
    assert "HTTP 503" in result.error and len(server.requests) == 4


@pytest.mark.parametrize(
    ("status", "source"), [(400, "harness"), (422, "harness"), (401, "provider"), (404, "provider")]
)
def test_client_errors_are_not_retried_and_are_attributed(status, source):
    replies = [Reply({"error": {"message": "no"}}, status), openai_reply("never")]
    with ProviderServer(replies) as server, pytest.raises(ModelError) as caught:
        asyncio.run(openai(server).request([], RequestParams()))
    assert caught.value.source == source and f"HTTP {status}" in str(caught.value)
    assert len(server.requests) == 1


def test_bodies_that_are_not_json_or_not_completions():
    with (
        ProviderServer([Reply(raw=b"<html>gateway</html>")] * 4) as server,
        pytest.raises(ModelError, match="not JSON"),
    ):
        asyncio.run(openai(server).request([], RequestParams()))
    shape = pytest.raises(ModelError, match="unexpected response shape")
    with ProviderServer([Reply({"choices": []})]) as server, shape:
        asyncio.run(openai(server).request([], RequestParams()))


def test_connection_refused_is_retried_then_attributed_to_the_provider():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = OpenAIModel("m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k", retry=FAST)
    with pytest.raises(ModelError, match="connection failed") as caught:
        asyncio.run(model.request([], RequestParams()))
    assert caught.value.source == "provider" and caught.value.retries == 3


def test_base_url_and_key_from_the_environment(monkeypatch):
    with ProviderServer([openai_reply("env")]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
        assert asyncio.run(OpenAIModel("m").request([], RequestParams())).message.content == "env"
    assert server.requests[0].headers["authorization"] == "Bearer sk-env"


def test_anthropic_tool_loop_on_the_wire():
    def second(body):
        results = body["messages"][-1]["content"]
        assert results[0]["type"] == "tool_result" and results[0]["tool_use_id"] == "tu_1"
        assert results[0]["is_error"] is True  # the unknown tool's error reaches the model flagged as an error
        return Reply(
            {
                "content": [{"type": "text", "text": "Sorry."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 20, "output_tokens": 3},
            }
        )

    replies = [
        Reply(
            {
                "content": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "tu_1", "name": "lookup", "input": {"q": "x"}},
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 12, "output_tokens": 8, "cache_read_input_tokens": 30},
            }
        ),
        second,
    ]
    with ProviderServer(replies) as server:
        model = AnthropicModel("claude-test", base_url=server.url, api_key="ak-test", retry=FAST)
        result = Agent(model, [add], system_prompt="Be brief.").run_sync("hi")
    assert result.answer == "Sorry." and result.tool_results[0].error_kind == errors.UNKNOWN_TOOL
    first = server.requests[0]
    assert first.path == "/v1/messages"
    assert first.headers["x-api-key"] == "ak-test" and first.headers["anthropic-version"] == "2023-06-01"
    assert first.body["system"] == "Be brief." and first.body["messages"] == [{"role": "user", "content": "hi"}]
    assert first.body["tools"][0]["input_schema"] == add.parameters
    assert result.rounds[0].usage.input_tokens == 42 and result.rounds[0].usage.cached_input_tokens == 30


def test_anthropic_overload_is_retried():
    ok = Reply({"content": [{"type": "text", "text": "ok"}], "usage": {"input_tokens": 1, "output_tokens": 1}})
    with ProviderServer([Reply({"type": "error"}, 529), ok]) as server:
        model = AnthropicModel("c", base_url=server.url, api_key="k", retry=FAST)
        assert asyncio.run(model.request([], RequestParams())).message.content == "ok"
    assert len(server.requests) == 2


# ---- the pieces, with a fake clock -----------------------------------------------------------------------------


def test_retry_after_header_forms():
    assert retry_after_seconds("7") == 7.0 and retry_after_seconds("0.5") == 0.5
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= retry_after_seconds(later) <= 31
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None


def test_backoff_is_exponential_with_full_jitter_and_capped():
    import random

    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    rng = random.Random(0)
    draws = [[policy.delay(attempt, None, rng) for _ in range(200)] for attempt in range(6)]
    for attempt, values in enumerate(draws):
        bound = min(8.0, 2**attempt)
        assert all(0 <= v <= bound for v in values) and max(values) > 0.8 * bound
    assert policy.delay(0, 3.0, rng) == 3.0 and policy.delay(0, 99.0, rng) == 8.0


def test_token_bucket_reserves_and_refills():
    now = [0.0]
    bucket = TokenBucket(60, clock=lambda: now[0])  # one a second
    assert [bucket.reserve(1) for _ in range(60)] == [0.0] * 60
    assert bucket.reserve(1) == pytest.approx(1.0)
    assert bucket.reserve(1) == pytest.approx(2.0)  # reservations queue up
    now[0] = 10.0
    assert bucket.reserve(1) == 0.0  # ten seconds refilled ten tokens: the two owed and eight more


def test_rate_limits_are_shared_by_endpoint_and_settled_on_real_usage():
    a = RateLimit.shared("test:endpoint", requests_per_minute=100, tokens_per_minute=1000)
    b = RateLimit.shared("test:endpoint")
    assert a is b
    now = [0.0]
    limit = RateLimit(tokens_per_minute=600, clock=lambda: now[0])
    assert limit.reserve(600) == 0.0 and limit.reserve(60) == pytest.approx(6.0)
    limit.settle(estimated_tokens=600, actual_tokens=0)  # the estimate was far too high: tokens come back
    assert limit.reserve(60) == 0.0


def test_concurrent_runs_draw_from_one_budget():
    replies = [openai_reply(json.dumps(i)) for i in range(3)]
    with ProviderServer(replies) as server:
        models = [openai(server, requests_per_minute=120) for _ in range(3)]
        assert models[0].transport.rate_limit is models[2].transport.rate_limit

        async def all_three():
            return await asyncio.gather(*(m.request([], RequestParams()) for m in models))

        asyncio.run(all_three())
    assert len(server.requests) == 3


def test_load_model_keeps_local_options_to_local_models():
    from toollab.models import load_model
    from toollab.models.switches import Switches

    http = load_model("openai:m@http://127.0.0.1:9/v1", max_new_tokens=5, api_key="k")  # ignored over HTTP
    assert isinstance(http, OpenAIModel) and policy_of(http) == CallPolicy()
    with pytest.raises(ValueError, match="applies to local models"):
        load_model("openai:m@http://127.0.0.1:9/v1", constrained=True, api_key="k")
    local = load_model("local", max_new_tokens=7)  # the project's defaults: constrained, its call policy
    assert local.max_new_tokens == 7 and local.constraint is not None and policy_of(local) == Switches().policy()
    free = load_model("local", constrained=False, policy=CallPolicy(parallel=False))
    assert free.constraint is None and policy_of(free) == CallPolicy(parallel=False)


@pytest.mark.parametrize(
    ("choice", "parallel", "openai_wire", "anthropic_wire"),
    [
        ("auto", True, "auto", {"type": "auto", "disable_parallel_tool_use": False}),
        ("required", False, "required", {"type": "any", "disable_parallel_tool_use": True}),
        ("none", True, "none", {"type": "none"}),
        (
            "add",
            True,
            {"type": "function", "function": {"name": "add"}},
            {"type": "tool", "name": "add", **{"disable_parallel_tool_use": False}},
        ),
    ],
)
def test_the_tool_choice_goes_on_the_wire(choice, parallel, openai_wire, anthropic_wire):
    params = RequestParams([add.spec], choice, parallel)
    with ProviderServer([openai_reply("ok")]) as server:
        asyncio.run(openai(server).request([UserMessage(content="hi")], params))
    body = server.requests[0].body
    assert body["tool_choice"] == openai_wire and body["parallel_tool_calls"] is parallel
    ok = Reply({"content": [{"type": "text", "text": "ok"}], "usage": {"input_tokens": 1, "output_tokens": 1}})
    with ProviderServer([ok]) as server:
        model = AnthropicModel("claude-test", base_url=server.url, api_key="ak-test", retry=FAST)
        asyncio.run(model.request([UserMessage(content="hi")], params))
    assert server.requests[0].body["tool_choice"] == anthropic_wire
    with ProviderServer([openai_reply("ok")]) as server:  # no tools offered: nothing about choosing them
        asyncio.run(openai(server).request([UserMessage(content="hi")], RequestParams()))
    assert "tool_choice" not in server.requests[0].body and "parallel_tool_calls" not in server.requests[0].body


def test_the_agent_asks_as_its_policy_says():
    with ProviderServer([openai_reply(None, [openai_call("c1", "add", '{"a": 1, "b": 2}')]), openai_reply("3")]) as s:
        policy = CallPolicy(first_turn="required", after_results="none", parallel=False)
        Agent(openai(s), [add], policy=policy).run_sync("1+2?")
    first, second = (r.body for r in s.requests)
    assert (first["tool_choice"], first["parallel_tool_calls"]) == ("required", False)
    assert second["tool_choice"] == "none"


@pytest.mark.parametrize("depth", [300, 5000])
def test_anthropic_input_nested_too_deeply_is_answered_not_crashed_on(tmp_path, depth):
    """300 levels: the SDK-style object reaches the harness, which refuses it as a parse error (it could not be
    logged); 5,000: the response itself cannot be read, which is the provider's failure."""
    deep = "[" * depth + "]" * depth
    body = (
        '{"content": [{"type": "tool_use", "id": "tu_1", "name": "add", "input": {"a": ' + deep + "}}], "
        '"stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 5}}'
    )
    done = Reply({"content": [{"type": "text", "text": "done"}], "usage": {"input_tokens": 1, "output_tokens": 1}})
    with ProviderServer([Reply(raw=body.encode())] * (1 if depth < 1000 else 4) + [done]) as server:
        model = AnthropicModel("claude-test", base_url=server.url, api_key="ak-test", retry=FAST)
        result = Agent(model, [add]).run_sync("hi", log=tmp_path / "run.jsonl")
    if depth < 1000:
        assert result.answer == "done" and result.tool_results[0].error_kind == errors.PARSE_ERROR
        assert "nested too deeply" in result.tool_results[0].content
    else:
        assert result.status == RunStatus.MODEL_ERROR and result.error_source == "provider"
        assert "nests too deeply" in (result.error or "")
