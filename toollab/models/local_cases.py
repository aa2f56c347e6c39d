"""A sentence that states its cases side by side, read as one sentence per case (`decompose`).

"What will $250,000 be worth after 30 years at 5% and after 20 years at 4%?" asks twice: the words after "and" say
again, with other values, what the words before it say ("after _ years at _%"). SmolLM2-135M wrote one call for
it; "Who won Riverside Rovers vs Old Town Athletic and Harbor City FC vs Northfield United?" got Riverside Rovers
in both calls. Read as "What will $250,000 be worth after 30 years at 5%?" and "... after 20 years at 4%?", each
case is a request of its own, with what comes before and after the cases around it.

Two stretches are cases of one sentence when, token by token (a number, a date, a quoted span or a capitalised name
is one token), each pair is the same word or two values of one kind: at least one pair the same (a single item
on each side, "beans and lettuce", is a list, `listed`'s to read) and one pair of values. Two different lowercase
words are values too ("the advanced german course and the beginner spanish course"), but not where they are
words of a tool's parameter names ("the home team Lakers and the away team Celtics" is one call's two
parameters) nor words that hold a sentence together ("a", "of", "with"), and a case does not open with them ("base
10 and height 5" is one triangle). More cases may come before, joined by commas ("after 30 years at 5%, after 20
years at 4% and after 10 years at 3%").

A sentence that says "respectively" pairs its lists in order: "Monthly payment for $1,250,000, 18,500 and 240,000
over thirty, twenty and five years, respectively?" is three loans, the k-th amount with the k-th term
(`respective_sentences`). SmolLM2 paired them wrongly from the whole sentence, and the pins that keep a list's later
calls to its items left (`local_mentions.pinned_next`) keep no pairs; each case read alone, with the k-th item of
every list in place of the list, is a request with one call.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toollab.models.local_dates import date_spans
from toollab.models.local_names import GLUE_WORDS, NAME, choice_words, name_words
from toollab.models.local_numbers import RESPECTIVELY, SAID
from toollab.models.local_parts import MAX_PARTS, SENTENCE_END, Part, lists_several
from toollab.tools import ToolSpec

MAX_CASES = 4  # like MAX_PARTS: BFCL's parallel items ask 2 to 4 things
_QUOTED = re.compile(r"""(?<![\w'])(?:'[^']{1,80}'|"[^"]{1,80}")(?![\w'])""")
# a list written in brackets, one level of brackets inside it allowed ("[7, 3, 9]", "[[1, 2], [3, 4]]")
BRACKETED = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]")
_NUMBER = re.compile(r"[$€£]?(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)%?")
_NAME = re.compile(NAME)
_WORD = re.compile(r"[A-Za-z][\w'-]*|[,;:]")
# words that say which measure a number is: "5 m long, 4 m wide and 2.5 m high" is one room, not three cases
_MEASURES = frozenset({"long", "wide", "high", "tall", "deep", "thick"})
# What may come between "and" and the second case: "and also after 20 years", "and another with 48,200 people"
_FILLERS = frozenset({"also", "then", "another", "for"})


@dataclass(frozen=True)
class _Token:
    kind: str  # "value:number", "value:date", "value:list", "value:quoted", "value:name", "word" or "mark"
    text: str
    start: int
    end: int


def _tokens(sentence: str) -> list[_Token]:
    """The sentence's tokens: a value (a date, a list in brackets, a quoted span, a number with its currency or
    percent sign, a capitalised name that does not open a sentence) is one token; words are compared lowercased.
    "[7, 3, 9] and [2, 8, 6, 1]" are two values: read item by item, the first case took the second's last item."""
    taken: list[tuple[int, int, str]] = [(a, b, "value:date") for a, b in date_spans(sentence)]
    opens = {0} | {m.end() for m in SENTENCE_END.finditer(sentence)}

    def free(a: int, b: int) -> bool:
        return not any(a < e and s < b for s, e, _ in taken)

    patterns = ((BRACKETED, "value:list"), (_QUOTED, "value:quoted"), (_NUMBER, "value:number"), (_NAME, "value:name"))
    for pattern, kind in patterns:
        masked = "".join(" " if not free(i, i + 1) else ch for i, ch in enumerate(sentence))  # a name ends at a date
        for m in pattern.finditer(masked):
            start = m.start()
            if kind == "value:name" and start in opens:  # a sentence's first word: a name only with more after it
                rest = re.match(r"[\w'.&-]+\s+(?:(?:&|of|on|de|la|the)\s+)?", sentence[start:])  # Progress of X
                if rest is None or not re.match(r"[A-Z0-9]", sentence[start + rest.end() : start + rest.end() + 1]):
                    continue
                start += rest.end()
            if free(start, m.end()) and sentence[start : m.end()].strip():
                taken.append((start, m.end(), kind))
    for m in _WORD.finditer(sentence):
        if free(m.start(), m.end()):
            taken.append((m.start(), m.end(), "mark" if m.group() in ",;:" else "word"))
    return [_Token(kind, sentence[a:b], a, b) for a, b, kind in sorted(taken)]


