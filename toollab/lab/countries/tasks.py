"""Tasks of the countries world, generated from a seed, with their answers and the calls that solve them.

| kind               | example                                                        | calls | steps depend |
|--------------------|----------------------------------------------------------------|-------|--------------|
| `fact`             | What is the capital of Peru?                                   | 1     | -            |
| `capital_language` | What language is spoken in the country whose capital is Lima?  | 2     | yes          |
| `difference`       | How many more people, in thousands, live in A than in B?       | 3     | no           |
| `sum`              | What is the combined population, in thousands, of A, B and C?  | 4     | no           |
| `cheapest`         | In which of A, B, C, D and E is a phone cheapest?              | 5     | no (a loop)  |

`cheapest` (the lecture's phone task, for `lab codeact`) is not among the default kinds.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

from toollab.formats.markup import MARKUP
from toollab.lab.countries.data import COUNTRIES, RELATIONS, Country, phone_price

TaskKind = Literal["fact", "capital_language", "difference", "sum", "cheapest"]
KINDS: tuple[TaskKind, ...] = ("fact", "capital_language", "difference", "sum")
LOOP: tuple[TaskKind, ...] = ("cheapest",)
STEPS: dict[str, int] = {"fact": 1, "capital_language": 2, "difference": 3, "sum": 4, "cheapest": 5}
DEPENDENT: tuple[TaskKind, ...] = ("capital_language",)
INDEPENDENT: tuple[TaskKind, ...] = ("difference", "sum")

FACT_QUESTIONS = {
    "capital": "What is the capital of {}?",
    "language": "What language is spoken in {}?",
    "export": "What is the main export of {}?",
    "leader": "Who is the leader of {}?",
    "population": "What is the population of {}, in thousands?",
}
CAPITAL_LANGUAGE = "What language is spoken in the country whose capital is {}?"
DIFFERENCE = "How many more people, in thousands, live in {} than in {}?"
SUM = "What is the combined population, in thousands, of {}, {} and {}?"
CHEAPEST = "In which of {}, {}, {}, {} and {} is a phone cheapest?"


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    kind: TaskKind
    question: str
    answer: str
    countries: tuple[str, ...]
    relation: str = ""  # for `fact` tasks: a lookup relation or "population"

    @property
    def steps(self) -> int:
        return STEPS[self.kind]

    @property
    def numeric(self) -> bool:
        return self.kind in ("difference", "sum") or self.relation == "population"


def make_task(kind: TaskKind, picked: list[Country], relation: str, number: int) -> Task:
    """One task of `kind` about the `picked` countries (the first one or three are used)."""
    a, b, c = picked[:3]
    if kind == "cheapest":
        names = tuple(p.name for p in picked[:5])
        cheapest = min(picked[:5], key=lambda p: phone_price(p.name))
        return Task(f"cheapest-{number}", kind, CHEAPEST.format(*names), cheapest.name, names)
    if kind == "fact":
        answer = str(a.population) if relation == "population" else a.fact(relation)
        return Task(f"fact-{number}", kind, FACT_QUESTIONS[relation].format(a.name), answer, (a.name,), relation)
    if kind == "capital_language":
        return Task(f"capital_language-{number}", kind, CAPITAL_LANGUAGE.format(a.capital), a.language, (a.name,))
    if kind == "difference":
        big, small = sorted((a, b), key=lambda x: -x.population)
        question = DIFFERENCE.format(big.name, small.name)
        return Task(
            f"difference-{number}", kind, question, str(big.population - small.population), (big.name, small.name)
        )
    total = a.population + b.population + c.population
    return Task(f"sum-{number}", kind, SUM.format(a.name, b.name, c.name), str(total), (a.name, b.name, c.name))


def generate_tasks(n: int, seed: int = 0, kinds: tuple[TaskKind, ...] = KINDS) -> list[Task]:
    """`n` tasks cycling through `kinds` (so each kind gets its share), countries and relations drawn by `seed`."""
    if n < 0:
        raise ValueError("n must be >= 0")
    unknown = set(kinds) - set(KINDS + LOOP)
    if not kinds or unknown:
        raise ValueError(f"task kinds must be among {', '.join(KINDS + LOOP)}; got {', '.join(kinds) or 'none'}")
    rng = random.Random(seed)
    tasks = []
    for i in range(n):
        picked = rng.sample(COUNTRIES, 5 if kinds[i % len(kinds)] == "cheapest" else 3)
        relation = rng.choice((*RELATIONS, "population"))
        tasks.append(make_task(kinds[i % len(kinds)], picked, relation, i))
    return tasks


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def final_part(text: str) -> str:
    """What follows the last `Answer:` line, or the whole text."""
    marker = text.lower().rfind("answer:")
    return text[marker + len("answer:") :] if marker >= 0 else text


def numbers_in(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in _NUMBER.findall(text)]


def is_correct(task: Task, text: str | None) -> bool:
    """Numbers: the last number of the answer part equals the answer. Words: the answer appears as a phrase. An
    answer holding the wire formats' markup is wrong, whatever words it holds (a call written as the answer)."""
    if not text or MARKUP.search(text):
        return False
    part = final_part(text)
    if task.numeric:
        found = numbers_in(part)
        return bool(found) and found[-1] == float(task.answer)
    return re.search(rf"\b{re.escape(task.answer.lower())}\b", part.lower()) is not None


def _pattern(template: str) -> re.Pattern[str]:
    return re.compile(re.escape(template).replace(r"\{\}", "(.+?)") + "$", re.MULTILINE)


_READERS: list[tuple[re.Pattern[str], TaskKind, str]] = [
    *[(_pattern(q), "fact", relation) for relation, q in FACT_QUESTIONS.items()],
    (_pattern(CAPITAL_LANGUAGE), "capital_language", ""),
    (_pattern(DIFFERENCE), "difference", ""),
    (_pattern(SUM), "sum", ""),
    (_pattern(CHEAPEST), "cheapest", ""),
]


def read_question(text: str) -> tuple[TaskKind, tuple[str, ...], str] | None:
    """(kind, names, relation) of a question written from the templates above, or None. For `capital_language`
    the name is the capital's. The simulated model reads its task with this."""
    text = text.strip()
    # the capital-language question also matches the language-fact template, so it is tried first
    for pattern, kind, relation in sorted(_READERS, key=lambda r: r[1] != "capital_language"):
        match = pattern.search(text)
        if match:
            return kind, tuple(match.groups()), relation
    return None
