"""How the simulated model writes code actions and reads what they printed.

Its programs call the world's tools as functions, print each value as `name(arguments) = repr(value)` on its own
line (what a careful coder prints to see what came back), do the arithmetic in Python, and end with an
`Answer:` line once every fact is in hand. A call that fails stops the program; the model reads which call that
was (the first one of its program that printed nothing) and the error message, as it reads an error result of a
JSON call, so the same mistakes and the same fixes happen in both modes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

from toollab.harness.messages import AssistantMessage, Message, ToolResultMessage
from toollab.lab.strategies.base import Call
from toollab.tools import ToolSpec

_PRINTED = re.compile(r"^(\w+)\((.*)\) = (.*)$")
_DEF = re.compile(r"def (\w+)\(\*, (.*?)\) -> Any:\n    \"\"\"(.*?)\"\"\"", re.DOTALL)
ANSWER = re.compile(r"^Answer: (.*)$", re.MULTILINE)


def code_tool_of(tools: Sequence[ToolSpec]) -> ToolSpec | None:
    """The code-action tool among the offered ones (a tool taking a `code` string), if there is one."""
    return next((t for t in tools if "code" in t.parameters.get("properties", {})), None)


def functions_of(code_tool: ToolSpec) -> list[ToolSpec]:
    """The world's tools as the code tool's description shows them (signatures and docstrings), rebuilt as specs
    so that the model judges how clearly they are described as it does for JSON tools."""
    specs = []
    for name, params, doc in _DEF.findall(code_tool.description):
        lines = [line.strip() for line in doc.splitlines() if line.strip()]
        described = {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in lines[1:] if ":" in line}
        try:
            signature = ast.parse(f"def f(*, {params}): pass").body[0]
        except SyntaxError:
            continue
        assert isinstance(signature, ast.FunctionDef)
        properties: dict[str, Any] = {}
        for arg in signature.args.kwonlyargs:
            schema: dict[str, Any] = {"type": "string"}
            note = arg.annotation
            if isinstance(note, ast.Subscript) and isinstance(note.value, ast.Name) and note.value.id == "Literal":
                values = note.slice.elts if isinstance(note.slice, ast.Tuple) else [note.slice]
                schema["enum"] = [ast.literal_eval(v) for v in values]
            if arg.arg in described:
                schema["description"] = described[arg.arg]
            properties[arg.arg] = schema
        specs.append(ToolSpec(name, lines[0] if lines else "", {"type": "object", "properties": properties}))
    return specs


def _literal_call(node: ast.Call) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(node.func, ast.Name):
        return None
    try:
        return node.func.id, {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except ValueError:
        return None


def program_calls(code: str, functions: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """The calls of the world's functions in a program, in the order written."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
            call = _literal_call(node)
            if call is not None:
                found.append((node.lineno, node.col_offset, call))
    return [call for *_, call in sorted(found, key=lambda f: (f[0], f[1]))]


def read_exchanges(messages: Sequence[Message], functions: set[str]) -> list[Call]:
    """Every call the model's programs made, with what came back, read from the printed lines; a failed
    program's failing call is the first of its calls that printed nothing."""
    results = {m.call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    out: list[Call] = []
    for m in messages:
        if not isinstance(m, AssistantMessage):
            continue
        for c in m.tool_calls:
            result = results.get(c.id)
            arguments = c.args_or_raw()
            if result is None or not isinstance(arguments, dict):
                continue
            out += _program_exchanges(str(arguments.get("code", "")), result, functions)
    return out


def _program_exchanges(code: str, result: ToolResultMessage, functions: set[str]) -> list[Call]:
    printed = []
    for line in result.content.splitlines():
        match = _PRINTED.match(line)
        if match and match.group(1) in functions:
            try:
                value = ast.literal_eval(match.group(3))
            except (ValueError, SyntaxError):
                value = match.group(3)
            printed.append((match.group(1), str(value)))
    calls = program_calls(code, functions)
    out = [Call(name, args, False, None, value) for (name, args), (_, value) in zip(calls, printed, strict=False)]
    if result.is_error and len(printed) < len(calls):
        name, args = calls[len(printed)]
        error = result.content.split("[error: ", 1)[-1].rstrip("]") if "[error: " in result.content else result.content
        out.append(Call(name, args, True, "tool_error", error))
    return out


def last_answer(messages: Sequence[Message]) -> str | None:
    """The `Answer:` a program printed in the last result, if it succeeded."""
    last = next((m for m in reversed(messages) if isinstance(m, ToolResultMessage)), None)
    if last is None or last.is_error:
        return None
    match = ANSWER.search(last.content)
    return match.group(1).strip() if match else None


def write_program(calls: Sequence[tuple[str, dict[str, Any]]], answer: str | None) -> str:
    """A program: each call into a variable (v1, v2, ...) and printed, then `answer`, an expression over those
    variables and values known from earlier programs, printed after `Answer:`."""
    lines = []
    for i, (name, arguments) in enumerate(calls, start=1):
        args = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        lines += [f"v{i} = {name}({args})", f"print({f'{name}({args}) ='!r}, repr(v{i}))"]
    if answer is not None:
        lines.append(f'print("Answer:", {answer})')
    return "\n".join(lines)
