"""Dates the request writes in words, in the format a parameter's description asks for.

"Find the stock price at closing March 11, 2022" against a `date` described "Format: yyyy-mm-dd": SmolLM2 copies
"March 11, 2022", as grounding tells it to. `said_dates` gives the request's dates written the way the description
asks ("2022-03-11"), and the grammar offers only those for that parameter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Any

from toollab.tools import ToolSpec

# Each month's names, its full name first, in the year's order.
MONTH_NAMES = (
    ("january", "jan"),
    ("february", "feb"),
    ("march", "mar"),
    ("april", "apr"),
    ("may",),
    ("june", "jun"),
    ("july", "jul"),
    ("august", "aug"),
    ("september", "sep", "sept"),
    ("october", "oct"),
    ("november", "nov"),
    ("december", "dec"),
)
_MONTHS = {name: number for number, names in enumerate(MONTH_NAMES, start=1) for name in names}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_SPOKEN = (
    re.compile(rf"\b{_MONTH}\s*{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),  # March 11, 2022; March.11, 2022; May 2nd 2027
    # 11 March 2022; the 14th of March, 2027 ("the" goes with the date: "on the 2nd and the 9th" lists them)
    re.compile(rf"\b(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b"),  # 2022-03-11
)
DIGIT_DATE = r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}"  # a date in digits, as a format writes it: 2027-09-09, 09/09/2027
# "YYYY-MM-DD", "mm/dd/yyyy", "DD-MM-YYYY": the three fields once each, one separator.
_FORMAT = re.compile(r"\b(yyyy|mm|dd)([-/.])(yyyy|mm|dd)\2(yyyy|mm|dd)\b", re.IGNORECASE)
_FIELDS = {"yyyy": "%Y", "mm": "%m", "dd": "%d"}


def date_format(description: str) -> str | None:
    """The strftime format a parameter's description asks its dates in ("Format: yyyy-mm-dd" -> "%Y-%m-%d"), or
    None when it names none."""
    match = _FORMAT.search(description)
    if match is None:
        return None
    fields = [match.group(i).lower() for i in (1, 3, 4)]
    if len(set(fields)) < 3:
        return None
    return match.group(2).join(_FIELDS[f] for f in fields)


def _spans(request: str) -> list[tuple[int, int, date]]:
    """Where the request writes whole dates (day, month and year), in order, overlaps left out. Numeric dates other
    than ISO's are not read: "03/04/2027" does not say which is the month."""
    found: list[tuple[int, int, date]] = []
    for pattern in _SPOKEN:
        for match in pattern.finditer(request):
            month = match.group("month")
            number = int(month) if month.isdigit() else _MONTHS[month.lower()]
            try:
                day = date(int(match.group("year")), number, int(match.group("day")))
            except ValueError:  # "February 30, 2027"
                continue
            if not any(start < match.end() and match.start() < end for start, end, _ in found):
                found.append((match.start(), match.end(), day))
    return sorted(found, key=lambda span: span[0])


def date_spans(request: str) -> list[tuple[int, int]]:
    """Where the request writes whole dates, in order (`dates_in` reads them)."""
    return [(start, end) for start, end, _ in _spans(request)]


def dates_in(request: str) -> list[date]:
    """The whole dates the request writes, in the order it writes them, each once."""
    return list(dict.fromkeys(day for _, _, day in _spans(request)))


def said_dates(schema: dict[str, Any], request: str) -> list[str]:
    """A string parameter's possible values when its description asks a date format and the request writes whole
    dates: those dates in that format; else nothing (the parameter is left as it is)."""
    if schema.get("type") != "string" or schema.get("enum"):
        return []
    form = date_format(str(schema.get("description", "")))
    if form is None:
        return []
    return [day.strftime(form) for day in dates_in(request)]


def written_as_asked(request: str, tools: Sequence[ToolSpec]) -> str:
    """The request with its dates written as the tools' date parameters ask, when they all ask one format ("on
    9 September 2027" -> "on 2027-09-09"): what a call copies from, and what says whether a call is grounded in
    the request (a second call's "2027-09-09") or takes the next item of a list of dates. Unchanged otherwise."""
    forms = {
        form
        for tool in tools
        for schema in (tool.parameters.get("properties") or {}).values()
        if isinstance(schema, dict) and schema.get("type") == "string"
        if (form := date_format(str(schema.get("description", "")))) is not None
    }
    if len(forms) != 1:
        return request
    (form,) = forms
    for start, end, day in reversed(_spans(request)):
        request = request[:start] + day.strftime(form) + request[end:]
    return request
