"""A toollab model turn as a Chat Completions response, whole or as a stream of chunks in OpenAI's shape: the
role first, text in pieces, each tool call's id and name once and then its arguments in pieces, the finish
reason, usage (when asked with `stream_options.include_usage`), then `[DONE]`."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from toollab.harness.messages import ToolCall
from toollab.harness.model import ModelResponse

PIECE = 24  # characters of text or arguments per streamed delta
_LENGTH = {"length", "max_tokens", "max_new_tokens"}


def completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"


def calls_of(response: ModelResponse) -> list[ToolCall]:
    """The turn's calls that read as calls, each with an id (a model that gave none gets one)."""
    calls = []
    for call in response.message.tool_calls:
        if call.parse_error is None:
            calls.append(call if call.id else call.model_copy(update={"id": f"call_{uuid.uuid4().hex[:24]}"}))
    return calls


def content_of(response: ModelResponse) -> str | None:
    """The turn's text; a call that could not be read is handed back as the text the model wrote."""
    unread = [c for c in response.message.tool_calls if c.parse_error is not None]
    if unread and not response.message.content:
        return response.raw or None
    return response.message.content


def finish_reason(response: ModelResponse, calls: list[ToolCall]) -> str:
    if calls:
        return "tool_calls"
    return "length" if response.stop_reason in _LENGTH else "stop"


def usage(response: ModelResponse) -> dict[str, Any]:
    u = response.usage
    return {
        "prompt_tokens": u.input_tokens,
        "completion_tokens": u.output_tokens,
        "total_tokens": u.total_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cached_input_tokens},
    }


def wire_call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.args_as_json_str()}}


def completion(response: ModelResponse, model: str) -> dict[str, Any]:
    calls = calls_of(response)
    message: dict[str, Any] = {"role": "assistant", "content": content_of(response), "refusal": None}
    if calls:
        message["tool_calls"] = [wire_call(c) for c in calls]
    return {
        "id": completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason(response, calls)}
        ],
        "usage": usage(response),
    }


def pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def chunks(response: ModelResponse, model: str, include_usage: bool) -> Iterator[dict[str, Any]]:
    """The stream's chunks (each becomes one `data:` line)."""
    base = {"id": completion_id(), "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return base | {"choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    calls = calls_of(response)
    yield chunk({"role": "assistant", "content": ""})
    text = content_of(response)
    if text:
        for piece in pieces(text):
            yield chunk({"content": piece})
    for i, call in enumerate(calls):
        head = {"index": i, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        yield chunk({"tool_calls": [head]})
        for piece in pieces(call.args_as_json_str()):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    yield chunk({}, finish_reason(response, calls))
    if include_usage:
        yield base | {"choices": [], "usage": usage(response)}


def sse(chunks_: Iterator[dict[str, Any]]) -> Iterator[str]:
    for c in chunks_:
        yield f"data: {json.dumps(c, ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"
