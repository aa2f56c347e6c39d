"""Messages and tool specs in the OpenAI Chat Completions JSON shape, both ways.

OpenAI JSON -> toollab -> OpenAI JSON is exact. The other way, two things change: call arguments held as a dict
come back as their JSON text (the wire form), and `is_error` on tool results is dropped (the shape has no field
for it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from toollab.harness.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from toollab.tools import ToolSpec


def tools_to_openai(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": s.to_dict()} for s in specs]


def message_to_openai(message: Message) -> dict[str, Any]:
    if isinstance(message, SystemMessage | UserMessage):
        return {"role": message.role, "content": message.content}
    if isinstance(message, ToolResultMessage):
        return {"role": "tool", "tool_call_id": message.call_id, "content": message.content}
    out: dict[str, Any] = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args_as_json_str()}}
            for c in message.tool_calls
        ]
    return out


def to_openai(messages: Iterable[Message]) -> list[dict[str, Any]]:
    return [message_to_openai(m) for m in messages]


def _text(content: Any) -> str:
    """Content as text: a string, or the text parts of a list of content parts."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        parts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text":
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise ValueError(f"unsupported content part {kind!r}: only text is supported")
            parts.append(part.get("text", ""))
        return "".join(parts)
    raise ValueError(f"message content must be a string or a list of parts, got {type(content).__name__}")


def from_openai(messages: Sequence[dict[str, Any]]) -> list[Message]:
    """Parse OpenAI Chat Completions messages; tool results get their tool's name from the matching call."""
    out: list[Message] = []
    names: dict[str, str] = {}
    for i, m in enumerate(messages):
        role = m.get("role")
        if role in ("system", "developer"):
            out.append(SystemMessage(content=_text(m.get("content"))))
        elif role == "user":
            out.append(UserMessage(content=_text(m.get("content"))))
        elif role == "assistant":
            calls = []
            for c in m.get("tool_calls") or []:
                fn = c.get("function") or {}
                calls.append(ToolCall(id=c.get("id", ""), name=fn.get("name", ""), arguments=fn.get("arguments", "")))
                names[calls[-1].id] = calls[-1].name
            content = m.get("content")
            out.append(AssistantMessage(content=None if content is None else _text(content), tool_calls=calls))
        elif role == "tool":
            call_id = m.get("tool_call_id", "")
            out.append(ToolResultMessage(call_id=call_id, name=names.get(call_id, ""), content=_text(m.get("content"))))
        else:
            raise ValueError(f"message {i}: unknown role {role!r}")
    return out
