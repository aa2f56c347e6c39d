"""Places a request lists with their regions: "Porto, Portugal and Nagoya, Japan" is two places, not four.

Read as one list, "Porto, Portugal and Nagoya, Japan" made the regions items of their own (a call for the city
"Japan"), and a parameter that asks for the city with its region stopped at "Nagoya": its region is followed by
another place, as a list's item is.
"""

from __future__ import annotations

import functools
import re

PLACE = r"[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}"  # a capitalised name of one to three words
_NEXT = rf"(?:,\s+(?:and\s+|in\s+)?{PLACE}|\s+and\s+(?:in\s+)?{PLACE})"
_PLACES = re.compile(rf"(?<!^)(?<![.?!]\s)(?<![\w'-]){PLACE}{_NEXT}+")


@functools.lru_cache(maxsize=64)
def placed_pairs(request: str) -> tuple[tuple[str, str], ...]:
    """The places a request lists with their regions ("Porto, Portugal and Nagoya, Japan"; "Bergen, Norway,
    Daejeon, South Korea and Nagoya, Japan"): an even run of capitalised names whose "and" comes before the last
    two, as (place, region) pairs in order; () where there is none. A sentence's first word is no place's (its
    capital says nothing: "In Boston, MA and ...")."""
    pairs: list[tuple[str, str]] = []
    for run in _PLACES.finditer(request):
        pieces = re.split(r"(,\s+(?:and\s+)?(?:in\s+)?|\s+and\s+(?:in\s+)?)", run.group())
        names, joined = pieces[0::2], [" and " in f" {sep} " for sep in pieces[1::2]]
        names[-1] = re.sub(r"(?<![A-Z]\.[A-Z])\.$", "", names[-1])  # a sentence's stop, not "D.C."
        if len(names) >= 4 and len(names) % 2 == 0 and joined.count(True) == 1 and joined.index(True) == len(names) - 3:
            pairs += [(names[i], names[i + 1]) for i in range(0, len(names), 2)]
    return tuple(pairs)
