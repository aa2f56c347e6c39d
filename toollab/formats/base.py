"""What a wire format is: how tool schemas and a conversation become prompt text, and model text becomes calls.

Parsing is tolerant where models are sloppy (prose around calls, code fences, whitespace, arguments as a string
or an object) and exact where it matters: text that starts a call but cannot be read becomes a call carrying a
`parse_error`, which the harness answers with an error result. Nothing is dropped silently and nothing raises.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from toollab.formats.openai_chat import tools_to_openai
from toollab.harness.arguments import NestedTooDeeply, loads, problem, raw_decode
from toollab.harness.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
)
from toollab.tools import ToolSpec

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def strip_fence(text: str) -> str:
    """The inside of a Markdown code fence, or the text itself."""
    match = _FENCE.match(text)
    return match.group(1) if match else text.strip()


def tools_jsonl(tools: Sequence[ToolSpec]) -> str:
    """Tool specs in the OpenAI function shape, one JSON object a line (how Qwen-family templates list them)."""
    return "\n".join(json.dumps(t, ensure_ascii=False) for t in tools_to_openai(tools))


def name_in(text: str) -> str:
    """A tool name that can still be read from a broken JSON call, or ""."""
    match = re.search(r'"(?:name|tool)"\s*:\s*"([^"]*)"', text)
    return match.group(1) if match else ""


def json_call(
    text: str,
    args_keys: Sequence[str] = ("arguments", "parameters"),
    name_keys: Sequence[str] = ("name",),
    expected: str = "",
) -> ToolCall:
    """A call from a JSON object text such as {"name": ..., "arguments": {...}}; a parse error if it is not one."""
    body = strip_fence(text)
    try:
        data = loads(body)
    except json.JSONDecodeError as exc:
        return ToolCall(
            name=name_in(body), arguments=body, parse_error=f"the call is {problem(exc)}. Expected {expected}"
        )
    return object_call(data, body, args_keys, name_keys, expected)


def object_call(
    data: Any,
    body: str,
    args_keys: Sequence[str] = ("arguments", "parameters"),
    name_keys: Sequence[str] = ("name",),
    expected: str = "",
) -> ToolCall:
    """A call from a decoded JSON value (`body` is its text, kept for the error); a parse error if it is not one."""
    if not isinstance(data, dict):
        return ToolCall(name="", arguments=body, parse_error=f"not a JSON object. Expected {expected}")
    name = next((data[k] for k in name_keys if k in data), None)
    if not isinstance(name, str) or not name:
        return ToolCall(name="", arguments=body, parse_error=f"the call has no tool name. Expected {expected}")
    arguments: Any = next((data[k] for k in args_keys if k in data), {})
    return ToolCall(name=name, arguments=arguments if arguments is not None else {})


@dataclass(frozen=True, slots=True)
class CallEnvelope:
    """How a format wraps each call, as constrained decoding needs it. A call is `begin` (the tool's name put in
    for `{name}`), the arguments, then `end`. `trigger` opens a call: with tool choice "auto" the model may write
    free text first (text without the trigger), and "none" forbids it. `arguments`: "json", a JSON object; or
    "pythonic", keyword arguments of Python literals, and then all of a turn's calls are one block (`begin` and
    `end` are its brackets); or "code", a program (free text without a closing fence), the one call of a turn."""

    trigger: str
    begin: str
    end: str
    arguments: Literal["json", "pythonic", "code"] = "json"

    def opening(self, name: str) -> str:
        """`begin` for one tool (inside a JSON string, so the name is escaped as JSON)."""
        return self.begin.replace("{name}", json.dumps(name, ensure_ascii=False)[1:-1])

    def write(self, call: ToolCall) -> str:
        """One call in this envelope, with JSON arguments."""
        return self.opening(call.name) + json.dumps(call.args_or_raw(), ensure_ascii=False) + self.end


class Format(ABC):
    """One way of writing tool calls and results as text. Subclasses define the pieces; `to_chat` assembles them."""

    name: ClassVar[str] = ""
    result_role: ClassVar[str] = "user"  # the chat role that carries tool results into the prompt
    stop: ClassVar[tuple[str, ...]] = ()  # stop sequences for generation, beyond the model's end-of-turn token
    # How the format opens a tool result in the prompt. A model that writes it is inventing a result: generation
    # stops there (None: results carry no marker of their own).
    result_marker: ClassVar[str | None] = None
    # Set where constrained decoding can write this format's calls.
    envelope: ClassVar[CallEnvelope | None] = None
    # Tool names may keep dots (BFCL's `math.factorial`): the format writes calls as code, where a dot reads as
    # attribute access. Elsewhere names are made `safe_name`s, as providers' function-calling APIs require.
    dotted_names: ClassVar[bool] = False

    @abstractmethod
    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        """Instructions and the tool list, appended to the system prompt."""

    @abstractmethod
    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        """The calls as the model itself would write them."""

    @abstractmethod
    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        """One turn's results, as the prompt shows them to the model."""

    @abstractmethod
    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        """The model's text as prose plus calls (with `raw` kept). Never raises."""

    def render_assistant(self, message: AssistantMessage) -> str:
        if message.raw is not None:  # what the model really wrote: keeps the prompt prefix (and its cache) stable
            return message.raw
        parts = [message.content or "", self.render_calls(message.tool_calls) if message.tool_calls else ""]
        return "\n".join(p for p in parts if p)

    def to_chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> list[dict[str, str]]:
        """The conversation as plain {role, content} messages for a chat template without tool support."""
        out: list[dict[str, str]] = []
        instructions = self.tools_prompt(tools) if tools else ""
        if instructions and not (messages and isinstance(messages[0], SystemMessage)):
            out.append({"role": "system", "content": instructions})
        pending: list[ToolResultMessage] = []
        for m in messages:
            if isinstance(m, ToolResultMessage):
                pending.append(m)
                continue
            if pending:
                out.append({"role": self.result_role, "content": self.render_results(pending)})
                pending = []
            if isinstance(m, SystemMessage):
                out.append(
                    {"role": "system", "content": f"{m.content}\n\n{instructions}" if instructions else m.content}
                )
            elif isinstance(m, AssistantMessage):
                out.append({"role": "assistant", "content": self.render_assistant(m)})
            else:
                out.append({"role": "user", "content": m.content})
        if pending:
            out.append({"role": self.result_role, "content": self.render_results(pending)})
        return out


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]', re.DOTALL)


