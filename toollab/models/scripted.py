"""Offline models for tests and demos: a fixed list of turns, or a Python function."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from toollab.harness.messages import AssistantMessage, Message, ToolCall, Usage
from toollab.harness.model import ModelError, ModelResponse
from toollab.harness.request import RequestParams
from toollab.tools import ToolSpec

Turn = ModelResponse | AssistantMessage | ToolCall | list[ToolCall] | str | dict[str, Any]


def call(name: str, arguments: Any = None, id: str = "", /, **kwargs: Any) -> ToolCall:
    """A tool call for a script: `call("add", a=1, b=2)` or `call("add", '{"a": 1}')` (raw text)."""
    return ToolCall(id=id, name=name, arguments=arguments if arguments is not None else kwargs)


def as_response(turn: Turn) -> ModelResponse:
    """Accept the handy spellings of a turn: text, a call, a list of calls, a message or an OpenAI-like dict."""
    if isinstance(turn, ModelResponse):
        return turn
    if isinstance(turn, AssistantMessage):
        return ModelResponse(turn)
    if isinstance(turn, str):
        return ModelResponse(AssistantMessage(content=turn))
    if isinstance(turn, ToolCall):
        return ModelResponse(AssistantMessage(tool_calls=[turn]))
    if isinstance(turn, list):
        return ModelResponse(AssistantMessage(tool_calls=list(turn)))
    if isinstance(turn, dict):
        usage = Usage.model_validate(turn.get("usage", {}))
        message = AssistantMessage.model_validate({k: v for k, v in turn.items() if k != "usage"})
        return ModelResponse(message, usage)
    raise TypeError(f"cannot make a model turn of {type(turn).__name__}")


class ScriptedModel:
    """Replays a list of turns, one per request; runs out with a ModelError (attributed to the harness)."""

    def __init__(self, turns: Iterable[Turn], name: str = "scripted"):
        self.turns = [as_response(t) for t in turns]
        self.name = name
        self.requests = 0

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        if self.requests >= len(self.turns):
            raise ModelError(f"the script has only {len(self.turns)} turns", source="harness")
        self.requests += 1
        return self.turns[self.requests - 1]


class FunctionModel:
    """A model whose turns come from `fn(messages, tools)`, sync or async, returning any `Turn` spelling. `tools`
    are the request's tools; the rest of the request (`RequestParams`) is kept in `last_params`."""

    def __init__(self, fn: Callable[[Sequence[Message], Sequence[ToolSpec]], Any], name: str | None = None):
        self.fn = fn
        self.name = name or f"function:{getattr(fn, '__name__', 'model')}"
        self.last_params: RequestParams | None = None

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        self.last_params = params
        turn = self.fn(messages, params.tools)
        if inspect.isawaitable(turn):
            turn = await turn
        return as_response(turn)
