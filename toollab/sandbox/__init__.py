"""Running code apart from the harness: executors with a lifecycle, the bubblewrap sandbox and its limits."""

from toollab.sandbox.executor import Executor, Function, SandboxedPython
from toollab.sandbox.limits import CodeResult, Limit, Limits
from toollab.sandbox.python_tool import python_tool

__all__ = ["CodeResult", "Executor", "Function", "Limit", "Limits", "SandboxedPython", "python_tool"]
