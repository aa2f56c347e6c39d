"""A company handbook generated from a seed: products, sites and policy editions as Markdown files in three
collections, and questions whose answers are checked automatically. Every name and number is invented, so no
model knows them without reading.

Question kinds, each needing a different retrieval move:
- lookup: a product's pressure rating, asked with the document's own words (literal search finds it);
- paraphrase: a product's weight, asked in words the document does not use ("heavy" against "mass");
- two hops: who manages the site where a product is made (find the site first, then its manager);
- edition: a policy figure in one edition, where two editions differ only in numbers and the edition is in the
  metadata, not the text (a metadata filter tells them apart);
- last step: the final step of a procedure that runs past one passage (expanding the hit reaches it).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

KINDS = ("lookup", "paraphrase", "two hops", "edition", "last step")
BIRDS = ["Kestrel", "Heron", "Plover", "Merlin", "Osprey", "Curlew", "Dunlin", "Gannet", "Shrike", "Linnet",
         "Siskin", "Avocet"]  # fmt: skip
KINDS_OF_UNIT = ["valve", "pump", "compressor"]
TOWNS = ["Harlow", "Brinmoor", "Castleford", "Dunwick", "Elsmere", "Fenby"]
FIRST = ["Ines", "Tomas", "Priya", "Jonah", "Mireille", "Kwame", "Sofia", "Ravi"]
LAST = ["Okafor", "Lindqvist", "Marchetti", "Haddad", "Nakamura", "Ferreira", "Brennan", "Quist"]
STEPS = [
    "Close the inlet isolation valve and confirm the gauge reads zero.",
    "Switch the controller to manual mode and wait for the status lamp to turn amber.",
    "Vent the residual pressure through the bleed port into the catch tank.",
    "Disconnect the sensor harness and cap each connector against dust.",
    "Lock out the power supply at the distribution board and attach a personal tag.",
    "Drain the condensate trap and wipe the housing with a dry cloth.",
    "Inspect the seals for cracks and note any damage on the inspection card.",
]
LAST_STEPS = [("seal the access hatch with a numbered tamper tag", "tamper tag"),
              ("sign the shutdown entry in the site logbook", "logbook"),
              ("return the isolation key to the shift supervisor", "isolation key"),
              ("photograph the gauge panel for the maintenance record", "gauge panel"),
              ("hang the yellow out-of-service placard on the unit", "placard"),
              ("report the shutdown time to the control room by radio", "control room"),
              ("fit the blue blanking plate over the outlet flange", "blanking plate"),
              ("file the lockout permit with the safety office", "lockout permit"),
              ("set the standby heater to frost protection", "frost protection")]  # fmt: skip


@dataclass(frozen=True)
class Question:
    text: str
    kind: str
    expected: str  # what a right answer contains (a number as a word, or a name)
    evidence: tuple[str, ...]  # the passages' text the answer rests on (phrases found in them)

    def right(self, answer: str | None) -> bool:
        """The expected value appears in the answer as a whole word (numbers: not as part of another)."""
        if not answer:
            return False
        pattern = rf"(?<![\w.]){re.escape(self.expected.lower())}(?![\w]|\.\d)"
        return re.search(pattern, answer.lower()) is not None


@dataclass(frozen=True)
class Product:
    name: str
    code: str
    kind: str
    site: str
    pressure: int
    mass: float
    warranty: int
    last_step: str
    last_word: str


@dataclass
class Handbook:
    products: list[Product]
    managers: dict[str, str]  # site -> manager
    intervals: dict[int, dict[str, int]]  # edition -> unit kind -> months between inspections

    def write(self, folder: Path) -> Path:
        """The documents as Markdown files in `folder` (products/, sites/, policies/)."""
        for p in self.products:
            _write(folder / "products" / f"{p.name.lower().replace(' ', '-')}.md", product_page(p))
        opened = random.Random(len(self.managers))
        for site, manager in self.managers.items():
            _write(folder / "sites" / f"{site.lower()}.md", site_page(site, manager, opened))
        for edition, months in self.intervals.items():  # the edition is in the metadata, not in the path
            shelf = "current" if edition == max(self.intervals) else "previous"
            _write(folder / "policies" / shelf / "maintenance.md", policy_page(edition, months))
        return folder


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def product_page(p: Product) -> str:
    steps = "\n".join(f"{i}. {s}" for i, s in enumerate(STEPS, 1))
    return f"""---
