"""Why a direct answer went wrong: a fact it stated is false ("remembered wrong"), or every stated fact is true
and the answer still is not ("computed wrong"). Reads the `Fact: <what> of <country> = <value>` lines that the
single-stage prompt asks for; an answer without them cannot be split and counts as "unexplained"."""

from __future__ import annotations

import re

from toollab.lab.countries.data import BY_CAPITAL, RELATIONS, country
from toollab.lab.countries.tasks import Task, is_correct, numbers_in

_FACT = re.compile(r"^\s*Fact:\s*(.+?)\s+of\s+(.+?)\s*=\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
_CAPITAL = re.compile(r"^\s*Fact:\s*country with capital\s+(.+?)\s*=\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)

REMEMBERED_WRONG = "remembered wrong"
COMPUTED_WRONG = "computed wrong"
UNEXPLAINED = "unexplained"


def _true(what: str, name: str, value: str) -> bool | None:
    """Whether a stated fact holds; None when it is not a fact the world knows."""
    c = country(name)
    what = what.strip().lower().removeprefix("the ").removeprefix("main ")
    if c is None:
        return None
    if what == "population":
        found = numbers_in(value)
        return bool(found) and found[0] == c.population
    if what in RELATIONS:
        return value.strip().strip(".").lower() == c.fact(what).lower()
    return None


def stated_facts(text: str) -> list[bool]:
    """For each fact line the world can check, whether it is true."""
    verdicts = []
    for capital, name in _CAPITAL.findall(text):
        c = BY_CAPITAL.get(capital.strip().lower())
        verdicts.append(c is not None and c.name.lower() == name.strip().strip(".").lower())
    for what, name, value in _FACT.findall(text):
        if what.lower().startswith("country with capital"):
            continue
        verdict = _true(what, name, value)
        if verdict is not None:
            verdicts.append(verdict)
    return verdicts


def error_kind(task: Task, text: str | None) -> str | None:
    """None for a right answer; else remembered wrong, computed wrong or unexplained."""
    if is_correct(task, text):
        return None
    verdicts = stated_facts(text or "")
    if not verdicts:
        return UNEXPLAINED
    return REMEMBERED_WRONG if not all(verdicts) else COMPUTED_WRONG
