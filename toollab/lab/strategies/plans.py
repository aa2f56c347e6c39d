"""The plan-first (ReWOO) text protocol: a plan of `#E<n> = tool[JSON]` steps, and the evidence its run returns.

Plan: Find the population of Peru.
#E1 = population[{"country": "Peru"}]
Plan: Subtract.
#E3 = calculator[{"expression": "#E1 - #E2"}]
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from toollab.lab.strategies.base import Call

_STEP = re.compile(r"^\s*#E(\d+)\s*=\s*([A-Za-z0-9_-]+)\s*\[(.*)\]\s*$")
_REF = re.compile(r"#E(\d+)")
_EVIDENCE_HEAD = re.compile(r"^#E(\d+) = ([A-Za-z0-9_-]+)\[(.*)\]$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Step:
    number: int
    tool: str
    arguments: str  # the JSON text as written, before #E references are replaced
    plan: str = ""  # the `Plan:` line before it

    @property
    def refs(self) -> set[int]:
        return {int(n) for n in _REF.findall(self.arguments)}


def parse_plan(text: str) -> list[Step]:
    """The steps of a plan, in order; lines that are not steps are ignored (a plan with none runs nothing)."""
    steps: list[Step] = []
    plan = ""
    for line in text.splitlines():
        if line.strip().lower().startswith("plan:"):
            plan = line.strip()[5:].strip()
            continue
        match = _STEP.match(line)
        if match:
            steps.append(Step(int(match.group(1)), match.group(2), match.group(3).strip(), plan))
            plan = ""
    return steps


def render_plan(steps: list[Step]) -> str:
    lines = []
    for s in steps:
        if s.plan:
            lines.append(f"Plan: {s.plan}")
        lines.append(f"#E{s.number} = {s.tool}[{s.arguments}]")
    return "\n".join(lines)


def substitute(value: Any, evidence: dict[int, str]) -> Any:
    """`value` with each #E<n> inside its strings replaced by step n's result text."""
    if isinstance(value, str):
        return _REF.sub(lambda m: evidence.get(int(m.group(1)), m.group(0)), value)
    if isinstance(value, list):
        return [substitute(v, evidence) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, evidence) for k, v in value.items()}
    return value


def decode_step_arguments(step: Step, evidence: dict[int, str]) -> dict[str, Any] | str:
    """The step's arguments with references replaced, or an error text saying why they cannot be read."""
    try:
        value = json.loads(step.arguments)
    except json.JSONDecodeError as exc:
        return f"the arguments of #E{step.number} are not JSON ({exc.msg}); write a JSON object in the brackets"
    if not isinstance(value, dict):
        return f"the arguments of #E{step.number} must be a JSON object"
    return substitute(value, evidence)


@dataclass(frozen=True, slots=True)
class Evidence:
    number: int
    tool: str
    arguments: dict[str, Any] | str  # as run (references replaced), or the text that could not be read
    result: str
    is_error: bool

    def as_call(self) -> Call:
        return Call(self.tool, self.arguments, self.is_error, "error" if self.is_error else None, self.result)


def render_evidence(items: list[Evidence]) -> str:
    blocks = []
    for e in items:
        shown = json.dumps(e.arguments, ensure_ascii=False) if isinstance(e.arguments, dict) else e.arguments
        result = f"Error: {e.result}" if e.is_error else e.result
        blocks.append(f"#E{e.number} = {e.tool}[{shown}]\nEvidence #E{e.number}:\n{result}")
    return "\n\n".join(blocks)


def parse_evidence(text: str) -> list[Evidence]:
    """The evidence blocks of a solver prompt (what `render_evidence` wrote)."""
    heads = list(_EVIDENCE_HEAD.finditer(text))
    items = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end() : end].strip()
        body = re.sub(rf"^Evidence #E{head.group(1)}:\n?", "", body)
        try:
            arguments: dict[str, Any] | str = json.loads(head.group(3))
        except json.JSONDecodeError:
            arguments = head.group(3)
        is_error = body.startswith("Error: ")
        result = body[len("Error: ") :] if is_error else body
        items.append(Evidence(int(head.group(1)), head.group(2), arguments, result.strip(), is_error))
    return items
