"""How the simulated model reads a conversation: its task, the tool exchanges so far, and what they taught it."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toollab.harness.dispatch import decode_arguments
from toollab.harness.messages import AssistantMessage, Message, ToolResultMessage
from toollab.lab.countries.data import country
from toollab.lab.countries.tasks import numbers_in
from toollab.lab.strategies.plans import parse_evidence

_CAPITAL_OF = re.compile(r"capital and largest administrative centre of (.+?) is (.+?)\.")


@dataclass(frozen=True, slots=True)
class Exchange:
    """One call and what came back."""

    name: str
    arguments: Any
    result: str
    is_error: bool

    def argument(self, key: str) -> str:
        return str(self.arguments.get(key, "")) if isinstance(self.arguments, dict) else ""


@dataclass
class Knowledge:
    """Facts learned from successful tool results."""

    populations: dict[str, int] = field(default_factory=dict)
    facts: dict[tuple[str, str], str] = field(default_factory=dict)
    capitals: dict[str, str] = field(default_factory=dict)  # capital (lower case) -> country
    searched: set[str] = field(default_factory=set)
    calculations: dict[str, int] = field(default_factory=dict)

    def learn(self, e: Exchange) -> None:
        if e.is_error:
            return
        c = country(e.argument("country"))
        if e.name == "population" and c is not None:
            found = numbers_in(e.result)
            if found:
                self.populations[c.name] = int(found[0])
        elif e.name == "lookup" and c is not None:
            self.facts[(c.name, e.argument("relation").strip().lower())] = e.result.strip()
        elif e.name == "search":
            self.searched.add(e.argument("query"))
            for name, capital in _CAPITAL_OF.findall(e.result):
                self.capitals.setdefault(capital.lower(), name)
        elif e.name == "calculator":
            found = numbers_in(e.result)
            if found:
                self.calculations[e.argument("expression").replace(" ", "")] = int(found[0])


def exchanges(messages: Sequence[Message]) -> list[Exchange]:
    """Every call of the conversation with its result, in order."""
    results = {m.call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    out = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            for c in m.tool_calls:
                r = results.get(c.id)
                if r is not None:
                    arguments = c.arguments
                    with contextlib.suppress(json.JSONDecodeError, RecursionError):
                        arguments = decode_arguments(arguments)
                    out.append(Exchange(c.name, arguments, r.content, r.is_error))
    return out


def evidence_exchanges(text: str) -> list[Exchange]:
    return [Exchange(e.tool, e.arguments, e.result, e.is_error) for e in parse_evidence(text)]


def knowledge_of(items: Sequence[Exchange]) -> Knowledge:
    known = Knowledge()
    for e in items:
        known.learn(e)
    return known
