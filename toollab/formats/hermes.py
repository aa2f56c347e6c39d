"""Hermes (Qwen 2.5, Qwen 3, many fine-tunes): `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`."""

from __future__ import annotations

import re
from collections.abc import Sequence

from toollab.formats.base import (
    CallEnvelope,
    Format,
    bare_json_calls,
    json_call,
    prose,
    strip_empty_fences,
    tools_jsonl,
)
from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage
from toollab.tools import ToolSpec

# A <tool_call> block, closed or cut off at the end of the text. Qwen3-Coder wraps its calls in the same block.
TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
EXPECTED = '<tool_call>{"name": "<tool name>", "arguments": {<arguments as JSON>}}</tool_call>'
# The envelope of Qwen's chat templates (and of xgrammar's built-in "qwen_3" structural tag), byte for byte.
ENVELOPE = CallEnvelope(
    trigger="<tool_call>", begin='<tool_call>\n{"name": "{name}", "arguments": ', end="}\n</tool_call>"
)


def tool_responses(results: Sequence[ToolResultMessage]) -> str:
    """Results as Qwen-family templates show them (Hermes and Qwen3-Coder alike)."""
    return "\n".join(f"<tool_response>\n{r.content}\n</tool_response>" for r in results)


class Hermes(Format):
    name = "hermes"
    envelope = ENVELOPE
    result_marker = "<tool_response>"

    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        listing = tools_jsonl(tools)
        return (
            "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n"
            f"<tools>\n{listing}\n</tools>\n\n"
            "For each function call, return a json object with function name and arguments within "
            "<tool_call></tool_call> XML tags:\n"
            '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
        )

    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        return "\n".join(ENVELOPE.write(c) for c in calls)

    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        return tool_responses(results)

    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        calls = [json_call(m.group(1), expected=EXPECTED) for m in TOOL_CALL_BLOCK.finditer(text)]
        rest = TOOL_CALL_BLOCK.sub("", text)
        if not calls:  # a call written without its tags, e.g. in a code fence
            calls, rest = bare_json_calls(text, tools)
        return AssistantMessage(content=prose(strip_empty_fences(rest)), tool_calls=calls, raw=text)
