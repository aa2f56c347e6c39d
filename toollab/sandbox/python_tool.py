"""`python(code)`: a tool that runs a program in a sandbox and answers with what it printed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toollab.sandbox.executor import Executor, Function
from toollab.tools import Tool, ToolError

DESCRIPTION = (
    "Run a short Python program and see what it prints. Use print() for every value you want to see (the value "
    "of a last bare expression is shown too, as in a REPL). "
    "The program runs alone: no network, no files but its own working folder, limited time and memory."
)
CODE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"code": {"type": "string", "description": "The Python program to run."}},
    "required": ["code"],
    "additionalProperties": False,
}


async def printed(executor: Executor, code: str, functions: Mapping[str, Function] | None = None) -> str:
    """What the program printed; a program that fails, hits a limit or prints nothing raises ToolError with
    its output and what went wrong (an error result: the model must change the program, not end on it)."""
    result = await executor.run(code, functions)
    if not result.ok or not result.stdout.strip():
        raise ToolError(result.observation())
    return result.observation()


def python_tool(executor: Executor, name: str = "python") -> Tool:
    """A tool that runs its `code` argument on `executor` (a `SandboxedPython`, say)."""

    async def run(arguments: dict[str, object]) -> str:
        return await printed(executor, str(arguments["code"]))

    return Tool.from_schema(name, DESCRIPTION, CODE_SCHEMA, run)
