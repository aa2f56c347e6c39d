"""Code actions (CodeAct): instead of JSON calls the model writes a short Python program in which the agent's tools
are ordinary functions. The program runs in an executor (a sandbox, never the harness's process); each function it
calls comes back over the executor's channel and is validated, approved, dispatched, logged and counted exactly
like a JSON call (same error messages, events with the code action as their parent, the same budget). What the
program prints is the observation."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from toollab.harness import errors
from toollab.harness.dispatch import Dispatcher, current_call
from toollab.harness.events import ToolCalled, ToolReturned
from toollab.harness.messages import ToolCall, ToolResultMessage
from toollab.harness.run_state import RunState
from toollab.sandbox import Executor
from toollab.sandbox.python_tool import CODE_SCHEMA, printed
from toollab.tools import Tool, ToolSpec

CODE_ACTION = "python"
_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}


@dataclass
class CodeRun:
    """What a code action needs of the run it belongs to: the tools' dispatcher and the run's state."""

    dispatcher: Dispatcher
    run: RunState | None = None  # None outside an agent run: calls are dispatched, not logged or counted
    max_tool_calls: int | None = None
    made: dict[str, int] = field(default_factory=dict)  # inner calls made per code action, for their ids


current_run: ContextVar[CodeRun | None] = ContextVar("current_code_run", default=None)


class CallFailed(Exception):
    """An inner call's error result, raised inside the program as its message."""


def annotation(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_TYPES.get(k, "None" if k == "null" else "Any") for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"list[{annotation(schema['items'])}]"
    return _TYPES.get(str(kind), "Any")


def signature(spec: ToolSpec) -> str:
    """A tool as the program sees it: a Python function with its description as the docstring."""
    properties: dict[str, Any] = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", []))
    ordered = [n for n in properties if n in required] + [n for n in properties if n not in required]
    params = [f"{n}: {annotation(properties[n])}" + ("" if n in required else " = None") for n in ordered]
    doc = [spec.description.strip()] + [
        f"{n}: {properties[n]['description']}" for n in ordered if properties[n].get("description")
    ]
    body = "\n    ".join(line for line in doc if line)
    return (
        f'def {spec.name}(*, {", ".join(params)}) -> Any:\n    """{body}"""'
        if params
        else (f'def {spec.name}() -> Any:\n    """{body}"""')
    )


def code_action_tool(tools: Sequence[Tool], executor: Executor, name: str = CODE_ACTION) -> Tool:
    """The one tool a code-acting agent offers: `python(code)`, running `code` on `executor` with `tools` as
    functions. Its description lists their signatures. A program that fails, hits a limit or prints nothing is an
    error result (what it printed, then what went wrong), so the model sees it must change the program."""
    specs = [t.spec for t in tools]
    description = (
        "Run a short Python program. These functions are defined in it; call them with keyword arguments and "
        "print() what you want to see (only printed output comes back, and the value of a last bare expression):\n\n"
        + "\n\n".join(signature(s) for s in specs)
    )
    own = Dispatcher(tools)

    async def run_code(arguments: dict[str, Any]) -> str:
        context = current_run.get() or CodeRun(own)
        parent = current_call.get()
        parent_id = parent.id if parent is not None else "code"

        def function(tool_name: str) -> Any:
            async def call(inner_arguments: dict[str, Any]) -> Any:
                n = context.made[parent_id] = context.made.get(parent_id, 0) + 1
                result = await _dispatch(context, ToolCall(id=f"{parent_id}.{n}", name=tool_name,
                                                           arguments=inner_arguments), parent_id)  # fmt: skip
                if result.is_error:
                    raise CallFailed(result.content)
                try:
                    return json.loads(result.content)
                except ValueError:
                    return result.content

            return call

        return await printed(executor, str(arguments["code"]), {s.name: function(s.name) for s in specs})

    return Tool.from_schema(name, description, CODE_SCHEMA, run_code)


async def _dispatch(context: CodeRun, call: ToolCall, parent: str) -> ToolResultMessage:
    run, dispatcher = context.run, context.dispatcher
    if run is not None and run.sinks:
        run.emit(ToolCalled(call=call, parent=parent))
    limit, started = context.max_tool_calls, time.perf_counter()
    if run is not None and limit is not None and run.tool_calls >= limit:
        result = dispatcher.fail(call, errors.budget_exhausted(str(call.name), limit), errors.BUDGET)
    else:
        result = await dispatcher.dispatch(call)
    if run is not None:
        run.count_inner(result)
        if run.sinks:
            run.emit(ToolReturned(result=result, seconds=time.perf_counter() - started, parent=parent))
    return result
