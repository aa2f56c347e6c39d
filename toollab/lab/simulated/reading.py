"""How the simulated model reads a conversation: its task, the tool exchanges so far, and what they taught it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from toollab.harness.injection import without_note
from toollab.harness.messages import Message
from toollab.lab.countries.data import RELATIONS, country
from toollab.lab.strategies.base import NO_RESULT, Call, calls_of
from toollab.lab.strategies.plans import parse_evidence

_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\b")
_CAPITAL_OF = re.compile(r"capital and largest administrative centre of (.+?) is (.+?)\.")


@dataclass
class Knowledge:
    """Facts learned from successful tool results."""

    populations: dict[str, int] = field(default_factory=dict)
    facts: dict[tuple[str, str], str] = field(default_factory=dict)
    capitals: dict[str, str] = field(default_factory=dict)  # capital (lower case) -> country
    searched: set[str] = field(default_factory=set)
    calculations: dict[str, int] = field(default_factory=dict)
    prices: dict[str, int] = field(default_factory=dict)  # phone prices by country

    taught: list[bool] = field(default_factory=list)  # per exchange: whether it taught anything

    def learn(self, e: Call) -> bool:
        """Take in what a result says. Read from the text, as a model must: the OpenAI wire has no error flag."""
        learned = not e.is_error and self._learn(e)
        self.taught.append(learned)
        return learned

    def _learn(self, e: Call) -> bool:
        e = replace(e, result=without_note(e.result))  # a flagged result still holds its data
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
        if e.name == "phone_price" and c is not None and number:
            self.prices[c.name] = int(number.group(1))
            return True
        if e.name == "calculator" and number:
            self.calculations[e.argument("expression").replace(" ", "")] = int(float(number.group(1)))
            return True
        return False


def exchanges(messages: Sequence[Message]) -> list[Call]:
    """Every answered call of the conversation, in order."""
    return [c for c in calls_of(messages) if c.error_kind != NO_RESULT]


def evidence_exchanges(text: str) -> list[Call]:
    return [e.as_call() for e in parse_evidence(text)]


def knowledge_of(items: Sequence[Call]) -> Knowledge:
    known = Knowledge()
    for e in items:
        known.learn(e)
    return known
