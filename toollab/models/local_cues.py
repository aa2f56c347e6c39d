"""Which of a request's numbers a number parameter takes, read from the words written beside them.

A request ties its numbers to what they count: "over thirty, twenty and five years", "275,000 people", "12.5
square kilometers", "at 5.0%", "years twenty". SmolLM2, shown several lists of numbers, wrote a principal's
240,000 as a loan's `years` and a population as an area. `cued_numbers` gives a number parameter the numbers
whose cue (the words right after the number or its list, or the one right before it) shares a stem with a word
of its name, or, if none does, of its description; `local_mentions.mentioned_required` makes them the parameter's
choices in the grammar.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from toollab.models.local_names import name_words, same_stem
from toollab.models.local_numbers import SAID, said_value
from toollab.tools.arithmetic import without_separators

# Words that join a number to the rest of the sentence rather than say what it counts.
_STOP = frozenset([
    "and", "or", "nor", "but", "of", "in", "on", "at", "for", "with", "to", "by", "from", "as", "per", "than",
    "then", "is", "are", "was", "were", "the", "a", "an", "that", "which", "over", "under", "each", "every",
    "about", "around", "almost", "nearly", "only", "just", "it", "its", "this", "these", "those", "my", "our",
    "your", "their", "me", "i", "we", "you", "he", "she", "they", "be", "been", "will", "would", "should",
    "can", "could", "do", "does", "did", "what", "how"
])  # fmt: skip
# Words after which a description's word names a rate's unit, not the quantity ("interest rate per year").
_RATE = frozenset({"per", "a", "an", "each", "every"})
_NUMBER = rf"(?:\$\s?)?(?:-?\d+(?:\.\d+)?|{SAID}\b)(?:\s?%)?"
_SEPARATOR = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
_GROUP = re.compile(rf"(?<![\w.$-]){_NUMBER}(?:{_SEPARATOR}{_NUMBER})*(?!\w|\.\d)", re.IGNORECASE)
_ONE = re.compile(_NUMBER, re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z0-9]*")
_AFTER = re.compile(r"(?:-|\s+)?([a-z][a-z0-9]*)", re.IGNORECASE)
_BEFORE = re.compile(r"([a-z][a-z0-9]*)\s+$", re.IGNORECASE)


@functools.lru_cache(maxsize=64)
def number_cues(request: str) -> tuple[tuple[int | float, frozenset[str]], ...]:
    """Each number of the request (in digits or in words up to ninety-nine, thousands separators dropped) with its
    cue: the word right after it, or after the list it ends ("thirty, twenty and five years": years for all three;
    "a 30-year loan": year, not loan, which the loan's principal would take), "%" read as "percent" and a "$" before
    it as "dollars"; and the word right before it, or before the list it opens ("years twenty": years); a joining
    word is no cue."""
    text = without_separators(request)
    found: list[tuple[int | float, frozenset[str]]] = []
    for group in _GROUP.finditer(text):
        cue: set[str] = set()
        if group.group().rstrip().endswith("%"):
            cue.add("percent")
        after = _AFTER.match(text, group.end())
        if after is not None and after.group(1).lower() not in _STOP:
            cue.add(after.group(1).lower())
        before = _BEFORE.search(text[: group.start()].rstrip("$ ") + " ")
        if before is not None and before.group(1).lower() not in _STOP:
            cue.add(before.group(1).lower())
        for one in _ONE.finditer(group.group()):
            value = said_value(one.group())
            if value is not None:
                units = {"percent"} if one.group().rstrip().endswith("%") else set()
                units |= {"dollars"} if one.group().startswith("$") else set()
                found.append((value, frozenset(cue | units)))
    return tuple(found)


def _description_words(schema: dict[str, Any]) -> list[str]:
    """The telling words of a parameter's description, not those that name a rate's unit ("per year")."""
    words = _WORD.findall(str(schema.get("description", "")).lower())
    return [w for i, w in enumerate(words) if len(w) >= 3 and w not in _STOP and (i == 0 or words[i - 1] not in _RATE)]


def cued_numbers(parameter: str, schema: dict[str, Any], request: str) -> list[int | float]:
    """The request's numbers whose cue shares a stem with a word of the number parameter's name, or, where none
    does, of its description; in the request's order, each once. [] for a parameter that is not a number, or when
    no cue names it. An integer parameter gets integers only: a fraction cued for it means the cue misleads, and
    it gets none."""
    if schema.get("type") not in ("number", "integer", "float"):
        return []
    found: list[int | float] = []
    for words in (name_words(parameter), _description_words(schema)):
        if found := _cued(tuple(words), request):
            break
    if schema.get("type") == "integer":
        if not all(float(v).is_integer() for v in found):
            return []
        found = [int(v) for v in found]
    return list(dict.fromkeys(found))


def _cued(words: tuple[str, ...], request: str, percentages: bool = True) -> list[int | float]:
    """The request's numbers whose cue shares a stem with one of `words` (percentages too, or not)."""
    return [
        v
        for v, cue in number_cues(request)
        if (percentages or "percent" not in cue) and any(same_stem(w, c) for w in words for c in cue if len(c) >= 3)
    ]


@functools.lru_cache(maxsize=256)
def named_numbers(parameter: str, request: str) -> frozenset[float]:
    """The request's numbers whose cue shares a stem with a word of the parameter's name ("10 years" for `years`;
    not a rate's unit: `compounds_per_year` is not cued by "10 years"), as floats: what `Grounding` ends a number
    value at where a longer number of the request starts the same way. A percentage is left out: a parameter may
    take it as a fraction ("a 5% annual yield": 0.05)."""
    words = name_words(parameter)
    telling = tuple(w for i, w in enumerate(words) if w not in _RATE and (i == 0 or words[i - 1] not in _RATE))
    return frozenset(float(v) for v in _cued(telling, request, percentages=False))


def cue_of(value: float, request: str) -> frozenset[str]:
    """Every cue the request gives the number `value` (`number_cues`); empty for a number it gives none. Read at
    each digit a grounded number writes: from a table built once per request."""
    return _cues_by_value(request).get(value, frozenset())


@functools.lru_cache(maxsize=64)
def _cues_by_value(request: str) -> dict[float, frozenset[str]]:
    table: dict[float, set[str]] = {}
    for v, cue in number_cues(request):
        table.setdefault(float(v), set()).update(cue)
    return {v: frozenset(cue) for v, cue in table.items()}
