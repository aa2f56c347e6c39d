"""DeepSeek V3 special tool-call tokens (V3 with a fenced JSON body, and V3.1's plainer form)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from toollab.formats.base import Format, prose, strip_fence, tools_jsonl
from toollab.harness.arguments import loads, problem
from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage
from toollab.tools import ToolSpec

CALLS_BEGIN, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_BEGIN, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
OUTPUT_BEGIN, OUTPUT_END = "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"
OUTPUTS_BEGIN, OUTPUTS_END = "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>"
EXPECTED = f"{CALLS_BEGIN}{CALL_BEGIN}function{SEP}NAME\\n```json\\n{{...}}\\n```{CALL_END}{CALLS_END}"
_CALL = re.compile(re.escape(CALL_BEGIN) + r"(.*?)(?:" + re.escape(CALL_END) + r"|$)", re.DOTALL)


class DeepSeekV3(Format):
    name = "deepseek_v3"
    result_marker = "<｜tool▁output"  # opens both the results block and each result

    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        listing = tools_jsonl(tools)
        return (
            "## Tools\nYou have access to the following tools:\n" + listing + "\n\n"
            "To call tools, write:\n" + f"{CALLS_BEGIN}{CALL_BEGIN}function{SEP}<tool name>\n```json\n"
            f"<arguments as JSON>\n```{CALL_END}{CALLS_END}"
        )

    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        body = "".join(
            f"{CALL_BEGIN}function{SEP}{c.name}\n```json\n"
            f"{json.dumps(c.args_or_raw(), ensure_ascii=False)}\n```{CALL_END}"
            for c in calls
        )
        return CALLS_BEGIN + body + CALLS_END

    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        return OUTPUTS_BEGIN + "".join(f"{OUTPUT_BEGIN}{r.content}{OUTPUT_END}" for r in results) + OUTPUTS_END

    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        if CALLS_BEGIN not in text and CALL_BEGIN not in text:
            return AssistantMessage(content=prose(text), raw=text)
        start = min(i for i in (text.find(CALLS_BEGIN), text.find(CALL_BEGIN)) if i != -1)
        content, block = text[:start], text[start:]
        calls = []
        for m in _CALL.finditer(block):
            head, sep, args = m.group(1).partition(SEP)
            if not sep:
                calls.append(ToolCall(name="", arguments=m.group(1), parse_error=f"no {SEP}. Expected {EXPECTED}"))
                continue
            if head.strip() == "function":  # V3: function<sep>NAME\n```json ... ```
                name, _, args = args.partition("\n")
            else:  # V3.1: NAME<sep>{...}
                name = head
            name, body = name.strip(), strip_fence(args)
            try:
                calls.append(ToolCall(name=name, arguments=loads(body) if body else {}))
            except json.JSONDecodeError as exc:
                error = f"the arguments are {problem(exc)}. Expected {EXPECTED}"
                calls.append(ToolCall(name=name, arguments=body, parse_error=error))
        tail = block.rsplit(CALLS_END, 1)[1] if CALLS_END in block else ""
        return AssistantMessage(content=prose(content + tail), tool_calls=calls, raw=text)
