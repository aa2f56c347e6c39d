"""Code actions as text: the model acts by writing one ```python block (a call of the code-action tool, whose
program calls the other tools as functions) and answers in plain prose. Constrained decoding holds a turn to prose,
or prose then one block; the block's inside is free text up to its closing fence."""

from __future__ import annotations

import re
from collections.abc import Sequence

from toollab.formats.base import CallEnvelope, Format
from toollab.harness.code_actions import CODE_ACTION
from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage
from toollab.tools import ToolSpec

OPEN, CLOSE = "```python\n", "\n```"
ENVELOPE = CallEnvelope(trigger="```python", begin=OPEN, end=CLOSE, arguments="code")
_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)(?:\n[ \t]*```|\Z)", re.DOTALL)


def code_tool(tools: Sequence[ToolSpec]) -> str:
    """The name of the code-action tool among `tools`: the one taking a `code` string (CODE_ACTION if none)."""
    for t in tools:
        if "code" in t.parameters.get("properties", {}):
            return t.name
    return CODE_ACTION


class CodeBlock(Format):
    name = "code"
    envelope = ENVELOPE
    result_marker = "Output:\n"

    def tools_prompt(self, tools: Sequence[ToolSpec]) -> str:
        name = code_tool(tools)
        spec = next((t for t in tools if t.name == name), None)
        functions = spec.description if spec is not None else ""
        return (
            f"{functions}\n\nTo act, write one Python program in a ```python block; you will see what it prints, "
            "after 'Output:'. When you know the answer, write it in plain words, without a code block."
        )

    def render_calls(self, calls: Sequence[ToolCall]) -> str:
        blocks = []
        for call in calls:
            arguments = call.args_or_raw()
            code = arguments.get("code", "") if isinstance(arguments, dict) else str(arguments)
            blocks.append(f"{OPEN}{code}{CLOSE}")
        return "\n".join(blocks)

    def render_results(self, results: Sequence[ToolResultMessage]) -> str:
        return "\n".join(f"{self.result_marker}{r.content}" for r in results)

    def parse(self, text: str, tools: Sequence[ToolSpec] = ()) -> AssistantMessage:
        match = _BLOCK.search(text)
        if match is None:
            return AssistantMessage(content=text.strip(), raw=text)
        call = ToolCall(name=code_tool(tools), arguments={"code": match.group(1)})
        return AssistantMessage(content=text[: match.start()].strip() or None, tool_calls=[call], raw=text)
