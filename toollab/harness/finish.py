"""`finish(answer)`: a control action of the harness, offered to the model like a tool.

It comes alone (the agent refuses it beside other calls), and it refuses an answer that is empty or that copies
its own description: a small model copies what the prompt shows it, and a copied description must not end a run
as the user's answer. Its wording reads as an instruction for that reason, not as an answer.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import Any

from toollab.tools import Tool, ToolError

FINISH = "finish"
DESCRIPTION = "Ends the task. Call it alone, once the results you need are back. Nothing runs after it."
ANSWER_DESCRIPTION = "What to tell the user, taken from the results."
MAX_ANSWER = 400  # characters
_WORDS = re.compile(r"[a-z0-9]+")


def _words(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


def copies_instructions(answer: str) -> bool:
    """Whether an answer restates the finish action's own wording: nearly all of one of its sentences, or holds
    one of them whole."""
    said = _words(answer)
    for sentence in re.split(r"(?<=\.)\s+", f"{DESCRIPTION} {ANSWER_DESCRIPTION}"):
        own = _words(sentence)
        if difflib.SequenceMatcher(None, said, own).ratio() >= 0.8 or (len(own.split()) >= 3 and own in said):
            return True
    return False


async def _record(arguments: dict[str, Any]) -> str:
    answer = str(arguments.get("answer", "")).strip()
    if not answer:
        raise ToolError("The answer is empty: call finish with the answer itself, taken from the results.")
    if copies_instructions(answer):
        raise ToolError(
            "That answer repeats the finish action's own description. Call finish with the answer itself, "
            "for example the value a tool returned."
        )
    return "Final answer recorded."


@functools.cache  # immutable; building it (schema check included) costs about half a millisecond
def finish_tool() -> Tool:
    return Tool.from_schema(
        FINISH,
        DESCRIPTION,
        {
            "type": "object",
            # bounded: a constrained small model that loops inside its answer is made to close it
            "properties": {"answer": {"type": "string", "description": ANSWER_DESCRIPTION, "maxLength": MAX_ANSWER}},
            "required": ["answer"],
            "additionalProperties": False,
        },
        _record,
    )