def bracket_end(text: str, start: int) -> int:
    """Where the bracketed JSON value opening at `start` closes (strings skipped), or the end of the text."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text, start):
        token = match.group()
        if token in ("{", "["):
            depth += 1
        elif token in ("}", "]"):
            depth -= 1
            if depth == 0:
                return match.end()
    return len(text)


def json_objects(text: str) -> list[tuple[int, int, Any]]:
    """Every top-level JSON value that starts with "{" in `text`, as (start, end, value). An object nested too
    deeply to read has its `NestedTooDeeply` error as its value and spans to its closing bracket."""
    found, i = [], text.find("{")
    while i != -1:
        try:
            value, end = raw_decode(text, i)
        except NestedTooDeeply as exc:
            value, end = exc, bracket_end(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        found.append((i, end, value))
        i = text.find("{", end)
    return found


def names_a_call(text: str, names: Sequence[str] = ()) -> bool:
    """Whether JSON text too deep to read still names a call (of one of `names`, when given)."""
    name = name_in(text)
    return bool(name) and (not names or name in names)


def bare_json_calls(
    text: str,
    tools: Sequence[ToolSpec],
    args_keys: Sequence[str] = ("arguments", "parameters"),
) -> tuple[list[ToolCall], str]:
    """Calls written as bare JSON objects naming a known tool (models often drop the markers); and the rest."""
    known = [t.name for t in tools]
    calls, rest, last = [], [], 0
    for start, end, value in json_objects(text):
        if isinstance(value, NestedTooDeeply) and names_a_call(text[start:end], known):
            calls.append(too_deep_call(text[start:end]))
            rest.append(text[last:start])
            last = end
        elif isinstance(value, dict) and value.get("name") in known and any(k in value for k in args_keys):
            arguments = next(value[k] for k in args_keys if k in value)
            calls.append(ToolCall(name=value["name"], arguments=arguments if arguments is not None else {}))
            rest.append(text[last:start])
            last = end
    rest.append(text[last:])
    return calls, "".join(rest)


def too_deep_call(text: str) -> ToolCall:
    """A call whose JSON nests too deeply to read, as a parse error naming what can still be read."""
    return ToolCall(name=name_in(text), arguments=text, parse_error=f"the call is {problem(NestedTooDeeply())}")


def strip_empty_fences(text: str) -> str:
    """Remove code fences left empty once the calls inside them were taken out."""
    return re.sub(r"```[a-zA-Z0-9_-]*\s*```", "", text)


def prose(text: str) -> str | None:
    """What is left of a turn's text once the calls are taken out; None when nothing is."""
    text = text.strip()
    return text or None
