"""Tools: functions with a name, a description written for the model, and a JSON Schema for their arguments."""

from toollab.tools.arithmetic import add, calculator, multiply
from toollab.tools.tool import InvalidArguments, Tool, ToolError, ToolSpec, safe_name, tool
from toollab.tools.validation import ArgumentProblem

__all__ = [
    "ArgumentProblem",
    "InvalidArguments",
    "Tool",
    "ToolError",
    "ToolSpec",
    "add",
    "calculator",
    "multiply",
    "safe_name",
    "tool",
]
