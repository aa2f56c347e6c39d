"""Parsed tool calls in the shapes BFCL's checkers read, and how far each call got (parsed, schema valid)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toollab.eval.bfcl.schema import ToolSet
from toollab.eval.records import Operations
from toollab.harness import ToolCall, Usage
from toollab.harness.arguments import UnreadableArguments
from toollab.tools.validation import ArgumentValidator


@dataclass(slots=True)
class ReadCalls:
    """A turn's calls as BFCL names them, with what could not be read and what broke its schema."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (BFCL name, arguments)
    attempts: int = 0  # every call written, readable or not
    parse_failures: int = 0  # truncated calls included
    truncated: int = 0  # calls a constrained decode left unfinished at max_new_tokens
    schema_failures: int = 0
    unknown_tools: int = 0

    @property
    def bfcl_output(self) -> list[dict[str, dict[str, Any]]]:
        return [{name: arguments} for name, arguments in self.calls]

    def count(self, other: ReadCalls) -> None:
        """Add another turn's counts to these (the calls themselves are not kept)."""
        self.attempts += other.attempts
        self.parse_failures += other.parse_failures
        self.truncated += other.truncated
        self.schema_failures += other.schema_failures
        self.unknown_tools += other.unknown_tools

    def strings(self) -> list[str]:
        """Each call as Python source, as BFCL's multi-turn executor runs them."""
        return [call_string(name, arguments) for name, arguments in self.calls]


def call_string(name: str, arguments: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def read_calls(calls: Sequence[ToolCall], tools: ToolSet) -> ReadCalls:
    """Decode arguments, map names back to BFCL's and check each call against the schema the model was shown."""
    out = ReadCalls(attempts=len(calls))
    schemas = {s.name: s.parameters for s in tools.specs}
    for call in calls:
        if call.parse_error is not None:
            out.parse_failures += 1
            out.truncated += call.parse_error.startswith("truncated")
            continue
        try:
            arguments = call.args_as_dict()
        except UnreadableArguments:
            out.parse_failures += 1
            continue
        if call.name not in schemas:
            out.unknown_tools += 1
        elif not _fits(schemas[call.name], arguments):
            out.schema_failures += 1
        out.calls.append((tools.bfcl_name(call.name), arguments))
    return out


def operations(
    seconds: float,
    usage: Usage,
    model_calls: int,
    read: ReadCalls,
    *,
    retries: int = 0,
    timeouts: int = 0,
    stop_reasons: Sequence[str] = (),
) -> Operations:
    """An item's operational record: time, requests, tokens, and what became of the calls written."""
    return Operations(
        latency_seconds=seconds,
        model_calls=model_calls,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        retries=retries,
        timeouts=timeouts,
        calls=read.attempts,
        parse_failures=read.parse_failures,
        truncated=read.truncated,
        schema_failures=read.schema_failures,
        unknown_tools=read.unknown_tools,
        stop_reasons=list(stop_reasons),
    )


def _fits(schema: dict[str, Any], arguments: dict[str, Any]) -> bool:
    try:
        return not ArgumentValidator(schema).problems(arguments, limit=1)
    except ValueError:  # a BFCL schema jsonschema cannot read: no verdict on form, the checker still judges
        return True
