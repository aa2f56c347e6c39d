"""Llama 3.x JSON calls: `{"name": ..., "parameters": {...}}`, optionally after `<|python_tag|>`, joined by `; `."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from toollab.formats.base import Format, json_objects, names_a_call, object_call, prose, too_deep_call
from toollab.harness.arguments import NestedTooDeeply
from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage
from toollab.tools import ToolSpec

PYTHON_TAG = "<|python_tag|>"
EXPECTED = '{"name": "<tool name>", "parameters": {<arguments>}}'
_SEPARATOR = re.compile(r"^\s*;|;\s*$")


class Llama3Json(Format):
    name = "llama3_json"

    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        listing = "\n\n".join(json.dumps(t.to_dict(), ensure_ascii=False) for t in tools)
        return (
            "Given the following functions, please respond with a JSON for a function call with its proper "
            "arguments that best answers the given prompt.\n\n"
            f'Respond in the format {EXPECTED}. Do not use variables. Separate several calls with "; ".\n\n'
            f"{listing}"
        )

    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        return "; ".join(json.dumps({"name": c.name, "parameters": c.args_or_raw()}, ensure_ascii=False) for c in calls)

    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        return "\n".join(r.content for r in results)

    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        tagged = PYTHON_TAG in text
        before, _, body = text.partition(PYTHON_TAG) if tagged else ("", "", text)
        calls, rest, last = [], [before], 0
        for start, end, value in json_objects(body):
            if isinstance(value, NestedTooDeeply) and names_a_call(body[start:end]):
                calls.append(too_deep_call(body[start:end]))
            elif isinstance(value, dict) and "name" in value and ("parameters" in value or "arguments" in value):
                calls.append(object_call(value, body[start:end], expected=EXPECTED))
            else:
                continue
            rest.append(_SEPARATOR.sub("", body[last:start]))  # "; " between calls is not prose
            last = end
        rest.append(_SEPARATOR.sub("", body[last:]))
        leftover = "".join(rest)
        if tagged and not calls and body.strip():
            calls.append(
                ToolCall(
                    name="", arguments=body.strip(), parse_error=f"no JSON call after {PYTHON_TAG}. Expected {EXPECTED}"
                )
            )
            leftover = before
        return AssistantMessage(content=prose(leftover), tool_calls=calls, raw=text)