def _pair(a: _Token, b: _Token, labels: frozenset[str]) -> str | None:
    """ "same", "value" or None (the two stretches are no cases of one sentence) for two tokens in one place."""
    if a.kind != b.kind:
        return None
    if a.kind == "word":
        x, y = a.text.lower(), b.text.lower()
        if x == y:
            return "same"
        return None if {x, y} & (GLUE_WORDS | labels | _MEASURES) else "value"
    if a.kind == "mark":
        return "same" if a.text == b.text else None
    return "value"


def _aligned(
    before: list[_Token], after: list[_Token], labels: frozenset[str], choices: Mapping[str, frozenset[str]]
) -> bool:
    """Whether two stretches of equal length are two cases of one sentence (see the module's docstring)."""
    pairs = [_pair(a, b, labels) for a, b in zip(before, after, strict=True)]
    if None in pairs or "value" not in pairs:
        return False
    same = [t.text.lower() for p, t in zip(pairs, before, strict=True) if p == "same" and t.kind == "word"]
    if not same:
        return False  # "Porto, Portugal and Cusco, Peru": a list of places, not cases
    values = [(a, b) for p, a, b in zip(pairs, before, after, strict=True) if p == "value"]
    words = all(a.kind == "word" for a, _ in values)
    if words and set(same) <= GLUE_WORDS and not any(a.text.lower() in choices for a, _ in values):
        return False  # "the tire pressure and the oil change interval": two things asked, not one thing's cases
    # a case opens with the same word, or with a name, a date or a quoted span: "base 10 and height 5" and "sides
    # of 3 cm and 4 cm" are one ask's values
    # ... or with a number where two values vary ("$75 with a 50% match, and $100 with a 25% match")
    opening = ("value:name", "value:date", "value:quoted", "value:list")
    return (
        pairs[0] == "same"
        or before[0].kind in opening
        or (before[0].kind == "value:number" and pairs.count("value") >= 2)
    )


def _labels(tools: Sequence[ToolSpec]) -> frozenset[str]:
    return frozenset(w for t in tools for p in (t.parameters.get("properties") or {}) for w in name_words(p))


_SAID = re.compile(SAID, re.IGNORECASE)
_SAYS_RESPECTIVELY = re.compile(rf"\s*,?\s*{RESPECTIVELY.pattern}\s*(?=[?.!,;]|$)|{RESPECTIVELY.pattern}\s+", re.I)


def _item_kind(token: _Token, choices: Mapping[str, frozenset[str]]) -> str | None:
    """The kind of list item a token can be: a value's kind (a number said in words is a number), a tool's choice,
    or None."""
    if token.kind.startswith("value:"):
        return token.kind
    if token.kind == "word" and _SAID.fullmatch(token.text):
        return "value:number"
    if token.kind == "word" and token.text.lower() in choices:
        return "choice"
    return None


def _is(token: _Token, text: str) -> bool:
    return token.text.lower() == text


