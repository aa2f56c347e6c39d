"""Qwen3-Coder XML: `<tool_call><function=NAME><parameter=P>value</parameter></function></tool_call>`.

Parameter values are text; a value is decoded as JSON unless the tool's schema says the parameter is a string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toollab.formats.base import Format, prose, tools_jsonl
from toollab.formats.hermes import TOOL_CALL_BLOCK, tool_responses
from toollab.harness.arguments import NestedTooDeeply, loads, problem
from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage
from toollab.tools import ToolSpec

_FUNCTION = re.compile(r"^\s*<function=([^>\n]*)>(.*?)(?:</function>\s*$|$)", re.DOTALL)
_PARAM = re.compile(r"<parameter=([^>\n]*)>\n?(.*?)\n?</parameter>", re.DOTALL)
EXPECTED = "<tool_call><function=NAME><parameter=NAME>value</parameter></function></tool_call>"


def _is_string(tools: Sequence[ToolSpec], tool: str, param: str) -> bool:
    for t in tools:
        if t.name == tool:
            schema = t.parameters.get("properties", {}).get(param, {})
            return isinstance(schema, dict) and schema.get("type") == "string"
    return False


def _value(text: str, as_string: bool) -> Any:
    """A parameter's value: JSON where it reads as JSON, else the text. Raises NestedTooDeeply."""
    if as_string:
        return text
    try:
        return loads(text)
    except NestedTooDeeply:
        raise
    except json.JSONDecodeError:
        return text


class Qwen3Coder(Format):
    name = "qwen3_coder"
    result_marker = "<tool_response>"

    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        listing = tools_jsonl(tools)
        return (
            "# Tools\n\nYou have access to the following functions:\n\n"
            f"<tools>\n{listing}\n</tools>\n\n"
            "If you choose to call a function, reply in the following format:\n"
            "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n"
            "</parameter>\n</function>\n</tool_call>\n\n"
            "Parameter values that are not strings are written as JSON."
        )

    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        out = []
        for c in calls:
            args = c.args_or_raw()
            params = "".join(
                f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}\n</parameter>\n"
                for k, v in (args.items() if isinstance(args, dict) else [])
            )
            out.append(f"<tool_call>\n<function={c.name}>\n{params}</function>\n</tool_call>")
        return "\n".join(out)

    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        return tool_responses(results)

    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        calls = []
        for m in TOOL_CALL_BLOCK.finditer(text):
            body = m.group(1)
            fn = _FUNCTION.match(body)
            if not fn or not fn.group(1).strip():
                calls.append(
                    ToolCall(name="", arguments=body, parse_error=f"no <function=NAME> block. Expected {EXPECTED}")
                )
                continue
            name = fn.group(1).strip()
            inner = fn.group(2)
            try:
                params = {
                    p.group(1).strip(): _value(p.group(2), _is_string(tools, name, p.group(1).strip()))
                    for p in _PARAM.finditer(inner)
                }
            except NestedTooDeeply as exc:
                error = f"a parameter value is {problem(exc)}. Expected {EXPECTED}"
                calls.append(ToolCall(name=name, arguments=inner, parse_error=error))
                continue
            leftover = _PARAM.sub("", inner).strip()
            if leftover:
                calls.append(
                    ToolCall(
                        name=name,
                        arguments=inner,
                        parse_error=f"text outside <parameter> blocks: {leftover[:80]!r}. Expected {EXPECTED}",
                    )
                )
            else:
                calls.append(ToolCall(name=name, arguments=params))
        return AssistantMessage(content=prose(TOOL_CALL_BLOCK.sub("", text)), tool_calls=calls, raw=text)
