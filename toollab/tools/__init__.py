"""Tools: functions with a name, a description written for the model, and a JSON Schema for their arguments."""

from toollab.tools import call_context
from toollab.tools.arithmetic import add, calculator, multiply
from toollab.tools.call_context import Elicited, NobodyToAsk
from toollab.tools.content import Audio, ContentPart, EmbeddedResource, Image, Text
from toollab.tools.tool import InvalidArguments, Tool, ToolError, ToolSpec, safe_name, tool
from toollab.tools.validation import ArgumentProblem

__all__ = [
    "ArgumentProblem",
    "Audio",
    "ContentPart",
    "Elicited",
    "EmbeddedResource",
    "Image",
    "InvalidArguments",
    "NobodyToAsk",
    "Text",
    "Tool",
    "ToolError",
    "ToolSpec",
    "add",
    "calculator",
    "call_context",
    "multiply",
    "safe_name",
    "tool",
]