def _lists(tokens: list[_Token], choices: Mapping[str, frozenset[str]]) -> list[list[tuple[int, int]]]:
    """The sentence's lists, each as its items' character spans: two or more items of one kind, joined by commas
    and an "and" before the last ("$1,250,000, 18,500 and 240,000", "thirty, twenty and five"); a number's unit
    goes with it where every item has the same one ("5 cm and 10 cm"), and the word before the first item may come
    again before the others ("in Paris and in Rome"). Two items just after "between" are a range, no list."""
    found: list[list[tuple[int, int]]] = []
    i = 0
    while i < len(tokens):
        kind = _item_kind(tokens[i], choices)
        if kind is None:
            i += 1
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        unit = (
            after.text.lower()
            if kind == "value:number"
            and after is not None
            and after.kind == "word"
            and after.text.lower() not in GLUE_WORDS
            and _item_kind(after, choices) is None
            else None
        )
        before = tokens[i - 1].text.lower() if i > 0 else ""
        lead = before if before in GLUE_WORDS and before != "and" else None
        items, j, joined = [(i, i + 1 if unit is None else i + 2)], i + 1 if unit is None else i + 2, False
        while not joined and j < len(tokens):
            k = j + 1 if _is(tokens[j], ",") else j
            joined = k < len(tokens) and _is(tokens[k], "and")
            k += joined
            if k > j and lead is not None and k < len(tokens) and _is(tokens[k], lead):
                k += 1  # "in Paris and in Rome": the word before the first item again
            if k == j or k >= len(tokens) or _item_kind(tokens[k], choices) != kind:
                break
            end = k + 1
            if unit is not None:
                if end >= len(tokens) or not _is(tokens[end], unit):
                    break
                end += 1
            items.append((k, end))
            j = end
        # "between the years 1800 and 1900": one range
        ranged = len(items) == 2 and any(_is(t, "between") for t in tokens[max(0, i - 3) : i])
        if len(items) >= 2 and joined and not ranged and not (kind == "value:name" and _names_joined(tokens, i, j)):
            found.append([(tokens[a].start, tokens[b - 1].end) for a, b in items])
            i = j
        else:
            i += 1
    return found


_PAIRING = frozenset({"to", "vs", "versus", "against"})


def _pairs_around(tokens: list[_Token], first: int, end: int) -> tuple[bool, bool]:
    """Whether a name and a pairing word come right before the list from token `first` to `end` (past its last),
    and whether a pairing word and a name come right after it ("Harbor City FC vs ...", "... against Northfield
    United")."""
    before, after = tokens[max(0, first - 2) : first], tokens[end : end + 2]
    return (
        len(before) == 2 and before[0].kind == "value:name" and before[1].text.lower() in _PAIRING,
        len(after) == 2 and after[1].kind == "value:name" and after[0].text.lower() in _PAIRING,
    )


def _names_joined(tokens: list[_Token], first: int, end: int) -> bool:
    """Whether a list of names from token `first` to `end` (past its last) holds names of pairs, not a list of
    them: "Lisbon, Portugal and Oslo, Norway" (places and their regions), "Harborfront to Old Town and Saltcove to
    Gull Point" (routes), "A vs B and C vs D"; not "A and B against C" (a pairing word on one side only: the list's
    items each pair with one name, `paired_sentences`)."""
    after = tokens[end : end + 2]
    if len(after) == 2 and after[1].kind == "value:name" and _is(after[0], ","):
        return True
    return all(_pairs_around(tokens, first, end))


def _with_items(sentence: str, lists: list[list[tuple[int, int]]], k: int) -> str:
    """The sentence with the k-th item of each of its `lists` in the list's place."""
    text = sentence
    for found in reversed(lists):  # from the end, so that the spans before stay where they are
        (start, _), (_, end) = found[0], found[-1]
        a, b = found[k]
        text = text[:start] + sentence[a:b] + text[end:]
    return text


def list_spans(sentence: str, tools: Sequence[ToolSpec] = ()) -> list[tuple[int, int]]:
    """Where each list the sentence writes (`_lists`) starts and ends, first item to last."""
    return [(found[0][0], found[-1][1]) for found in _lists(_tokens(sentence), choice_words(tools))]


def first_items(sentence: str, tools: Sequence[ToolSpec] = ()) -> str:
    """The sentence with each list it writes (`_lists`) reduced to its first item: what the gate also scores, as
    a list of names fits its tool less than one of them ("Can Two Wheels Depot and Hill Climb Cycles service my
    bicycle on February 29th, 2028?" 0.285, below the threshold; with Two Wheels Depot alone 0.314)."""
    lists = _lists(_tokens(sentence), choice_words(tools))
    return _with_items(sentence, lists, 0) if lists else sentence


def respective_sentences(sentence: str, tools: Sequence[ToolSpec] = ()) -> list[str]:
    """The sentence once per case where it says "respectively" and every list it writes (two or more) is of the
    same length, 2 to MAX_CASES: the k-th sentence holds the k-th item of each in the list's place, and no
    "respectively"; the sentence alone otherwise (one list, or lists of other lengths: which pair is not known)."""
    if not RESPECTIVELY.search(sentence):
        return [sentence]
    lists = _lists(_tokens(sentence), choice_words(tools))
    if len(lists) < 2 or len({len(found) for found in lists}) != 1 or len(lists[0]) > MAX_CASES:
        return [sentence]
    return [_SAYS_RESPECTIVELY.sub("", _with_items(sentence, lists, k), count=1) for k in range(len(lists[0]))]


