"""Reading a Chat Completions request into toollab's terms, with a 400 that says what was wrong for anything
that does not fit (OpenAI's error shape)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from toollab.formats.openai_chat import from_openai
from toollab.harness.messages import Message
from toollab.harness.request import RequestParams
from toollab.tools import ToolSpec


class BadRequest(Exception):
    """A request the server refuses with 400; `param` names the field, as OpenAI's errors do."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


class FunctionParam(BaseModel):
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ToolParam(BaseModel):
    type: Literal["function"]
    function: FunctionParam


class StreamOptions(BaseModel):
    include_usage: bool = False


class ChatRequest(BaseModel):
    """The fields this server reads. Sampling fields (temperature, top_p, seed, ...) are accepted and left to the
    model's own settings; a local model decodes greedily."""

    model_config = ConfigDict(extra="allow")

    model: str
    messages: list[dict[str, Any]]
    tools: list[ToolParam] | None = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int | None = None
    stop: str | list[str] | None = None


def tool_choice(value: str | dict[str, Any] | None, names: list[str]) -> str:
    """OpenAI's tool_choice as toollab's: "auto", "required", "none", or a tool's name."""
    if value is None:
        return "auto" if names else "none"
    if isinstance(value, str):
        if value not in ("auto", "required", "none"):
            raise BadRequest(f"tool_choice must be auto, required, none or a named function, not {value!r}",
                             "tool_choice")  # fmt: skip
        if value == "required" and not names:
            raise BadRequest("tool_choice is required but no tools were given", "tool_choice")
        return value
    name = (value.get("function") or {}).get("name") if value.get("type") == "function" else None
    if not isinstance(name, str):
        raise BadRequest('a named tool_choice is {"type": "function", "function": {"name": ...}}', "tool_choice")
    if name not in names:
        raise BadRequest(f"tool_choice names {name!r}, which is not among the tools ({', '.join(names)})",
                         "tool_choice")  # fmt: skip
    return name


def read(request: ChatRequest) -> tuple[list[Message], RequestParams]:
    """The conversation and the request parameters; raises BadRequest for what cannot be served."""
    if not request.messages:
        raise BadRequest("messages must hold at least one message", "messages")
    if request.n not in (None, 1):
        raise BadRequest(f"n must be 1: this server writes one choice per request, not {request.n}", "n")
    if request.stop:  # silently ignoring them would hand back text past where the client asked to stop
        raise BadRequest("stop sequences are not supported; leave stop out", "stop")
    try:
        messages = from_openai(request.messages)
    except (ValueError, TypeError, AttributeError) as exc:
        raise BadRequest(f"messages: {exc}", "messages") from None
    specs = [ToolSpec(t.function.name, t.function.description, t.function.parameters) for t in request.tools or []]
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise BadRequest("two tools have the same name", "tools")
    choice = tool_choice(request.tool_choice, names)
    parallel = True if request.parallel_tool_calls is None else request.parallel_tool_calls
    return messages, RequestParams(tuple(specs), choice if specs else "auto", parallel)
