"""Numbers a request says without writing them in digits: in words ("two nights", "the top five", "twenty-five")
or with a magnitude ("$2 million", "1.2 billion", "$1M").

SmolLM2 copies digits it sees; a number said so it has to make up ("top five": 4), and the check that a call's
values come from the request (`local_mentions.unfounded`) did not find 2 in "two nights" and turned a right call
down. `said_numbers` gives those numbers in digits, for the grounding's source and for that check.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from toollab.tools.arithmetic import without_separators

_MAGNITUDES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9}
_MAGNITUDE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(thousand|million|billion)\b|(?<![\w.])(\d+(?:\.\d+)?)(k|m|mn|bn|b)\b",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@functools.lru_cache(maxsize=64)
def said_numbers(request: str) -> tuple[str, ...]:
    """The numbers `request` says in words or with a magnitude, in digits, each once, in the order said; not the
    numbers it writes in digits. Words are read by text2num (`alpha2digit`, every number however small: "one" of
    "no one" reads as 1 too, a value a call rarely takes), and a list of them one by one (`words_in_digits`:
    text2num reads "thirty, twenty and five" as 30 and 25); a magnitude multiplies the number before it."""
    plain = without_separators(request)
    found: list[str] = []
    for match in _MAGNITUDE.finditer(plain):
        number, word = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        found.append(_plain(round(float(number) * _MAGNITUDES[word.lower()], 6)))
    written = set(_DIGITS.findall(plain))
    spoken = in_digits(_MAGNITUDE.sub(" ", plain))
    found += [n for n in _DIGITS.findall(spoken) if n not in written]
    for listed in _SAID_LIST.finditer(plain):  # and a list one by one: "thirty, twenty and five" is 30, 20 and 5
        found += _DIGITS.findall(words_in_digits(listed.group()))
    return tuple(dict.fromkeys(n for n in found if n not in written))


@functools.lru_cache(maxsize=64)
def in_digits(request: str) -> str:
    """`request` with the numbers it says in words written in digits ("What is twelve times three?": "What is 12
    times 3?"; text2num's `alpha2digit`, every number however small)."""
    from text_to_num import alpha2digit

    # a lone surrogate (a user's text may hold one) cannot go to text2num, which reads UTF-8
    return str(alpha2digit(request.encode("utf-8", "replace").decode("utf-8"), "en", threshold=0))


# Numbers in words read one by one, not by text2num: it joins the items of a list said in words ("thirty, twenty
# and five years" reads "30, 25"), and each item is a number of its own.
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
SAID = rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS)}))?|{'|'.join(_UNITS)})"
_SAID_WORDS = re.compile(rf"(?<![\w-]){SAID}(?![\w-])", re.IGNORECASE)
# ", " ", and " " and " " or " " as well as " between a list's items
LIST_SEPARATOR = r"(?:\s*,\s*(?:and\s+|or\s+|as\s+well\s+as\s+)?|\s+(?:and|or|as\s+well\s+as)\s+)"
# "..., respectively": the request's lists pair their items in order (the k-th of each list go together)
RESPECTIVELY = re.compile(r"\brespective(?:ly)?\b", re.IGNORECASE)
_SAID_LIST = re.compile(rf"(?<![\w-]){SAID}(?:{LIST_SEPARATOR}{SAID})+(?![\w-])", re.IGNORECASE)


def said_value(said: str) -> int | float | None:
    """A number as written ("18500", "5.0%", "$36000", "thirty", "twenty-five"): an int unless written with a
    decimal point."""
    plain = said.lower().strip().lstrip("$").rstrip("%").strip()
    if re.fullmatch(r"-?\d+", plain):
        return int(plain)
    if re.fullmatch(r"-?\d+\.\d+", plain):
        return float(plain)
    words = re.split(r"[- ]", plain)
    total = _TENS.get(words[0], _UNITS.get(words[0]))
    if total is None:
        return None
    return total + (_UNITS.get(words[1], 0) if len(words) > 1 else 0)


@functools.lru_cache(maxsize=64)
def words_in_digits(text: str) -> str:
    """`text` with each number it says in words up to ninety-nine written in digits, one by one ("over thirty,
    twenty and five years": "over 30, 20 and 5 years"), where `in_digits` would read a list as one number."""
    return _SAID_WORDS.sub(lambda m: str(said_value(m.group())), text)


PLAIN_NUMBER = r"-?\d+(?:\.\d+)?"  # a number as written: 5, -2, 10.5 (a list's item, a value the request gives)


def whole_number(value: str) -> re.Pattern[str]:
    """`value` (a plain number) written whole, as a call or a request may write it: "88.0" as 88 (the grammar
    writes a whole float so) and 88 as 88.0; not inside another number (5 of 675000, of 5.5)."""
    whole = re.fullmatch(r"(-?\d+)(?:\.0+)?", value)
    written = re.escape(whole.group(1)) + r"(?:\.0+)?" if whole else re.escape(value)
    return re.compile(rf"(?<![\d.]){written}(?![\d]|\.\d)")


@functools.lru_cache(maxsize=64)
def numbers_in_digits(text: str) -> str:
    """`text` with its numbers as calls write them: no thousands separators, words in digits one by one."""
    return without_separators(words_in_digits(text))


def holds_number(texts: Sequence[str], number: str, source: str) -> bool:
    """Whether values written `texts` (`local_steering.number_texts`) hold the plain number `number` of the
    `source`: one written so, or the same number written otherwise (88 for "88.0") where the source does not write
    that value as it is ("5 and 20 years at 5.0%": a rate of 5.0 is the source's 5.0, not the list's 5)."""
    if number in texts:
        return True
    plain = without_separators(source)
    return any(whole_number(number).fullmatch(t) is not None and not _written_as(t, plain) for t in texts)


def writes_number(number: str, text: str) -> bool:
    """Whether `text` writes the plain number `number` whole (`whole_number`; with separators, or in words)."""
    pattern = whole_number(number)
    return pattern.search(without_separators(text)) is not None or pattern.search(numbers_in_digits(text)) is not None


def _written_as(text: str, source: str) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(text)}(?![\d]|\.\d)", source) is not None