code: {p.code}
---
# {p.name}

## Overview
The {p.name} (catalogue code {p.code}) is a {p.kind} for process water and light chemical lines. It is made at
the {p.site} site and shipped worldwide from there.

## Specifications
The {p.name} is rated for a maximum pressure of {p.pressure} bar at 20 degrees. The unit's mass is {p.mass}
kilograms without fittings. Flanges follow the EN 1092 standard.

## Shutdown procedure
Follow these steps in order whenever the {p.name} is taken out of service.

{steps}
8. Finally, {p.last_step}.

## Warranty
The {p.name} carries a warranty of {p.warranty} years from the date of delivery.
"""


def site_page(site: str, manager: str, rng: random.Random) -> str:
    return f"""# {site} site

## About
The {site} site opened in {rng.randint(1961, 2015)} and employs {rng.randint(80, 900)} people on two shifts.

## Management
The {site} site is managed by {manager}, who is responsible for safety and production there.
"""


def policy_page(edition: int, months: dict[str, int]) -> str:
    lines = "\n".join(f"- Each {kind} must be inspected every {m} months." for kind, m in months.items())
    return f"""---
edition: {edition}
---
# Maintenance policy

## Inspection intervals
Units in service are inspected at fixed intervals, counted from the last recorded inspection.

{lines}

## Records
Every inspection is written on the unit's inspection card and entered in the maintenance system within a week.
"""


def handbook(seed: int) -> Handbook:
    rng = random.Random(seed)
    sites = rng.sample(TOWNS, 4)
    names = rng.sample(FIRST, 4), rng.sample(LAST, 4)
    managers = {site: f"{first} {last}" for site, first, last in zip(sites, *names, strict=True)}
    products = []
    for i, bird in enumerate(rng.sample(BIRDS, 9)):
        kind = KINDS_OF_UNIT[i % 3]
        last, word = LAST_STEPS[i % len(LAST_STEPS)]
        products.append(Product(
            f"{bird} {kind}", f"{bird[:2].upper()}-{rng.randint(100, 999)}", kind, rng.choice(sites),
            rng.randint(6, 40), round(rng.uniform(2, 60), 1), rng.randint(2, 6), last, word,
        ))  # fmt: skip
    intervals = {}
    for edition in (2023, 2024):
        intervals[edition] = {kind: rng.choice([3, 4, 6, 9, 12, 18]) for kind in KINDS_OF_UNIT}
    for kind in KINDS_OF_UNIT:  # the editions differ in every figure
        if intervals[2023][kind] == intervals[2024][kind]:
            intervals[2024][kind] = intervals[2023][kind] * 2
    return Handbook(products, managers, intervals)


def questions(book: Handbook, n: int, seed: int) -> list[Question]:
    """`n` questions, the kinds in turn, about products drawn with `seed`."""
    rng = random.Random(seed + 1)
    out = []
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        p = rng.choice(book.products)
        if kind == "lookup":
            out.append(Question(f"What is the maximum pressure of the {p.name}?", kind, str(p.pressure),
                                (f"{p.name} is rated for a maximum pressure of {p.pressure} bar",)))  # fmt: skip
        elif kind == "paraphrase":
            out.append(Question(f"How heavy is the {p.name}?", kind, str(p.mass),
                                (f"The unit's mass is {p.mass}",)))  # fmt: skip
        elif kind == "two hops":
            manager = book.managers[p.site]
            out.append(Question(f"Who manages the site where the {p.name} is made?", kind, manager,
                                (f"made at\nthe {p.site} site", f"is managed by {manager}")))  # fmt: skip
        elif kind == "edition":
            edition = rng.choice(sorted(book.intervals))
            unit = rng.choice(KINDS_OF_UNIT)
            months = book.intervals[edition][unit]
            out.append(Question(f"Under the {edition} edition of the maintenance policy, how many months may pass "
                                f"between inspections of a {unit}?", kind, str(months),
                                (f"Each {unit} must be inspected every {months} months",)))  # fmt: skip
        else:
            out.append(Question(f"What is the final step of the shutdown procedure for the {p.name}?", kind,
                                p.last_word, (f"Finally, {p.last_step}",)))  # fmt: skip
    return out