def choice_sentences(sentence: str, tools: Sequence[ToolSpec] = ()) -> list[str]:
    """The sentence once per item where the one list it writes lists choices of one parameter of the tools ("When
    does the beginner and intermediate italian course meet?": two `level`s, two calls); the sentence alone
    otherwise, and where it says "respectively" (the list pairs with another). SmolLM2 made one call of it: two
    lowercase words are a list only where they end a clause (`local_mentions.listed_with`), which cannot know that
    these two are choices of one parameter."""
    choices = choice_words(tools)
    lists = _lists(_tokens(sentence), choices)
    if RESPECTIVELY.search(sentence) or len(lists) != 1 or len(lists[0]) > MAX_CASES:
        return [sentence]
    words = [sentence[a:b].lower() for a, b in lists[0]]
    if not all(w in choices for w in words) or not frozenset.intersection(*(choices[w] for w in words)):
        return [sentence]
    return [_with_items(sentence, lists, k) for k in range(len(words))]


def crossed_sentences(sentence: str, tools: Sequence[ToolSpec] = ()) -> list[str]:
    """The sentence once per item of its first list where it writes two lists of different sorts (`_sort`) and
    does not say "respectively": "What's the monthly payment on $100,000 and $200,000 loans at 4% over 15 and 30
    years?" asks for every amount with every term, and each sentence keeps the second list, whose items its calls
    take (`listed`); the sentence alone otherwise. SmolLM2 wrote the four calls in one turn, the last cut off at the
    token budget. Two lists of one sort ("the GCD of 12 and 18 and of 30 and 45") may pair otherwise."""
    if RESPECTIVELY.search(sentence):
        return [sentence]
    choices = choice_words(tools)
    tokens = _tokens(sentence)
    lists = _lists(tokens, choices)
    if len(lists) != 2 or len(lists[0]) > MAX_CASES or SENTENCE_END.search(sentence, lists[0][-1][1], lists[1][0][0]):
        return [sentence]  # lists of two sentences ask two things
    sorts = [_sort(sentence, tokens, found, choices) for found in lists]
    numbers = sorts[0][0] == sorts[1][0] == "number"
    if sorts[0] == sorts[1] or (numbers and not all(sign or unit for _, sign, unit in sorts)):
        return [sentence]
    return [_with_items(sentence, lists[:1], k) for k in range(len(lists[0]))]


def _sort(
    sentence: str, tokens: list[_Token], found: list[tuple[int, int]], choices: Mapping[str, frozenset[str]]
) -> tuple[str, ...]:
    """What a list's items are: the choices of the parameters they are choices of, names, dates or quoted spans,
    or numbers with their sign and the word after the list ("$" and "loans", "" and "years"); two lists of
    numbers cross only where each has one or the other (what bare numbers count is not known)."""
    first = next(t for t in tokens if t.start == found[0][0])
    kind = _item_kind(first, choices)
    if kind == "choice":
        return ("choice", *sorted(frozenset.intersection(*(choices[sentence[a:b].lower()] for a, b in found))))
    if kind != "value:number":
        return (str(kind),)
    sign = re.sub(r"[\d,.]", "", sentence[found[-1][0] : found[-1][1]])
    after = next((t for t in tokens if t.start >= found[-1][1]), None)
    unit = (
        after.text.lower()
        if after is not None and after.kind == "word" and after.text.lower() not in GLUE_WORDS
        else ""
    )
    return ("number", sign, unit)


def paired_sentences(sentence: str, tools: Sequence[ToolSpec] = ()) -> list[str]:
    """The sentence once per item where it writes one list of names that pairs, as a whole, with one name ("What was
    the score of Harbor City FC and Riverside Rovers against Northfield United?": two matches); the sentence alone
    otherwise. SmolLM2 made the list's two items one match."""
    tokens = _tokens(sentence)
    lists = _lists(tokens, choice_words(tools))
    if len(lists) != 1 or len(lists[0]) > MAX_CASES or tokens[0].kind == "value:name":
        return [sentence]
    end = next(i for i, t in enumerate(tokens) if t.end >= lists[0][-1][1]) + 1
    first = next(i for i, t in enumerate(tokens) if t.start >= lists[0][0][0])
    pairs_before, pairs_after = _pairs_around(tokens, first, end)
    if tokens[first].kind != "value:name" or pairs_after == pairs_before:
        return [sentence]
    end_mark = sentence.rstrip()[-1:] if sentence.rstrip()[-1:] in ".?!" else ""
    cases = [_with_items(sentence, lists, k).rstrip() for k in range(len(lists[0]))]
    return [case if case[-1:] in ".?!" else case + end_mark for case in cases]  # "Rome." is a name with its point


