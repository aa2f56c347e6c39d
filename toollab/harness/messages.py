"""Typed conversation messages. Tool calls keep their arguments exactly as the model sent them."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from toollab.harness.arguments import UnreadableArguments, arguments_object
from toollab.tools.content import ContentPart


class Usage(BaseModel):
    """Tokens of one model request (or a sum of them). `cached_input_tokens` is part of `input_tokens`."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
        )


class ToolCall(BaseModel):
    """A call the model proposed. `arguments` is a dict, or the raw string the model wrote (parsed at dispatch).

    `parse_error` is set by a wire format when the model's text could not be read as a call: the harness then
    answers the call with that error instead of running anything.
    """

    model_config = ConfigDict(frozen=True)

    id: str = ""
    name: str
    arguments: Any = Field(default_factory=dict)
    parse_error: str | None = None

    def args_as_dict(self) -> dict[str, Any]:
        """The arguments as an object, whatever form the model sent them in (an object, JSON text, JSON text
        encoded twice, nothing). Raises `UnreadableArguments` when they are not an object or nest too deeply."""
        return arguments_object(self.arguments)

    def args_as_json_str(self) -> str:
        """The arguments as JSON text: text as the model wrote it, anything else encoded (the OpenAI wire form)."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps({} if self.arguments is None else self.arguments, ensure_ascii=False)

    def args_or_raw(self) -> Any:
        """The arguments as an object when they read as one, else as the model wrote them (for writing a call
        back into a prompt, or reading what a model meant)."""
        try:
            return self.args_as_dict()
        except UnreadableArguments:
            return self.arguments


class SystemMessage(BaseModel):
    role: Literal["system"] = "system"
    content: str


class UserMessage(BaseModel):
    role: Literal["user"] = "user"
    content: str


class AssistantMessage(BaseModel):
    """An assistant turn. `raw` is the text a text-generating model wrote, replayed verbatim in later prompts."""

    role: Literal["assistant"] = "assistant"
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    raw: str | None = None


class ToolResultMessage(BaseModel):
    """The result of one tool call. `error_kind` says why it failed (see `toollab.harness.errors`).

    `content` is what a text-only model reads; `parts` keeps what a tool returned when that was more than text
    (images, audio, embedded resources: `toollab.tools.content`), and `content` then describes each of them."""

    role: Literal["tool"] = "tool"
    call_id: str
    name: str
    content: str
    is_error: bool = False
    error_kind: str | None = None
    # what the harness noticed in the result (`toollab.harness.injection`); left out of logs when empty
    flags: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    parts: list[ContentPart] = Field(default_factory=list, exclude_if=lambda v: not v)


Message = Annotated[SystemMessage | UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


def last_request(messages: Sequence[Message]) -> str:
    """What the user asked last ("" when nothing)."""
    return next((m.content for m in reversed(messages) if isinstance(m, UserMessage)), "")


_QUOTED = re.compile(r"""(?<!\w)'[^'\n]+'(?!\w)|"[^"\n]+"|“[^”\n]+”""")


def without_quoted(request: str) -> str:
    """The request with each quoted span replaced by `'…'`: quoted text is what a tool is to act on, not what is
    asked ("How many words does '<a long sentence>' have?" reads, to MiniLM, like the sentence). Apostrophes
    inside words (what's, Bob's) are not quotes."""
    text = request.strip()
    if len(text) > 2 and (text[0], text[-1]) in (('"', '"'), ("'", "'"), ("“", "”")):
        text = text[1:-1]  # a request quoted whole (BFCL writes many so) is the request, not data
    masked = _QUOTED.sub("'…'", text)
    return masked if len(masked.split()) >= 3 else text  # what is left must still ask something


# A name: capitalised words (the first not all capitals: "BMI" says what is asked; nor a month or a day: a date is)
# that do not open a sentence, joined by "of", "on", "de", "la", "and" or "&" ("Meals on Wheels", "Spoke & Chain").
_CALENDAR = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
)
_NAME = re.compile(
    rf"(?<!^)(?<![.?!:]\s)(?<![\w'-])(?!(?:{_CALENDAR})\b)[A-Z][a-z][\w'&-]*"
    rf"(?:\s+(?:(?:of|on|de|la|and|&)\s+)?(?!(?:{_CALENDAR})\b)[A-Z0-9][\w'-]*)*"
)


def without_names(request: str) -> str:
    """The request without the names it gives: a name is what a tool is to act on, not what is asked ("How close is
    the Library Renewal and Clean Rivers campaign to its goal?" reads, to MiniLM, like the names). What is left
    must still ask something (three words), else the request is kept whole."""
    left = re.sub(r"\s{2,}", " ", _NAME.sub("", request)).strip()
    return left if len(re.findall(r"\w+", left)) >= 3 else request


def results_since_request(messages: Sequence[Message]) -> str:
    """The successful tool results since the user last asked: with the request, the text a turn's values should
    come from (an error result says what went wrong, not what to answer)."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    results = [m.content for m in messages[start + 1 :] if isinstance(m, ToolResultMessage) and not m.is_error]
    return "\n".join(results)


MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)
MESSAGES_ADAPTER: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
