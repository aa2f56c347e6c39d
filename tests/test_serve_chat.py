"""`toollab serve`: the Chat Completions endpoint, driven by the official `openai` SDK and by toollab's own
`openai` backend over real HTTP on 127.0.0.1 (a scripted model behind it, and the embedded model on a small
budget)."""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager

import openai
import pytest
import uvicorn
from conftest import free_port

from toollab.harness import Agent, RunStatus
from toollab.harness.messages import ToolCall, ToolResultMessage
from toollab.interfaces.chat import chat_app
from toollab.models.openai_compatible import OpenAIModel
from toollab.models.scripted import FunctionModel
from toollab.tools import tool

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


@contextmanager
def serving(model, api_key=None):
    """The app under uvicorn on a free port of 127.0.0.1, in a thread; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(chat_app(model, api_key=api_key), host="127.0.0.1", port=port,
                                           log_level="warning"))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def weather_model():
    def turn(messages, tools):
        if isinstance(messages[-1], ToolResultMessage):
            return f"It is {messages[-1].content} there."
        if tools:
            return [ToolCall(name="get_weather", arguments={"city": "Oslo, Norway"}),
                    ToolCall(name="get_weather", arguments={"city": "Bergen"})]  # fmt: skip
        return "Hello."

    return FunctionModel(turn, name="scripted-weather")


def test_plain_and_tool_turns_through_the_official_sdk():
    model = weather_model()
    with serving(model) as url:
        client = openai.OpenAI(base_url=url, api_key="unused")
        assert [m.id for m in client.models.list()] == ["scripted-weather"]
        plain = client.chat.completions.create(model="x", messages=[{"role": "user", "content": "hi"}])
        assert plain.choices[0].message.content == "Hello." and plain.choices[0].finish_reason == "stop"
        assert model.last_params.tools == ()
        asked = [{"role": "user", "content": "weather?"}]
        called = client.chat.completions.create(
            model="x", messages=asked, tools=[WEATHER], tool_choice="required", parallel_tool_calls=False
        )
        choice = called.choices[0]
        assert choice.finish_reason == "tool_calls" and len(choice.message.tool_calls) == 2
        first = choice.message.tool_calls[0]
        assert first.function.name == "get_weather" and json.loads(first.function.arguments) == {"city": "Oslo, Norway"}
        assert len({c.id for c in choice.message.tool_calls}) == 2 and all(c.id for c in choice.message.tool_calls)
        assert (model.last_params.tool_choice, model.last_params.parallel) == ("required", False)
        assert called.usage.total_tokens == called.usage.prompt_tokens + called.usage.completion_tokens
        # the results go back in (an assistant message with content null included), and the model reads them
        back = client.chat.completions.create(model="x", tools=[WEATHER], messages=[
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": None, "tool_calls": [c.model_dump() for c in choice.message.tool_calls]},
            {"role": "tool", "tool_call_id": first.id, "content": "sunny"},
            {"role": "tool", "tool_call_id": choice.message.tool_calls[1].id, "content": "rain"},
        ])  # fmt: skip
        assert back.choices[0].message.content == "It is rain there."
        only = {"type": "function", "function": {"name": "get_weather"}}
        named = client.chat.completions.create(model="x", messages=asked, tools=[WEATHER], tool_choice=only)
        assert model.last_params.tool_choice == "get_weather" and named.choices[0].message.tool_calls


def test_streaming_sends_each_calls_id_and_name_once_and_usage_when_asked():
    with serving(weather_model()) as url:
        client = openai.OpenAI(base_url=url, api_key="unused")
        stream = client.chat.completions.create(model="x", messages=[{"role": "user", "content": "weather?"}],
                                                tools=[WEATHER], tool_choice="auto", stream=True,
                                                stream_options={"include_usage": True})  # fmt: skip
        deltas, usage, finish = [], None, None
        for chunk in stream:
            if chunk.usage is not None:
                usage = chunk.usage
            for c in chunk.choices:
                deltas.extend(c.delta.tool_calls or [])
                finish = c.finish_reason or finish
        assert finish == "tool_calls" and usage is not None and usage.total_tokens >= 0
        heads = [d for d in deltas if d.id is not None]
        assert [(d.index, d.function.name) for d in heads] == [(0, "get_weather"), (1, "get_weather")]
        assert all(d.function.name is None for d in deltas if d.id is None)  # named once
        joined = ["".join(d.function.arguments or "" for d in deltas if d.index == i) for i in (0, 1)]
        assert [json.loads(a) for a in joined] == [{"city": "Oslo, Norway"}, {"city": "Bergen"}]
        text = client.chat.completions.create(model="x", messages=[{"role": "user", "content": "hi"}], stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in text if c.choices) == "Hello."


def test_bad_requests_get_a_400_that_says_what_is_wrong_and_a_key_is_checked():
    with serving(weather_model(), api_key="sekrit") as url:
        client = openai.OpenAI(base_url=url, api_key="sekrit", max_retries=0)
        cases = [
            ({"messages": [{"role": "user", "content": "x"}], "tool_choice": "required"}, "no tools were given"),
            ({"messages": [{"role": "user", "content": "x"}], "tools": [WEATHER],
              "tool_choice": {"type": "function", "function": {"name": "nope"}}}, "not among the tools"),
            ({"messages": [{"role": "wizard", "content": "x"}]}, "unknown role 'wizard'"),
            ({"messages": []}, "at least one message"),
            ({"messages": [{"role": "user", "content": "x"}], "n": 2}, "n must be 1"),
            ({"messages": [{"role": "user", "content": "x"}], "stop": ["\n"]}, "stop sequences are not supported"),
        ]  # fmt: skip
        for body, expected in cases:
            with pytest.raises(openai.BadRequestError, match=expected):
                client.chat.completions.create(model="x", **body)
        with pytest.raises(openai.BadRequestError, match=r"tools\.0\.type"):
            client.chat.completions.create(model="x", messages=[{"role": "user", "content": "x"}],
                                           tools=[{"type": "web", "function": WEATHER["function"]}])  # fmt: skip
        wrong = openai.OpenAI(base_url=url, api_key="guess", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            wrong.models.list()


def test_toollabs_own_openai_backend_runs_an_agent_against_it():
    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return {"Oslo, Norway": "sunny", "Bergen": "rain"}[city]

    with serving(weather_model()) as url:
        result = Agent(OpenAIModel("x", base_url=url, api_key="unused"), [get_weather], use_finish=False).run_sync("w")
    assert result.status == RunStatus.COMPLETED and result.answer == "It is rain there."
    assert [r.content for r in result.tool_results] == ["sunny", "rain"]


@pytest.mark.slow
def test_the_embedded_model_answers_required_with_a_call_that_parses_and_fits_the_schema():
    from toollab.models.registry import load_model

    with serving(load_model("local", max_new_tokens=64)) as url:
        client = openai.OpenAI(base_url=url, api_key="unused")
        for stream in (False, True):
            asked = dict(model="local", messages=[{"role": "user", "content": "What is the weather in Oslo?"}],
                         tools=[WEATHER], tool_choice="required")  # fmt: skip
            if stream:
                deltas = [d for c in client.chat.completions.create(stream=True, **asked) for ch in c.choices
                          for d in ch.delta.tool_calls or []]  # fmt: skip
                name = next(d.function.name for d in deltas if d.id)
                arguments = "".join(d.function.arguments or "" for d in deltas if d.index == 0)
            else:
                call = client.chat.completions.create(**asked).choices[0].message.tool_calls[0]
                name, arguments = call.function.name, call.function.arguments
            assert name == "get_weather" and isinstance(json.loads(arguments)["city"], str)


@pytest.mark.parametrize("streamed", [False, True])
def test_the_openai_agents_sdk_runs_an_agent_against_it(streamed):
    import asyncio

    import agents

    agents.set_tracing_disabled(True)  # nothing leaves this machine

    @agents.function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return {"Oslo, Norway": "sunny", "Bergen": "rain"}[city]

    with serving(weather_model()) as url:
        client = openai.AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)
        model = agents.OpenAIChatCompletionsModel(model="scripted-weather", openai_client=client)
        agent = agents.Agent(name="weather", instructions="Answer about the weather.", model=model,
                             tools=[get_weather])  # fmt: skip

        async def run() -> str:
            if not streamed:
                return (await agents.Runner.run(agent, "What is the weather?")).final_output
            result = agents.Runner.run_streamed(agent, "What is the weather?")
            async for _ in result.stream_events():
                pass
            return result.final_output

        assert asyncio.run(run()) == "It is rain there."