def bracketed_sentences(sentence: str, tools: Sequence[ToolSpec] = ()) -> list[str]:
    """The sentence once per item where the one list it writes lists lists in brackets ("the determinants of [[1,
    2], [3, 4]] and [[0, 1], [1, 0]]") and no offered tool takes two arrays, which they could be the two of ("Compare
    the groups [5.1, 4.9] and [6.2, 6.0]" is one call); the sentence alone otherwise. SmolLM2 wrote the two matrices
    as one."""
    tokens = _tokens(sentence)
    lists = _lists(tokens, choice_words(tools))
    if len(lists) != 1 or len(lists[0]) > MAX_CASES or any(_arrays(tool) > 1 for tool in tools):
        return [sentence]
    if not all(BRACKETED.fullmatch(sentence[a:b]) for a, b in lists[0]):
        return [sentence]
    return [_with_items(sentence, lists, k) for k in range(len(lists[0]))]


def _arrays(tool: ToolSpec) -> int:
    properties = tool.parameters.get("properties") or {}
    return sum(isinstance(s, dict) and s.get("type") == "array" for s in properties.values())


def case_sentences(sentence: str, tools: Sequence[ToolSpec] = ()) -> list[str]:
    """The sentence once per case it states side by side, pairs in order with "respectively"
    (`respective_sentences`), lists as choices of one parameter (`choice_sentences`), crosses with another list
    (`crossed_sentences`), pairs with one name (`paired_sentences`) or lists lists in brackets
    (`bracketed_sentences`), each case between what comes before the
    first and after the last; the sentence alone when it states none (or more than MAX_CASES)."""
    for reading in (respective_sentences, choice_sentences, crossed_sentences, paired_sentences, bracketed_sentences):
        if len(read := reading(sentence, tools)) > 1:
            return read
    tokens = _tokens(sentence)
    labels = _labels(tools)
    choices = choice_words(tools)
    for k in range(len(tokens) - 1, 0, -1):
        if tokens[k].kind != "word" or tokens[k].text.lower() != "and":
            continue
        head = tokens[: k - 1] if tokens[k - 1].text == "," else tokens[:k]
        tail = tokens[k + 1 :]
        while tail and tail[0].kind == "word" and tail[0].text.lower() in _FILLERS:
            tail = tail[1:]
        size = next(
            (n for n in range(min(len(head), len(tail)), 1, -1) if _aligned(head[-n:], tail[:n], labels, choices)), None
        )
        if size is None:
            continue
        cases = [head[-size:], tail[:size]]
        rest = head[:-size]
        while len(cases) < MAX_CASES + 1 and len(rest) > size and rest[-1].text == ",":
            if not _aligned(rest[-size - 1 : -1], cases[0], labels, choices):
                break
            cases.insert(0, rest[-size - 1 : -1])
            rest = rest[: -size - 1]
        if len(cases) > MAX_CASES or (rest and _is(rest[-1], "between")):  # "between 5 km north and 3 km east"
            return [sentence]
        opening, closing = sentence[: cases[0][0].start], sentence[cases[-1][-1].end :]
        sentences = [opening + sentence[case[0].start : case[-1].end] + closing for case in cases]
        return [s[:1].upper() + s[1:] for s in sentences]  # "..., and if I give $250 ...": a sentence of its own
    return [sentence]


def by_cases(parts: Sequence[Part], tools: Sequence[ToolSpec]) -> list[Part]:
    """The parts, each that states cases side by side split into one part per case (its tool kept), up to
    MAX_PARTS in all; the parts as they are when a split would go past it."""
    out: list[Part] = []
    for part in parts:
        cases = case_sentences(part.request, tools)
        if len(cases) < 2:
            out.append(part)
            continue
        out += [dataclasses.replace(part, request=case, several=lists_several(case)) for case in cases]
    return out if len(out) <= MAX_PARTS else list(parts)
