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
from toollab.lab.countries.data import RELATIONS, country
from toollab.lab.strategies.plans import parse_evidence

_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\b")
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

    taught: list[bool] = field(default_factory=list)  # per exchange: whether it taught anything

    def learn(self, e: Exchange) -> bool:
        """Take in what a result says. Read from the text, as a model must: the OpenAI wire has no error flag."""
        learned = not e.is_error and self._learn(e)
        self.taught.append(learned)
        return learned

    def _learn(self, e: Exchange) -> bool:
        c = country(e.argument("country"))
        number = _LEADING_NUMBER.match(e.result)
        if e.name == "population" and c is not None and number:
            self.populations[c.name] = int(number.group(1))
            return True
        relation = e.argument("relation").strip().lower()
        if e.name == "lookup" and c is not None and relation in RELATIONS:
            self.facts[(c.name, relation)] = e.result.strip()
            return True
        if e.name == "search" and e.result.startswith("[1]"):
            self.searched.add(e.argument("query"))
            for name, capital in _CAPITAL_OF.findall(e.result):
                self.capitals.setdefault(capital.lower(), name)
            return True
        if e.name == "calculator" and number:
            self.calculations[e.argument("expression").replace(" ", "")] = int(float(number.group(1)))
            return True
        return False


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
