"""The same OpenAI Chat Completions checks against `toollab serve` and llama.cpp's server (llama-cpp-python with
`chatml-function-calling`), both serving the embedded SmolLM2-135M GGUF on 127.0.0.1, through the official
`openai` SDK: which of them each server passes.

    python benchmarks/serve_conformance.py            # needs the bench extra (llama-cpp-python[server])

Each check is one request (or one streamed request) and a rule about the answer that a client relies on: a
status other than 200 fails it, with the error shown. A server that dies during a check is restarted for the
next one, and the check says so. The checks do not judge the model's choices (which city it
asks about), only the protocol: calls that parse and fit their schema, the tool choice obeyed, results read back
into the prompt, streaming in OpenAI's shape, usage.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import jsonschema
import openai
from rich.console import Console
from rich.table import Table

PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city.",
                                             "parameters": PARAMETERS}}  # fmt: skip
TIME = {"type": "function", "function": {"name": "get_time", "description": "The local time in a city.",
                                          "parameters": PARAMETERS}}  # fmt: skip
ASK = [{"role": "user", "content": "What is the weather in Oslo?"}]
Check = Callable[[openai.OpenAI], str | None]  # None: passed; else what went wrong


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fits(call: Any, names: set[str]) -> str | None:
    if call.function.name not in names:
        return f"called {call.function.name!r}"
    try:
        jsonschema.validate(json.loads(call.function.arguments), PARAMETERS)
    except (ValueError, jsonschema.ValidationError) as exc:
        return f"arguments {call.function.arguments!r}: {str(exc).splitlines()[0]}"
    return None


def create(client: openai.OpenAI, **kwargs: Any) -> Any:
    return client.chat.completions.create(model="smollm2", max_tokens=48, temperature=0, **kwargs)


def required_call(client: openai.OpenAI) -> str | None:
    message = create(client, messages=ASK, tools=[WEATHER], tool_choice="required").choices[0].message
    return fits(message.tool_calls[0], {"get_weather"}) if message.tool_calls else "no tool call"


def named_call(client: openai.OpenAI) -> str | None:
    choice = {"type": "function", "function": {"name": "get_time"}}
    message = create(client, messages=ASK, tools=[WEATHER, TIME], tool_choice=choice).choices[0].message
    return fits(message.tool_calls[0], {"get_time"}) if message.tool_calls else "no tool call"


def auto_parses(client: openai.OpenAI) -> str | None:
    message = create(client, messages=ASK, tools=[WEATHER], tool_choice="auto").choices[0].message
    problems = [p for c in message.tool_calls or [] if (p := fits(c, {"get_weather"}))]
    return problems[0] if problems else None if (message.tool_calls or message.content) else "empty answer"


def none_means_text(client: openai.OpenAI) -> str | None:
    message = create(client, messages=ASK, tools=[WEATHER], tool_choice="none").choices[0].message
    return f"{len(message.tool_calls)} tool calls" if message.tool_calls else None


def one_call_when_not_parallel(client: openai.OpenAI) -> str | None:
    two = [{"role": "user", "content": "What is the weather in Oslo and in Bergen?"}]
    message = create(client, messages=two, tools=[WEATHER], tool_choice="required", parallel_tool_calls=False)
    calls = message.choices[0].message.tool_calls or []
    return None if len(calls) == 1 else f"{len(calls)} calls"


def history(result: str, content: str | None = None) -> list[dict[str, Any]]:
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
    return [*ASK, {"role": "assistant", "content": content, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": result}]  # fmt: skip


def null_content_and_result(client: openai.OpenAI) -> str | None:
    answer = create(client, messages=history("Sunny, 21 C"), tools=[WEATHER]).choices[0]
    return None if answer.message.content or answer.message.tool_calls else "empty answer"


def result_reaches_prompt(client: openai.OpenAI) -> str | None:
    """Does a longer tool result make a longer prompt? (content "" rather than null: this checks the result)"""
    short = create(client, messages=history("Sunny.", ""), tools=[WEATHER]).usage.prompt_tokens
    long = create(client, messages=history("Sunny. " * 40, ""), tools=[WEATHER]).usage.prompt_tokens
    return None if long > short + 40 else f"prompt_tokens {short} and {long}: the result is not in the prompt"


def streamed(client: openai.OpenAI, **kwargs: Any) -> list[Any]:
    return list(create(client, messages=ASK, stream=True, **kwargs))


def stream_required(client: openai.OpenAI) -> str | None:
    calls: dict[int, dict[str, Any]] = {}
    for chunk in streamed(client, tools=[WEATHER], tool_choice="required"):
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            entry = calls.setdefault(delta.index, {"ids": 0, "names": 0, "name": "", "arguments": ""})
            entry["ids"] += bool(delta.id)
            if delta.function and delta.function.name:
                entry["names"] += 1
                entry["name"] = delta.function.name
            if delta.function and delta.function.arguments:
                entry["arguments"] += delta.function.arguments
    if not calls:
        return "no tool call streamed"
    for entry in calls.values():
        if entry["ids"] != 1 or entry["names"] != 1:
            return f"id sent {entry['ids']} times, name {entry['names']} times"
        call = type("C", (), {"function": type("F", (), {"name": entry["name"], "arguments": entry["arguments"]})})
        if problem := fits(call, {"get_weather"}):
            return problem
    return None


def stream_auto(client: openai.OpenAI) -> str | None:
    chunks = streamed(client, tools=[WEATHER], tool_choice="auto")
    sent = any(c.choices and (c.choices[0].delta.content or c.choices[0].delta.tool_calls) for c in chunks)
    return None if sent else "nothing streamed"


def stream_usage(client: openai.OpenAI) -> str | None:
    chunks = streamed(client, stream_options={"include_usage": True})
    return None if any(getattr(c, "usage", None) for c in chunks) else "no usage chunk"


def models_listed(client: openai.OpenAI) -> str | None:
    return None if list(client.models.list()) else "no model listed"


def bad_role_is_400(client: openai.OpenAI) -> str | None:
    try:
        create(client, messages=[{"role": "wizard", "content": "hi"}])
    except openai.BadRequestError:
        return None
    except openai.APIStatusError as exc:
        return f"HTTP {exc.status_code}"
    return "accepted"


CHECKS: dict[str, Check] = {
    "tool_choice required: a call that fits": required_call,
    "tool_choice named: that function": named_call,
    "tool_choice auto: calls parse, or text": auto_parses,
    "tool_choice none: no call": none_means_text,
    "parallel_tool_calls false: one call": one_call_when_not_parallel,
    "assistant content null + tool result": null_content_and_result,
    "the tool result is in the prompt": result_reaches_prompt,
    "stream, required: id and name once, arguments fit": stream_required,
    "stream, auto: something is sent": stream_auto,
    "stream: usage with include_usage": stream_usage,
    "/v1/models": models_listed,
    "unknown role: 400": bad_role_is_400,
}


def run_check(check: Check, url: str) -> str | None:
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=120)
    try:
        return check(client)
    except openai.APIStatusError as exc:
        return f"HTTP {exc.status_code}"
    except Exception as exc:  # a malformed answer the SDK could not read is a failure of the server
        return f"{type(exc).__name__}: {str(exc)[:60]}"


def start(command: list[str], port: int) -> subprocess.Popen[bytes]:
    env = os.environ | {"OMP_NUM_THREADS": "2"}
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return server
        except httpx.TransportError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError(f"{command[2]} did not come up")


def servers(gguf: str) -> dict[str, Callable[[int], list[str]]]:
    return {
        "toollab serve": lambda port: [sys.executable, "-m", "toollab", "serve", "--model", "local", "--adapter",
                                       "none", "--port", str(port)],
        "llama.cpp (llama-cpp-python)": lambda port: [sys.executable, "-m", "llama_cpp.server", "--model", gguf,
                                                      "--chat_format", "chatml-function-calling", "--host",
                                                      "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
    }  # fmt: skip


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    from toollab.models.local_weights import embedded_gguf

    results: dict[str, dict[str, str | None]] = {}
    for name, command in servers(str(embedded_gguf())).items():
        port = free_port()
        server = start(command(port), port)
        results[name] = {}
        try:
            for check_name, check in CHECKS.items():
                if server.poll() is not None:  # a check crashed it: the next one gets a fresh server
                    server = start(command(port), port)
                outcome = run_check(check, f"http://127.0.0.1:{port}/v1")
                time.sleep(0.5)
                if server.poll() is not None:
                    outcome = f"{outcome or 'answered'}, then the server died (exit {server.returncode})"
                results[name][check_name] = outcome
        finally:
            server.kill()
            server.wait()
    table = Table(title="Chat Completions checks, the embedded SmolLM2-135M GGUF (bare weights) behind each server")
    table.add_column("check")
    for name in results:
        table.add_column(name)
    for check in CHECKS:
        table.add_row(check, *("pass" if r[check] is None else f"FAIL {r[check]}" for r in results.values()))
    table.add_row("passed", *(f"{sum(v is None for v in r.values())} of {len(CHECKS)}" for r in results.values()))
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
