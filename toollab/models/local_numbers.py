"""Numbers a request says without writing them in digits: in words ("two nights", "the top five", "twenty-five")
or with a magnitude ("$2 million", "1.2 billion", "$1M").

SmolLM2 copies digits it sees; a number said so it has to make up ("top five": 4), and the check that a call's
values come from the request (`local_mentions.unfounded`) did not find 2 in "two nights" and turned a right call
down. `said_numbers` gives those numbers in digits, for the grounding's source and for that check.
"""

from __future__ import annotations

import functools
import re

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
    "no one" reads as 1 too, a value a call rarely takes); a magnitude multiplies the number before it."""
    plain = without_separators(request)
    found: list[str] = []
    for match in _MAGNITUDE.finditer(plain):
        number, word = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        found.append(_plain(round(float(number) * _MAGNITUDES[word.lower()], 6)))
    written = set(_DIGITS.findall(plain))
    spoken = in_digits(_MAGNITUDE.sub(" ", plain))
    found += [n for n in _DIGITS.findall(spoken) if n not in written]
    return tuple(dict.fromkeys(n for n in found if n not in written))


@functools.lru_cache(maxsize=64)
def in_digits(request: str) -> str:
    """`request` with the numbers it says in words written in digits ("What is twelve times three?": "What is 12
    times 3?"; text2num's `alpha2digit`, every number however small)."""
    from text_to_num import alpha2digit

    # a lone surrogate (a user's text may hold one) cannot go to text2num, which reads UTF-8
    return str(alpha2digit(request.encode("utf-8", "replace").decode("utf-8"), "en", threshold=0))
