"""The words of a parameter's name, and when two words share a stem: how the steering tells that a request names a
parameter (`named_optionals`) or writes its kind beside a value ("the Rosewood finish")."""

from __future__ import annotations

import re

GENERAL = frozenset({"num", "number", "type", "name", "value", "data", "info", "the", "and", "for", "with"})
PREFIX = 5  # two words share a stem when one begins the other or they share this many first letters
_WORD = re.compile(r"[a-z0-9]+")


def name_words(name: str) -> list[str]:
    """The telling words of a parameter's name (`max_cost`: max, cost; `roomType`: room): three letters or more,
    none of the general ones."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower()
    return [w for w in _WORD.findall(spaced) if len(w) >= 3 and w not in GENERAL]


def same_stem(a: str, b: str) -> bool:
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared >= min(PREFIX, len(a), len(b))
