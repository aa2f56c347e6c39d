"""A plain text protocol for any model: `CALL {"tool": ..., "args": {...}}` / `RESULT {...}` / `ANSWER: ...`."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from toollab.formats.base import CallEnvelope, Format, json_call, prose
from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage
from toollab.tools import ToolSpec

EXPECTED = 'CALL {"tool": "<tool name>", "args": {<arguments>}}'
ENVELOPE = CallEnvelope(trigger="CALL ", begin='CALL {"tool": "{name}", "args": ', end="}")
# a line starting with CALL, or CALL {...} after prose on the same line ("I will CALL her" is prose)
_CALL = re.compile(r"(?:^[ \t]*|(?<=\s)(?=CALL[ \t:]*\{))CALL\b[ \t:]*(.*)$", re.MULTILINE)
_ANSWER = re.compile(r"^[ \t]*ANSWER[ \t]*:[ \t]*(.*)", re.MULTILINE | re.DOTALL)


class TextProtocol(Format):
    name = "text"
    envelope = ENVELOPE
    result_marker = "RESULT {"

    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        listing = "\n".join(
            f"- {t.name}: {t.description} Arguments (JSON Schema): {json.dumps(t.parameters, ensure_ascii=False)}"
            for t in tools
        )
        return (
            f"You can use these tools:\n{listing}\n\n"
            f"To use a tool, write one line:\n{EXPECTED}\n"
            'You will then see the result as: RESULT {"tool": ..., "output": ...}\n'
            "When you know the final answer, write one line:\nANSWER: <the answer>"
        )

    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        return "\n".join(ENVELOPE.write(c) for c in calls)

    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        return "\n".join(
            "RESULT "
            + json.dumps(
                {"tool": r.name, "output": r.content, **({"error": True} if r.is_error else {})}, ensure_ascii=False
            )
            for r in results
        )

    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        answer = _ANSWER.search(text)
        head = text[: answer.start()] if answer else text
        calls: list[ToolCall] = [
            json_call(m.group(1), args_keys=("args", "arguments"), name_keys=("tool", "name"), expected=EXPECTED)
            for m in _CALL.finditer(head)
        ]
        content = answer.group(1).strip() if answer else prose(_CALL.sub("", head))
        return AssistantMessage(content=content, tool_calls=calls, raw=text)
