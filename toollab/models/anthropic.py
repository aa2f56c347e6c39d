"""The `anthropic` backend: the Messages API with `tool_use` and `tool_result` blocks."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from toollab.formats import from_anthropic, to_anthropic, tools_to_anthropic
from toollab.harness.messages import AssistantMessage, Message, Usage
from toollab.harness.model import ModelResponse
from toollab.models.http import DEFAULT_RETRY, HttpTransport, ProviderError, RetryPolicy, estimate_tokens
from toollab.tools import ToolSpec

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


class AnthropicModel:
    """Claude models. Key and base URL from the arguments or ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL."""

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
        self.model = model
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY", "")
        headers = {"anthropic-version": API_VERSION, **({"x-api-key": key} if key else {})}
        self.transport = HttpTransport.for_endpoint(
            "anthropic",
            self.base_url,
            headers,
            timeout=timeout,
            retry=retry,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
        )
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.name = f"anthropic:{model}"

    def payload(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> dict[str, Any]:
        system, wire = to_anthropic(messages)
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": wire}
        if system is not None:
            body["system"] = system
        if tools:
            body["tools"] = tools_to_anthropic(tools)
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return body

    async def request(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        body = self.payload(messages, tools)
        estimate = estimate_tokens(body)
        data, retries = await self.transport.post("/v1/messages", body, estimate)
        try:
            parsed = from_anthropic([{"role": "assistant", "content": data["content"]}])[0]
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError(f"unexpected response shape ({type(exc).__name__}: {exc}): {str(data)[:200]}") from exc
        assert isinstance(parsed, AssistantMessage)
        raw_usage = data.get("usage") or {}
        cached = int(raw_usage.get("cache_read_input_tokens") or 0)
        usage = Usage(
            input_tokens=int(raw_usage.get("input_tokens") or 0) + cached,
            output_tokens=int(raw_usage.get("output_tokens") or 0),
            cached_input_tokens=cached,
        )
        if self.transport.rate_limit is not None:
            self.transport.rate_limit.settle(estimate, usage.total_tokens)
        return ModelResponse(parsed, usage, metadata={"retries": retries, "stop_reason": data.get("stop_reason")})
