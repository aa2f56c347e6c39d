"""Mistral: `[TOOL_CALLS][{"name": ..., "arguments": {...}}]` and the newer `[TOOL_CALLS]NAME[ARGS]{...}`."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from toollab.formats.base import Format, json_call, name_in, object_call, prose
from toollab.formats.openai_chat import tools_to_openai
from toollab.harness.arguments import problem, raw_decode
from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage
from toollab.tools import ToolSpec

TAG = "[TOOL_CALLS]"
EXPECTED = '[TOOL_CALLS][{"name": "<tool name>", "arguments": {...}}] or [TOOL_CALLS]<tool name>[ARGS]{...}'
_NAMED = re.compile(r"\s*([A-Za-z0-9_.\-]+)\[ARGS\]")


class Mistral(Format):
    name = "mistral"
    result_marker = "[TOOL_RESULTS]"

    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        listing = json.dumps(tools_to_openai(tools), ensure_ascii=False)
        return (
            f"[AVAILABLE_TOOLS]{listing}[/AVAILABLE_TOOLS]\n"
            f'To call tools, answer with {TAG} followed by a JSON list: {TAG}[{{"name": "<tool name>", '
            '"arguments": {<arguments>}}]'
        )

    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        items = [{"name": c.name, "arguments": c.args_or_raw()} for c in calls]
        return TAG + json.dumps(items, ensure_ascii=False)

    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        return "\n".join(
            "[TOOL_RESULTS]"
            + json.dumps({"call_id": r.call_id, "content": r.content}, ensure_ascii=False)
            + "[/TOOL_RESULTS]"
            for r in results
        )

    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        if TAG not in text:
            return AssistantMessage(content=prose(text), raw=text)
        content, _, rest = text.partition(TAG)
        calls: list[ToolCall] = []
        for chunk in rest.split(TAG):
            named = _NAMED.match(chunk)
            if named:  # v11+: NAME[ARGS]{...}
                body = chunk[named.end() :].strip()
                try:
                    arguments, end = raw_decode(body)
                except json.JSONDecodeError as exc:
                    error = f"the arguments are {problem(exc)}. Expected {EXPECTED}"
                    calls.append(ToolCall(name=named.group(1), arguments=body, parse_error=error))
                    continue
                calls.append(ToolCall(name=named.group(1), arguments=arguments))
                content += body[end:]
                continue
            body = chunk.strip()
            try:
                items, end = raw_decode(body)
            except json.JSONDecodeError as exc:
                if body.startswith("{"):
                    calls.append(json_call(body, expected=EXPECTED))
                else:
                    error = f"the call list is {problem(exc)}. Expected {EXPECTED}"
                    calls.append(ToolCall(name=name_in(body), arguments=body, parse_error=error))
                continue
            for item in items if isinstance(items, list) else [items]:
                calls.append(object_call(item, json.dumps(item, ensure_ascii=False), expected=EXPECTED))
            content += body[end:]
        return AssistantMessage(content=prose(content), tool_calls=calls, raw=text)
