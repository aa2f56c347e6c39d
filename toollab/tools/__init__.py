"""Tools: functions with a name, a description written for the model, and a JSON Schema for their arguments."""

from toollab.tools import reporting
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
    "reporting",
    "safe_name",
    "tool",
]
