"""`python(code)`: a tool that runs a program in a sandbox and answers with what it printed."""

from __future__ import annotations

from toollab.sandbox.executor import Executor
from toollab.tools import Tool

DESCRIPTION = (
    "Run a short Python program and see what it prints. Use print() for every value you want to see. "
    "The program runs alone: no network, no files but its own working folder, limited time and memory."
)


def python_tool(executor: Executor, name: str = "python") -> Tool:
    """A tool that runs its `code` argument on `executor` (a started `SandboxedPython`, say); the result is the
    program's output, followed by the error or the limit that stopped it."""

    async def run(arguments: dict[str, object]) -> str:
        result = await executor.run(str(arguments["code"]))
        return result.observation()

    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "description": "The Python program to run."}},
        "required": ["code"],
        "additionalProperties": False,
    }
    return Tool.from_schema(name, DESCRIPTION, schema, run)
