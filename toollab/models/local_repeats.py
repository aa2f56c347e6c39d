"""An ask done again for other values: "What is the monthly payment on a $18,500 loan at 4.2% over 5 years? Can you
do the same but for 10 years instead?" read as the ask, and the ask with 10 years in place of 5; "..., and what
about 10 years?", "How about Tallinn?" and "Do it for 10 and 20 years too." ask the same way.

Seen alone, "do the same but for 10 years instead" names no loan, and seen with the ask before it SmolLM2-135M
made up the second call's principal (10500) or ended the turn after the first call. The clause that asks for the
same again is rewritten as the ask it repeats, each value it gives put where the ask gives a value of its kind: a
quoted span for a quoted span, a name in capitals for the ask's one name, a number for the number written with the
same unit, "$" or words before it ("a sample size of 150" for "sample size of 50"), or for the ask's one number.
A list ("for Summit Path and Blue Lake Trail") is one ask for each item in its value's place; two lists are put in
place as written.
Where a value finds no place, or finds two, the clause is left as it was. Lowercase words ("do the same for
carrots") are not read, which word of the ask is a value is not known, but for the tools' choices: "in feet? And
the same for meters" puts "meters" where the ask names another choice of its parameter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from toollab.models.local_dates import MONTH_NAMES
from toollab.models.local_numbers import in_digits

# The clause: after a sentence's end or a join (", and then", ", then", "; "), up to its sentence's end, asking for
# the same (thing, calculation, information) again, for (with, using, ...) what it names.
_START = re.compile(r"(?:(?<=[.?!])\s+|,?\s+and\s+then\s+|,\s*then\s+|;\s*|,\s*(?=(?:and\s+)?(?:what|how)\s+about\b))")
_CLAUSE = re.compile(
    r"(?:(?:and|then|also|next|after\s+that|afterwards|finally|lastly)\b[,:]?\s+)*"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:also\s+)?|please\s+|i\s+(?:need|want|would\s+like)\s+)?"
    r"(?:(?:(?:do|repeat|tell\s+me|give\s+me|get|find|calculate|compute|provide|show\s+me|fetch|check)\s+)?"
    r"(?:the\s+)?same(?:\s+(?:thing|calculation|information|info|analysis|query|search|request|operation|process|"
    r"computation|task))?|(?:do|redo|repeat|calculate|compute|work\s+out|find|get|check|run)\s+(?:it|this|that)"
    r"(?:\s+again)?)\s*,?\s*(?:but\s+)?(?:this\s+time\s+)?"
    r"(?:for|with|using|in|at|on|over|from)\s+"
    r"(?P<new>.+?)(?:\s+(?:instead|too|as\s+well))?(?:,?\s+please)?\s*(?P<end>[.?!]?)$",
    re.I,
)
# ... or asking about other values the same way: "What about 10 years?", "And how about for Oslo?"
_ABOUT = re.compile(
    r"(?:(?:and|but|then|also)\b[,:]?\s+)*(?:what|how)\s+about\s+(?:(?:for|with|using|in|at|on|over|from|after)\s+)?"
    r"(?P<new>.+?)(?:\s+instead)?(?:,?\s+please)?\s*(?P<end>[.?!]?)$",
    re.I,
)
_SENTENCE = re.compile(r"[.?!](?=\s|$)")

_QUOTED = r"(?<!\w)'[^']+'(?!\w)|\"[^\"]+\""  # not the apostrophes of "I'm ... What's"
_NAME = r"[A-Z][\w'&-]*(?:\.(?=\w))?[\w'&-]*(?:\s+(?:[A-Z0-9][\w'&-]*|&|of|de|la|du|von))*(?:,\s*[A-Z]{2}\b)?"
# a unit is no join: "10 and 20 years" is a list
_NUMBER = (
    r"(?P<dollar>\$)?(?P<number>(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?)(?P<unit>%|-?\s?(?!(?:and|or)\b)[A-Za-z][\w-]*)?"
)
_JOIN = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
_ENDS_IN_UNIT = re.compile(r"(?:%|[A-Za-z][\w-]*)$")  # a number written with its unit ("20 years", "3.5%")
_NOT_UNITS = {"and", "or", "instead", "please", "this", "time", "too", "as", "well", "at", "for", "in", "on", "of",
              "to", "with", "over", "a", "an", "the", "is", "per", "by", "from", "than", "then"}  # fmt: skip
_STOP = _NOT_UNITS | {"i", "my", "me", "what", "how", "much", "many", "are", "be", "do", "does", "will", "it"}
_MONTHS = frozenset(names[0].capitalize() for names in MONTH_NAMES)  # "July 2027" is a date, not a name
_OPENERS = {"What", "Where", "When", "How", "Is", "Are", "Can", "Could", "Would", "Which", "Who", "Does", "Do", "Will",
            "Should", "Please", "Find", "Get", "Tell", "Give", "Show", "Book", "Schedule", "If", "I", "I'm", "And",
            "Then", "Also", "After", "Calculate", "Compute", "Fetch", "Check", "Set", "Turn", "Order"}  # fmt: skip


# ... or what the ask would come to with other values: "What would it be at 4%?", "What if the rate were 4%?",
# "And for 20 years?", "And Spain?" (a sentence of its own: no comma, so no other ask follows)
_WOULD = re.compile(
    r"(?:(?:and|but|then|also)\b[,:]?\s+)*(?:"
    r"(?:what|how\s+much)\s+(?:would|will)\s+(?:it|that|this|the\s+[a-z]+(?:\s+[a-z]+)?)\s+(?:be|come\s+to|cost)"
    r"|what\s+if\s+(?:(?:it|that|this)(?:'s|\s+(?:is|was|were))|(?:i|we)\s+(?:use|used|try|tried)"
    r"|the\s+[a-z]+(?:\s+[a-z]+)?\s+(?:is|was|were))"
    r"|(?<![^\s])(?:and|or|now)(?=\s+(?:for|with|using|at|in|on|over)\s+[^,]+$)"
    r"|(?<![^\s])(?:and|or)(?=\s+(?!(?:" + "|".join(sorted(_OPENERS)) + r")\b)[A-Z0-9$][^,]{0,40}$))"
    r"\s+(?:(?:for|with|using|in|at|on|over|from|after|of)\s+)?"
    r"(?P<new>[^,]+?)(?:\s+instead)?(?:,?\s+please)?\s*(?P<end>[.?!]?)$",
    re.I,
)


@dataclass(frozen=True)
class Value:
    """A value as a request writes it: its kind, its span, and the words around it that tell what it is."""

    kind: str  # "quoted", "name", "number" or "choice" (a tool's one-word choice; its cues are its parameters)
    start: int
    end: int
    cues: frozenset[str]
    unit: str | None = None  # a number's unit, stemmed ("year", "%", "$")


def _again(clause: str) -> re.Match[str] | None:
    """The clause read as an ask for the same again ("... do the same for ...", "What about ...?"), or None."""
    return _CLAUSE.fullmatch(clause) or _ABOUT.fullmatch(clause) or _WOULD.fullmatch(clause)


def again_clause(request: str) -> tuple[str, str, str] | None:
    """The request around its first clause that asks for the same again: (what comes before, the clause, what
    comes after it); None when it has none."""
    for start in _START.finditer(request):
        stop = _SENTENCE.search(request, start.end())
        end = stop.end() if stop else len(request)
        clause = request[start.end() : end].strip()
        if found := _again(clause):
            before = request[: start.start()].strip().rstrip(",;")
            before += "" if before[-1:] in ".?!" else found.group("end") or "."  # "..., and then do the same ...?"
            return before, clause, request[end:].strip()
    return None


def done_again(ask: str, clause: str, choices: Mapping[str, frozenset[str]] | None = None) -> list[str] | None:
    """`ask` with each value `clause` gives (a clause that `again_clause` found) in place of the ask's value of its
    kind (see the module's docstring), one ask for each item where one value is a list ("Do it for 10 and 20
    years": the ask over 10 years, and over 20; SmolLM2 put the 20 in a listing ask's amount); None when a value
    finds no place or two, or the clause gives none. Numbers said in words are read as digits where the words as
    written do not place every value ("over twenty years" for "for 10 years"; not first, as "Two Wheels Depot" is a
    name). Given the tools' `choices` (a lowercase choice and the parameters it is a choice of), a choice goes
    where the ask names a choice of the same parameter ("in feet? And the same for meters")."""
    chosen = choices or {}
    done = _done_again(ask, clause, chosen)
    if done is None and (in_digits(ask), in_digits(clause)) != (ask, clause):
        return _done_again(in_digits(ask), in_digits(clause), chosen)
    return done


def _done_again(ask: str, clause: str, choices: Mapping[str, frozenset[str]]) -> list[str] | None:
    found = _again(clause)
    if found is None:
        return None
    # the values are read in the whole clause, for the words before them ("using the 'simpson' method"), but taken
    # only after "the same ... for"; a name there may open the words ("for Kraków")
    given = [v for v in _values(clause, found.start("new"), choices) if v.start >= found.start("new")]
    places = _values(ask, choices=choices)
    if not given:
        return None
    replacements: list[tuple[Value, str, list[str]]] = []  # each place, what goes there, and its items if a list
    for value in given:
        place = _place(value, places)
        if place is None or any(place.start == p.start for p, _, _ in replacements):
            return None
        text = clause[value.start : value.end]
        replacements.append((place, text, _items(text, value.kind, choices)))
    lists = [items for _, _, items in replacements if len(items) > 1]
    count = len(lists[0]) if len(lists) == 1 else 1  # no list, or lists to pair: one ask written as the clause does
    asks = []
    for k in range(count):
        redone = ask
        for place, text, items in sorted(replacements, key=lambda r: r[0].start, reverse=True):
            written = items[k] if count > 1 and len(items) > 1 else text
            united = place.kind != "number" or _ENDS_IN_UNIT.search(written) is not None
            end = place.end if united else place.start + _digits_end(ask, place)
            redone = redone[: place.start] + written + redone[end:]
        asks.append(redone if redone[-1:] in ".?!" else redone + (found.group("end") or "."))
    return asks


def _items(text: str, kind: str, choices: Mapping[str, frozenset[str]]) -> list[str]:
    """A value's items where it is a list ("10" and "20 years" of "10 and 20 years"), else the value alone."""
    pattern = {"quoted": _QUOTED, "name": _NAME, "number": _NUMBER, "choice": _choice_pattern(choices)}[kind]
    items = [m.group() for m in re.finditer(pattern, text, re.I if kind == "choice" else 0)]
    return items if len(items) > 1 else [text]


def _digits_end(ask: str, place: Value) -> int:
    """The length of a number's "$" and digits from its start (what is replaced when the new value has no unit)."""
    written = re.match(r"\$?\d+(?:,\d{3})*(?:\.\d+)?", ask[place.start :])
    return written.end() if written else place.end - place.start


def _place(value: Value, places: list[Value]) -> Value | None:
    """Where in the ask `value` goes: the one value of its kind, the one number with its unit, or the one of its
    kind sharing the most cues ("at 4.2%" after "over 10 years" has the cue "year" too, but not its unit)."""
    same = [p for p in places if p.kind == value.kind and (p.kind != "choice" or p.cues & value.cues)]
    if len(same) == 1:
        return same[0]
    if value.unit is not None and len(united := [p for p in same if p.unit == value.unit]) == 1:
        return united[0]
    scores = [len(value.cues & p.cues) for p in same]
    best = max(scores, default=0)
    if best == 0 or scores.count(best) > 1:
        return None
    return same[scores.index(best)]


def _listed(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A value of the pattern's kind, or a list of them ("Summit Path and Blue Lake Trail"): the pattern again after
    a join, its groups renamed (a name may be used once in a pattern)."""
    return re.compile(rf"(?:{pattern})(?:{_JOIN}(?:{pattern.replace('?P<', '?P<_')}))*", flags)


_LISTED = [(kind, _listed(pattern)) for kind, pattern in (("quoted", _QUOTED), ("name", _NAME), ("number", _NUMBER))]


def _choice_pattern(choices: Mapping[str, frozenset[str]]) -> str:
    """A pattern for the tools' one-word choices as words ("meters", "feet"); one that matches nothing without."""
    if not choices:
        return r"(?!x)x"
    return r"(?<![\w-])(?:" + "|".join(re.escape(c) for c in sorted(choices, key=len, reverse=True)) + r")(?![\w-])"


def _values(text: str, opening: int = -1, choices: Mapping[str, frozenset[str]] | None = None) -> list[Value]:
    """The values `text` writes: quoted spans, names in capitals (not a sentence's opening word), numbers, and the
    tools' `choices` (their cues the parameters they are choices of), each list of them ("Summit Path and Blue Lake
    Trail", "3.5% and 6.75%") one value. A name that starts at `opening` is a name even when it is one word."""
    found: list[Value] = []
    taken = [False] * len(text)
    chosen = choices or {}
    choice = _choice_pattern(chosen)
    listed_choices = ("choice", _listed(choice, re.I))
    for kind, listed in [*_LISTED, listed_choices]:
        for match in listed.finditer(text):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            if kind == "choice":
                words = re.findall(choice, match.group(), re.I)
                cues = frozenset.intersection(*(chosen[w.lower()] for w in words))
                found.append(Value(kind, start, end, cues))
                taken[start:end] = [True] * (end - start)
                continue
            if kind == "name" and start != opening and (start := _name_start(text, start, match.group())) >= end:
                continue
            if kind == "number":
                end = _number_end(text, match)
            found.append(Value(kind, start, end, _cues(text, start, end, kind), _unit_of(text[start:end], kind)))
            taken[start:end] = [True] * (end - start)
    return sorted(found, key=lambda v: v.start)


def _number_end(text: str, match: re.Match[str]) -> int:
    """Where a number (or a list of them) ends: after its unit, unless the word after it is no unit."""
    unit = match.group("unit") or ""
    last = re.search(r"(?:%|-?\s?[A-Za-z][\w-]*)$", match.group())
    if unit and last and last.group().strip(" -").lower() in _NOT_UNITS:
        return match.end() - len(last.group())
    return match.end()


def _name_start(text: str, start: int, name: str) -> int:
    """Where a name found in capitals starts once the words that open a sentence ("Can Spoke & Chain ...": Spoke)
    are left out, and a lone word opening a sentence is no name; past its end when nothing is left, or it is a
    date's month ("July 2027")."""
    words = name.split()
    while words and words[0].rstrip(",") in _OPENERS:
        start += len(words[0])
        start += len(text[start:]) - len(text[start:].lstrip())
        words = words[1:]
    opening = start == 0 or re.search(r"[.?!:]\s*$", text[:start]) is not None
    if opening and len(words) >= 3 and words[1] in ("of", "de", "la", "du", "von"):  # "Progress of Library Renewal"
        start = text.index(words[2], start)
        words = words[2:]
    if not words or not words[0][0].isupper() or (opening and len(words) == 1) or words[0] in _MONTHS:
        return len(text)
    return start


def _unit_of(span: str, kind: str) -> str | None:
    """A number's unit as a cue: its stemmed word or "%" after it, else "$" before it; None for other values."""
    if kind != "number":
        return None
    if unit := _ENDS_IN_UNIT.search(span):
        return _stem(unit.group().lower())
    return "$" if span.startswith("$") else None


def _cues(text: str, start: int, end: int, kind: str) -> frozenset[str]:
    """The words that tell what a value is: the two content words before it, its unit, and "$"."""
    before = [w.lower() for w in re.findall(r"[A-Za-z][\w-]*", text[max(0, start - 40) : start])[-3:]]
    cues = {_stem(w) for w in before if w not in _STOP}
    if kind == "number":
        span = text[start:end]
        if span.startswith("$"):
            cues.add("$")
        if unit := _unit_of(span, kind):
            cues.add(unit)
    return frozenset(cues)


def _stem(word: str) -> str:
    """A word without its ending: "rated" and "rating" alike, "years" as "year"."""
    return re.sub(r"(?:ing|ed|es|s)$", "", word) if len(word) > 4 else word
