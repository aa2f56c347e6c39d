"""Messages and tool specs in the Anthropic Messages JSON shape, both ways.

System messages become the top-level `system` text. Tool results travel as `tool_result` blocks in a user
message, together with any user text that follows them (Anthropic requires results first in that message).
toollab -> Anthropic -> toollab is exact for calls whose arguments are objects; arguments held as text are
decoded (text that is not a JSON object is kept under the key `_raw_arguments`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from toollab.harness.arguments import UnreadableArguments
from toollab.harness.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from toollab.tools import ToolSpec


def tools_to_anthropic(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    return [{"name": s.name, "description": s.description, "input_schema": s.parameters} for s in specs]


def _input(call: ToolCall) -> dict[str, Any]:
    """The call's arguments as the object `tool_use` requires; arguments that are not one are kept as they are."""
    try:
        return call.args_as_dict()
    except UnreadableArguments:
        return {"_raw_arguments": call.arguments}


def to_anthropic(messages: Iterable[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """(system, messages) for the Messages API."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, SystemMessage):
            system.append(m.content)
        elif isinstance(m, AssistantMessage):
            blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c)} for c in m.tool_calls]
            # text-only turns as a plain string; a turn with neither text nor calls as an empty block list
            plain = m.content is not None and not m.tool_calls
            out.append({"role": "assistant", "content": m.content if plain else blocks})
        elif isinstance(m, ToolResultMessage):
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.call_id, "content": m.content}
            if m.is_error:
                block["is_error"] = True
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        else:  # user text after tool results joins their message
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append({"type": "text", "text": m.content})
            else:
                out.append({"role": "user", "content": m.content})
    return ("\n\n".join(system) if system else None), out


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "text":
                raise ValueError(f"unsupported block inside a tool result: {block!r:.60}")
            texts.append(block.get("text", ""))
        return "".join(texts)
    return "" if content is None else str(content)


def from_anthropic(
    messages: Sequence[dict[str, Any]], system: str | list[dict[str, Any]] | None = None
) -> list[Message]:
    out: list[Message] = []
    if system is not None:
        out.append(SystemMessage(content=_block_text(system)))
    names: dict[str, str] = {}
    for i, m in enumerate(messages):
        role, content = m.get("role"), m.get("content")
        if role not in ("user", "assistant"):
            raise ValueError(f"message {i}: unknown role {role!r}")
        if isinstance(content, str):
            out.append(UserMessage(content=content) if role == "user" else AssistantMessage(content=content))
            continue
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in content or []:
            kind = block.get("type")
            if kind == "text":
                texts.append(block.get("text", ""))
            elif kind == "tool_use" and role == "assistant":
                calls.append(ToolCall(id=block["id"], name=block["name"], arguments=block.get("input") or {}))
                names[block["id"]] = block["name"]
            elif kind == "tool_result" and role == "user":
                call_id = block["tool_use_id"]
                is_error = bool(block.get("is_error", False))
                out.append(
                    ToolResultMessage(
                        call_id=call_id,
                        name=names.get(call_id, ""),
                        content=_block_text(block.get("content")),
                        is_error=is_error,
                    )
                )
            else:
                raise ValueError(f"message {i}: unsupported {role} block type {kind!r}")
        if role == "assistant":
            out.append(AssistantMessage(content="".join(texts) if texts else None, tool_calls=calls))
        elif texts:
            out.append(UserMessage(content="".join(texts)))
    return out
