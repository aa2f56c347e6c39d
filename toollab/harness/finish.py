"""`finish(answer)`: a control action of the harness, offered to the model like a tool."""

from __future__ import annotations

import functools
from typing import Any

from toollab.tools import Tool

FINISH = "finish"


async def _record(arguments: dict[str, Any]) -> str:
    return "Final answer recorded."


@functools.cache  # immutable; building it (schema check included) costs about half a millisecond
def finish_tool() -> Tool:
    return Tool.from_schema(
        FINISH,
        "Call this when the task is done, with the final answer for the user. Nothing runs after it.",
        {
            "type": "object",
            "properties": {"answer": {"type": "string", "description": "The final answer for the user."}},
            "required": ["answer"],
            "additionalProperties": False,
        },
        _record,
    )
