"""The ledger world: short stories of counts that change, written with every digit as its own token.

"Fay has 1 8 plums . Fay eats 4 plums . Eve gives Fay 8 plums . so Fay has 2 2 plums ." A ledger is plain (only
the final count), restating (the running count after every step) or annotated (each count it states preceded by
the computation, `[ 1 8 - 4 + 8 = 2 2 ]`). Everything is drawn from a seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

NAMES = ["Fay", "Eve", "Ann", "Bob", "Cal", "Dan", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lea", "Max", "Ned", "Ola"]
ITEMS = ["plums", "apples", "pears", "figs", "nuts", "eggs", "cards", "coins", "pens", "shells"]
TAKE = ["eats", "loses", "sells", "drops"]  # the owner's count goes down
GET = ["finds", "buys", "picks", "wins"]  # the owner's count goes up
OPEN, EQUALS, CLOSE = "[", "=", "]"
STOP = "."
SO = "so"
Style = Literal["plain", "restating"]


@dataclass(frozen=True)
class Step:
    """One change: `other` names who gives or receives (None when the owner acts alone)."""

    sign: int  # +1 or -1
    amount: int
    verb: str
    other: str | None = None


@dataclass(frozen=True)
class Ledger:
    owner: str
    item: str
    start: int
    steps: tuple[Step, ...]

    def counts(self) -> list[int]:
        """The count after each step."""
        out, value = [], self.start
        for s in self.steps:
            value += s.sign * s.amount
            out.append(value)
        return out

    @property
    def answer(self) -> int:
        return self.counts()[-1]

    def expression(self, since: int = 0) -> str:
        """The computation of the count after step `since`..end, from the count before it: "18 - 4 + 8"."""
        before = self.start if since == 0 else self.counts()[since - 1]
        terms = [str(before)] + [f"{'+' if s.sign > 0 else '-'} {s.amount}" for s in self.steps[since:]]
        return " ".join(terms)


def digits(n: int) -> str:
    """A number as the world writes it: one token per digit ("2 2")."""
    return " ".join(str(n))


def read_number(tokens: list[str]) -> int | None:
    """The number written by the leading digit tokens, or None when there is none."""
    taken = []
    for t in tokens:
        if not t.isdigit():
            break
        taken.append(t)
    return int("".join(taken)) if taken and len(taken) <= 6 else None


def _sentence(owner: str, item: str, step: Step) -> str:
    if step.other is None:
        return f"{owner} {step.verb} {digits(step.amount)} {item} ."
    if step.sign > 0:
        return f"{step.other} gives {owner} {digits(step.amount)} {item} ."
    return f"{owner} gives {step.other} {digits(step.amount)} {item} ."


def spaced(expression: str) -> str:
    """An expression as the world writes it: "18 - 4" -> "1 8 - 4"."""
    return " ".join(digits(int(t)) if t.isdigit() else t for t in expression.split())


def call_text(expression: str, result: int | None) -> str:
    """`[ 1 8 - 4 = 1 4 ]`, or without its result `[ 1 8 - 4 = ]`."""
    return f"{OPEN} {spaced(expression)} {EQUALS}" + (f" {digits(result)}" if result is not None else "") + f" {CLOSE}"


def statement(owner: str, count: int, item: str, call: str | None = None) -> str:
    return f"{SO} {owner} has " + (f"{call} " if call else "") + f"{digits(count)} {item} ."


def render(ledger: Ledger, style: Style = "plain", annotated: bool = False) -> str:
    """The ledger as text; `annotated` writes each stated count's computation before it."""
    parts = [f"{ledger.owner} has {digits(ledger.start)} {ledger.item} ."]
    counts = ledger.counts()
    for i, s in enumerate(ledger.steps):
        parts.append(_sentence(ledger.owner, ledger.item, s))
        last = i == len(ledger.steps) - 1
        if style == "restating" or last:
            since = i if style == "restating" else 0
            call = call_text(ledger.expression(since), counts[i]) if annotated else None
            parts.append(statement(ledger.owner, counts[i], ledger.item, call))
    return " ".join(parts)


def prompt(ledger: Ledger) -> str:
    """A plain ledger up to the count it asks for: "... so Fay has"."""
    text = render(ledger)
    return text[: text.rindex(f"{SO} {ledger.owner} has") + len(f"{SO} {ledger.owner} has")]


def _number(rng: random.Random, big: bool) -> int:
    if big:
        return rng.randint(50, 99)
    return rng.randint(1, 20) if rng.random() < 0.85 else rng.randint(21, 49)


def draw(rng: random.Random, steps: int, big: bool = False) -> Ledger:
    """One ledger with `steps` changes; counts never go below zero. `big`: every number from 50 to 99."""
    owner, other = rng.sample(NAMES, 2)
    start = _number(rng, big)
    value, out = start, []
    for _ in range(steps):
        amount = _number(rng, big)
        sign = -1 if amount <= value and rng.random() < 0.5 else 1
        if rng.random() < 0.3:
            step = Step(sign, amount, "gives", other)
        else:
            step = Step(sign, amount, rng.choice(TAKE if sign < 0 else GET))
        value += sign * amount
        out.append(step)
    return Ledger(owner, rng.choice(ITEMS), start, tuple(out))


def draw_many(n: int, seed: int, *, steps: tuple[int, ...] = (1, 2, 3), big: bool = False) -> list[Ledger]:
    """`n` ledgers, the number of steps cycling through `steps` (so every count is equally represented)."""
    rng = random.Random(f"ledgers/{seed}/{big}")
    return [draw(rng, steps[i % len(steps)], big) for i in range(n)]


@dataclass(frozen=True)
class CorpusMix:
    """Shares of the pretraining corpus: plain, restating and annotated ledgers (the rest of 1 is annotated)."""

    plain: float = 0.3
    restating: float = 0.3

    @property
    def annotated(self) -> float:
        return max(0.0, 1.0 - self.plain - self.restating)


NO_ANNOTATIONS = CorpusMix(plain=0.5, restating=0.5)


def corpus(n: int, seed: int, mix: CorpusMix = CorpusMix()) -> list[str]:
    """`n` pretraining texts: plain, restating and (restating or plain) annotated ledgers in `mix`'s shares."""
    rng = random.Random(f"corpus/{seed}")
    texts = []
    for ledger in draw_many(n, seed + 10_000):
        r = rng.random()
        if r < mix.plain:
            texts.append(render(ledger))
        elif r < mix.plain + mix.restating:
            texts.append(render(ledger, "restating"))
        else:
            texts.append(render(ledger, rng.choice(["plain", "restating"]), annotated=True))
    return texts


def vocabulary() -> list[str]:
    """Every word the world writes (the tiny model's vocabulary, after its special tokens)."""
    words = [*NAMES, *ITEMS, *TAKE, *GET, "gives", "has", SO, *(str(d) for d in range(10))]
    return [*words, "+", "-", OPEN, EQUALS, CLOSE, STOP]
