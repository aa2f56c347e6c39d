"""The `anthropic` backend: the Messages API with `tool_use` and `tool_result` blocks."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from toollab.formats import from_anthropic, to_anthropic, tools_to_anthropic
from toollab.harness.messages import AssistantMessage, Message, Usage
from toollab.harness.request import RequestParams
from toollab.models.http import DEFAULT_RETRY, HttpModel, RetryPolicy

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


def tool_choice(params: RequestParams) -> dict[str, Any]:
    """The request's tool choice as the Messages API spells it ("required" is "any")."""
    if params.tool_choice == "none":
        return {"type": "none"}  # the API takes no parallel setting with "none"
    named = params.named_tool
    choice: dict[str, Any] = (
        {"type": "tool", "name": named} if named else {"type": "any" if params.tool_choice == "required" else "auto"}
    )
    choice["disable_parallel_tool_use"] = not params.parallel
    return choice


class AnthropicModel(HttpModel):
    """Claude models. Key and base URL from the arguments or ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL."""

    path = "/v1/messages"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_tokens: int = 1024,
        temperature: float | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
    ):
        key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY", "")
        super().__init__(
            "anthropic",
            model,
            base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL,
            {"anthropic-version": API_VERSION, **({"x-api-key": key} if key else {})},
            timeout=timeout,
            retry=retry,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
        )
        self.max_tokens = max_tokens
        self.temperature = temperature

    def payload(self, messages: Sequence[Message], params: RequestParams) -> dict[str, Any]:
        system, wire = to_anthropic(messages)
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": wire}
        if system is not None:
            body["system"] = system
        if params.tools:
            body["tools"] = tools_to_anthropic(params.tools)
            body["tool_choice"] = tool_choice(params)
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return body

    def parse(self, data: dict[str, Any]) -> tuple[AssistantMessage, Usage, dict[str, Any]]:
        message = from_anthropic([{"role": "assistant", "content": data["content"]}])[0]
        assert isinstance(message, AssistantMessage)
        raw = data.get("usage") or {}
        cached = int(raw.get("cache_read_input_tokens") or 0)
        usage = Usage(
            input_tokens=int(raw.get("input_tokens") or 0) + cached,  # Anthropic counts cache reads apart
            output_tokens=int(raw.get("output_tokens") or 0),
            cached_input_tokens=cached,
        )
        return message, usage, {"stop_reason": data.get("stop_reason")}
