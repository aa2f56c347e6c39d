"""The `openai` backend: any OpenAI-compatible Chat Completions server (OpenAI, vLLM, llama.cpp, Ollama)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from toollab.formats import from_openai, to_openai, tools_to_openai
from toollab.harness.messages import AssistantMessage, Message, Usage
from toollab.harness.request import RequestParams
from toollab.models.http import DEFAULT_RETRY, HttpModel, RetryPolicy

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIModel(HttpModel):
    """Chat Completions with native `tools`. Base URL and key from the arguments or OPENAI_BASE_URL and
    OPENAI_API_KEY. A rate limit is shared with every other model naming the same endpoint."""

    path = "/chat/completions"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        extra_body: dict[str, Any] | None = None,
    ):
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        super().__init__(
            "openai",
            model,
            base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
            {"Authorization": f"Bearer {key}"} if key else {},
            timeout=timeout,
            retry=retry,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
        )
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.extra_body = extra_body or {}

    def payload(self, messages: Sequence[Message], params: RequestParams) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": to_openai(messages), **self.extra_body}
        if params.tools:
            body["tools"] = tools_to_openai(params.tools)
            named = params.named_tool
            body["tool_choice"] = {"type": "function", "function": {"name": named}} if named else params.tool_choice
            body["parallel_tool_calls"] = params.parallel
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return body

    def parse(self, data: dict[str, Any]) -> tuple[AssistantMessage, Usage, dict[str, Any]]:
        """Arguments stay as sent: JSON text (as OpenAI sends) or an object (as some compatible servers do);
        malformed JSON is answered at dispatch, not here."""
        choice = data["choices"][0]
        message = from_openai([{**choice["message"], "role": "assistant"}])[0]
        assert isinstance(message, AssistantMessage)
        raw = data.get("usage") or {}
        details = raw.get("prompt_tokens_details") or {}
        usage = Usage(
            input_tokens=int(raw.get("prompt_tokens") or 0),
            output_tokens=int(raw.get("completion_tokens") or 0),
            cached_input_tokens=int(details.get("cached_tokens") or 0),
        )
        return message, usage, {"finish_reason": choice.get("finish_reason")}
