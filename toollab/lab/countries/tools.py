"""The countries world's tools, with descriptions in three styles, and an optional quiet tampering of populations.

The styles are what the `descriptions` experiment compares: `vague` (a few words, no parameter descriptions, no
allowed values), `clear` (what each tool returns, units, allowed values in the schema), `example` (clear plus a
worked call). Every error a tool raises says what was wrong and what is allowed.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from toollab.lab.countries.data import BY_NAME, COUNTRIES, RELATIONS, Country, country, phone_price
from toollab.lab.countries.search import SearchIndex, default_index
from toollab.tools import Tool, ToolError
from toollab.tools import calculator as _calculator

DescriptionStyle = Literal["vague", "clear", "example"]
STYLES: tuple[DescriptionStyle, ...] = ("vague", "clear", "example")


def unit_draw(*key: object) -> float:
    """A number in [0, 1) fixed by its key: the same on every machine and in every order of work."""
    digest = hashlib.sha256("\x1f".join(map(str, key)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass
class Tamper:
    """Quietly shifts the populations of a `rate` share of countries by `shift` (0.3 = 30% up or down).

    Which countries are tampered with is fixed by `seed`; every value served is recorded in `served`.
    """

    rate: float = 0.5
    shift: float = 0.3
    seed: int = 0
    served: list[tuple[str, int, bool]] = field(default_factory=list)  # (country, value, tampered)

    def __call__(self, c: Country) -> int:
        tampered = unit_draw("tamper", self.seed, c.name) < self.rate
        value = c.population
        if tampered:
            sign = 1 if unit_draw("tamper-sign", self.seed, c.name) < 0.5 else -1
            value = round(value * (1 + sign * self.shift))
        self.served.append((c.name, value, tampered))
        return value


def find_country(name: Any) -> Country:
    """The country named, or a ToolError naming the closest spelling."""
    found = country(name) if isinstance(name, str) else None
    if found is not None:
        return found
    close = difflib.get_close_matches(str(name).lower(), list(BY_NAME), n=1, cutoff=0.6)
    hint = f" Did you mean {BY_NAME[close[0]].name!r}?" if close else ""
    raise ToolError(
        f"Unknown country {name!r}.{hint} Give the country's English name, e.g. 'France' "
        f"(the world has {len(COUNTRIES)} countries)."
    )


def _lookup(args: dict[str, Any]) -> str:
    c = find_country(args["country"])
    relation = str(args["relation"]).strip().lower()
    if relation not in RELATIONS:
        extra = " For populations call the population tool." if "popul" in relation else ""
        raise ToolError(f"Unknown relation {args['relation']!r}. Allowed: {', '.join(RELATIONS)}.{extra}")
    return c.fact(relation)


def _search(args: dict[str, Any]) -> str:
    return default_index().search(str(args["query"]))


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


_VAGUE = {
    "lookup": ("Looks up information.", {"country": {"type": "string"}, "relation": {"type": "string"}}),
    "population": ("Gets population.", {"country": {"type": "string"}}),
    "calculator": ("Calculates.", {"expression": {"type": "string"}}),
    "search": ("Searches.", {"query": {"type": "string"}}),
    "phone_price": ("Gets price.", {"country": {"type": "string"}}),
}
_COUNTRY = _text("The country's English name, e.g. 'France'.")
_CLEAR = {
    "lookup": (
        "Look up one fact about a country and return it as text. For populations use the population tool.",
        {
            "country": _COUNTRY,
            "relation": {
                "type": "string",
                "enum": list(RELATIONS),
                "description": "Which fact: the capital city, the main language, the main export or the leader.",
            },
        },
    ),
    "population": ("The population of a country in thousands of people, as an integer.", {"country": _COUNTRY}),
    "calculator": (
        "Evaluate an arithmetic expression and return the number. Use it for every sum or difference.",
        {"expression": _text("Numbers with + - * / and brackets, e.g. '1200 + 3400'.")},
    ),
    "search": (
        "Search short articles about the countries (geography, economy, politics) and return the best three. "
        "Use it to find which country has a given capital.",
        {"query": _text("Keywords, e.g. 'capital Lima'.")},
    ),
    "phone_price": ("What a phone costs in a country, in euros, as an integer.", {"country": _COUNTRY}),
}
_EXAMPLES = {
    "lookup": 'Example: lookup(country="France", relation="capital") returns "Paris".',
    "population": 'Example: population(country="Peru") returns an integer such as 51234 (51,234,000 people).',
    "calculator": 'Example: calculator(expression="51234 - 20417") returns "30817".',
    "search": 'Example: search(query="capital Lima") returns the article about Peru first.',
    "phone_price": 'Example: phone_price(country="Peru") returns an integer such as 640 (euros).',
}


def countries_tools(
    descriptions: DescriptionStyle = "clear",
    *,
    calculator: bool = True,
    tamper: Tamper | None = None,
    index: SearchIndex | None = None,
    prices: bool = False,
) -> list[Tool]:
    """lookup, population, calculator (unless left out) and search (over `index`, by default the world's own
    articles), described in the given style; with `prices`, phone_price too (the `cheapest` tasks)."""
    if descriptions not in STYLES:
        raise ValueError(f"descriptions must be one of {', '.join(STYLES)}, got {descriptions!r}")

    def population(args: dict[str, Any]) -> int:
        c = find_country(args["country"])
        return tamper(c) if tamper is not None else c.population

    functions = {
        "lookup": _lookup,
        "population": population,
        "calculator": lambda args: _calculator(expression=args["expression"]),
        "search": (lambda args: index.search(str(args["query"]))) if index is not None else _search,
    }
    if prices:
        functions["phone_price"] = lambda args: phone_price(find_country(args["country"]).name)
    table = _VAGUE if descriptions == "vague" else _CLEAR
    tools = []
    for name, fn in functions.items():
        if name == "calculator" and not calculator:
            continue
        text, properties = table[name]
        if descriptions == "example":
            text = f"{text} {_EXAMPLES[name]}"
        schema = {"type": "object", "properties": properties, "required": list(properties)}
        tools.append(Tool.from_schema(name, text, schema, fn, idempotent=True))
    return tools
