"""What the request says that a small model's calls leave out: optional parameters it names, and values no call used.

SmolLM2 stops a call after its required arguments even when the request spells out an optional one ("with a
maximum cost of $50", "using the Darwin model"), and stops a turn after one or two calls when the request lists
three. `mentioned_required` makes the grammar ask for the optional parameters the request names; `unused_values`
says which of the request's values no call of the turn holds yet, so the turn is not let end while some are left.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toollab.formats.base import Format
from toollab.harness.chain import (
    EXPRESSION,
    calls_since_request,
    expression_tool,
    operators,
    unheld_numbers,
    written_expressions,
)
from toollab.harness.messages import Message, ToolCall, last_request, results_since_request
from toollab.harness.request import RequestParams
from toollab.models.local_cues import cued_numbers
from toollab.models.local_dates import DIGIT_DATE, said_dates, written_as_asked
from toollab.models.local_names import GLUE_WORDS, NAME, name_words, same_stem
from toollab.models.local_numbers import (
    LIST_SEPARATOR,
    PLAIN_NUMBER,
    RESPECTIVELY,
    holds_number,
    in_digits,
    numbers_in_digits,
    said_numbers,
    whole_number,
)
from toollab.models.local_places import placed_pairs
from toollab.models.local_steering import call_values, number_texts, value_forms
from toollab.tools import ToolSpec
from toollab.tools.arithmetic import without_separators

# Words of parameter names too general to say the request means that parameter ("type", "name", "value").
MAX_COVERED_CALLS = 4  # coverage keeps a turn going up to this many calls (BFCL's parallel items ask 2 to 4)
_WORD = re.compile(r"[a-z0-9]+")
# Words that say what a flag does, not what it is about (`include_bonus` is named by "bonus", not by "including").
_FLAG_VERBS = frozenset({"include", "includes", "show", "return", "use", "get", "enable", "add", "want", "with", "has"})
_NEGATIONS = frozenset({"no", "not", "without", "excluding", "exclude", "never", "nor", "skip", "skipping"})


def names(parameter: str, schema: dict[str, Any], request: str) -> bool:
    """Whether the request names the parameter: a word of its name (a word of the request shares its stem:
    "max_cost" and "maximum cost", "event_type" and "events"), one of its enum values, as words, or, for a number,
    what its description calls it, with a number after it (`_described`)."""
    said = request.lower()
    words = [w for w in _WORD.findall(said) if len(w) >= 3]
    if any(same_stem(n, w) for n in name_words(parameter) for w in words):
        return True
    if _described(schema, said):
        return True
    enum = schema.get("enum") or (schema.get("items") or {}).get("enum") or ()
    return any(re.search(rf"(?<!\w){re.escape(str(v).lower())}(?!\w)", said) for v in enum if str(v).strip())


def _described(schema: dict[str, Any], said: str) -> bool:
    """Whether the lowercased request writes the words a number parameter's description opens with (two to four, up
    to its first stop: "Significance level. Default 0.05.") and, within three words after them, a number: "at a
    significance level of 0.01" names `alpha`."""
    if schema.get("type") not in ("number", "integer", "float") or not isinstance(schema.get("description"), str):
        return False
    opening = schema["description"].lower().strip()
    opening = re.sub(r"^(?:the|a|an)\s+", "", opening)
    called = re.match(r"[^.,;:(]+", opening)
    phrase = called.group().split() if called is not None else []
    if not 2 <= len(phrase) <= 4:
        return False
    written = r"\s+".join(re.escape(w) for w in phrase)
    return re.search(rf"(?<![\w-]){written}(?:\s+[a-z]+){{0,3}}\s+[$€£]?-?\d", said) is not None


_REGION_EXAMPLE = re.compile(r"\b[A-Z][\w.]*(?: [A-Z][\w.]*)*, [A-Z]")  # "e.g. San Francisco, CA"
_REGION_WORDS = re.compile(r"\bcity\b.*\b(?:state|country|province|region)\b", re.IGNORECASE | re.DOTALL)


def region_parameters(tools: Sequence[ToolSpec]) -> frozenset[str]:
    """The string parameters whose descriptions ask for a place with its region: an example written "City, Region"
    ("e.g. Denver, CO") or the words ("the city and state"). Their values go on past a comma where the request's
    does ("Denver, Colorado"): SmolLM2 stopped at the city."""
    found = set()
    for tool in tools:
        for name, schema in (tool.parameters.get("properties") or {}).items():
            if not isinstance(schema, dict) or schema.get("type") != "string":
                continue
            said = str(schema.get("description", ""))
            if _REGION_EXAMPLE.search(said) or _REGION_WORDS.search(said):
                found.add(name)
    return frozenset(found)


_SEVERAL_IN_ONE = re.compile(r"\b(?:list|lists|comma|commas|separated|multiple|several)\b", re.IGNORECASE)


def list_parameters(tools: Sequence[ToolSpec]) -> frozenset[str]:
    """The string parameters whose descriptions ask for several things in one value ("a comma separated list of
    ingredients"): their values may run through a list of the request (`ends_item` does not end them)."""
    return frozenset(
        name
        for tool in tools
        for name, schema in (tool.parameters.get("properties") or {}).items()
        if isinstance(schema, dict)
        and schema.get("type") == "string"
        and _SEVERAL_IN_ONE.search(str(schema.get("description", "")))
    )


def free_parameters(tools: Sequence[ToolSpec]) -> frozenset[str]:
    """The parameters whose values are free text: strings, or arrays of strings, with no enum to choose from (a
    value copies the request there; a choice is written as its enum spells it)."""
    return frozenset(
        name
        for tool in tools
        for name, schema in (tool.parameters.get("properties") or {}).items()
        if _free_text(schema)
    )


def _free_text(schema: Any) -> bool:
    """Whether a parameter's schema is free text: a string, or an array of strings, with no enum to choose from."""
    if not isinstance(schema, dict) or schema.get("enum"):
        return False
    items = schema.get("items") if schema.get("type") == "array" else schema
    return isinstance(items, dict) and items.get("type") == "string" and not items.get("enum")


def others_choices(tools: Sequence[ToolSpec]) -> frozenset[tuple[str, str]]:
    """(parameter, word) for each free string parameter and each one-word choice of another parameter of its tool
    (an enum's value, or a list's): "beginner" is a `level`, never the `language` of the course ("the beginner
    spanish course": SmolLM2 wrote `language` "beginner")."""
    found: set[tuple[str, str]] = set()
    for tool in tools:
        properties = {k: v for k, v in (tool.parameters.get("properties") or {}).items() if isinstance(v, dict)}
        chosen = {k: [str(c).lower() for c in (v.get("enum") or choices(v) or [])] for k, v in properties.items()}
        for name, schema in properties.items():
            if schema.get("type") != "string" or chosen[name]:
                continue
            found |= {(name, c) for other, cs in chosen.items() if other != name for c in cs if _WORD.fullmatch(c)}
    return frozenset(found)


def _same_word(a: str, b: str) -> bool:
    """Two words of four letters or more by their stem ("views" and "view", "german" and "germany"), shorter ones
    exactly ("wi" is not "with", "in" not "indian")."""
    return a == b or (min(len(a), len(b)) >= 4 and same_stem(a, b))


def _words_say(phrase: list[str], words: list[str]) -> bool:
    """Whether `words` hold `phrase` word for word (`_same_word`: "scenic views" says "Scenic View")."""
    n = len(phrase)
    return any(
        all(_same_word(p, w) for p, w in zip(phrase, words[i : i + n], strict=True)) for i in range(len(words) - n + 1)
    )


def choices(schema: dict[str, Any]) -> list[Any] | None:
    """The enum a list parameter's items are chosen from; None for any other parameter."""
    items = schema.get("items") if schema.get("type") == "array" else None
    enum = items.get("enum") if isinstance(items, dict) else None
    return list(enum) if enum else None


def named_items(schema: dict[str, Any], request: str) -> list[Any]:
    """The choices of a list parameter's item enum that the request names ("a park with a tennis court": "Tennis
    Court" of four amenities), in the enum's order; [] when it names none or the items have no enum. SmolLM2 filled
    such lists with every choice it was shown."""
    enum = choices(schema)
    return [] if enum is None else _named(enum, request)


def _named(enum: Sequence[Any], request: str) -> list[Any]:
    """The choices of `enum` the request names, word for word (`_words_say`), in the enum's order."""
    words = _WORD.findall(request.lower())
    return [v for v in enum if (phrase := _WORD.findall(str(v).lower())) and _words_say(phrase, words)]


def named_choice(schema: dict[str, Any], request: str) -> list[str]:
    """The choices of a string parameter's enum that the request names ("after a loss against a 1600": "loss" of
    win, loss and draw), in the enum's order; [] when it names none or the parameter has no enum. SmolLM2 wrote
    "draw" for that loss, and "meters" for "in feet"."""
    enum = schema.get("enum") if schema.get("type") == "string" else None
    if not enum or not all(isinstance(v, str) for v in enum):
        return []
    return _named(enum, request)


def said_flag(parameter: str, request: str) -> bool | None:
    """The value the request gives a boolean parameter by naming it: True where it names every telling word of the
    parameter's name ("with the donor count" for `include_donor_count`, "a detailed breakdown" for `detailed`),
    False where a negation comes within three words before them in the same clause ("without the donor count",
    "not counting my bonus"), None where it does not name them all. Left to choose, SmolLM2 wrote false for most
    flags a request asked for ("including precipitation details": `include_precipitation` false)."""
    telling = [w for w in name_words(parameter) if w not in _FLAG_VERBS]
    if not telling:
        return None
    said = request.lower()
    words = [m for m in _WORD.finditer(said) if len(m.group()) >= 3]
    first = len(said)
    for name in telling:
        hits = [m.start() for m in words if same_stem(name, m.group())]
        if not hits:
            return None
        first = min(first, hits[0])
    clause = re.split(r"[,.;:!?]|\band\b|\bbut\b", said[:first])[-1]
    return not _NEGATIONS.intersection(_WORD.findall(clause)[-3:])


# A number parameter that takes a fraction: its description says so, or shows a percentage as a decimal. One that
# says "percent" takes the percentage as written.
_FRACTION = re.compile(
    r"\bdecimal\b|\bfraction\b|\bprobabilit|\bbetween 0(?:\.0)? and 1\b|\b0(?:\.0)? to 1(?:\.0)?\b"
    r"|\b0\.\d+ for \d+(?:\.\d+)?\s*%|\d\s*% (?:is|=|would be(?: represented as)?) 0\.\d",
    re.IGNORECASE,
)
_IN_PERCENT = re.compile(r"\bpercent(?:age)?\b", re.IGNORECASE)
_DECIMAL_SHARE = re.compile(r"(?<![\w.])(0?\.\d+)(?![\w.%])")  # a fraction written as one: 0.3, .25


def said_fractions(schema: dict[str, Any], request: str) -> list[float]:
    """The fractions of the percentages the request writes ("8%", "6.25 percent": 0.08, 0.0625), and the fractions
    it writes as such ("0.3"), in order and each once, for a number parameter that takes a fraction (`_FRACTION`);
    [] for any other parameter, or a request that writes no percentage. SmolLM2 copies the 8 of "8% a year" into a
    yield "as a decimal (0.05 for 5%)"."""
    said = str(schema.get("description", ""))
    if schema.get("type") not in ("number", "float") or not _FRACTION.search(said) or _IN_PERCENT.search(said):
        return []
    written = without_separators(request)
    shares = [round(float(n) / 100, 10) for n in _PERCENT.findall(written)]
    if not shares:
        return []
    return list(dict.fromkeys([*shares, *(float(n) for n in _DECIMAL_SHARE.findall(written))]))


def mentioned_required(
    tool: ToolSpec,
    request: str,
    optionals: bool = True,
    dates: bool = True,
    items: bool = True,
    fractions: bool = True,
    cues: bool = False,
    expressions: bool = False,
) -> ToolSpec:
    """The tool as the grammar sees it, for the grammar only (the tool itself, and the validation of its calls, are
    unchanged). With `optionals`: the optional parameters the request names made required, and the boolean ones
    it names given the value it says (`said_flag`). With `dates`: a date parameter whose description asks a format
    takes only the request's dates in that format (`local_dates.said_dates`); it stays optional if it was. With
    `items`: a list whose items are chosen from an enum, and whose choices the request names some of, may hold only
    those (`named_items`), and no more items than there are of them; a string chosen from an enum whose choices the
    request names some of is one of those (`named_choice`); an optional choice or flag it names none of (nor its
    name) is left out (`_chosen`).
    With `fractions`: a number parameter that takes a fraction, where the request writes percentages, takes one of
    their fractions (`said_fractions`). With `cues`: any other number parameter takes one of the numbers the request
    writes beside a word of its name or description (`local_cues.cued_numbers`), where it writes some. With
    `expressions`: an expression tool's expression is one of the arithmetic spans the request writes out, where
    they hold all its numbers (`chain.written_expressions`: "What is (5.0 + 3.0) * 2.0?" wrote "5.0 + 3.0")."""
    schema = tool.parameters
    properties = dict(schema.get("properties") or {})
    required = list(schema.get("required") or [])
    named: list[str] = []
    flags: dict[str, bool] = {}
    days: dict[str, list[str]] = {}
    shares: dict[str, list[float]] = {}
    chosen: dict[str, list[Any]] = {}
    picked: dict[str, list[str]] = {}  # a choice parameter's choices the request names
    unsaid: list[str] = []
    written: dict[str, list[str]] = {}  # an expression tool's expression: the arithmetic the request writes out
    if expressions and expression_tool([tool]) and (spans := written_expressions(in_digits(request))):
        written[EXPRESSION] = spans
    for p, s in properties.items():
        if not isinstance(s, dict):
            continue
        if optionals and p not in required and names(p, s, request):
            named.append(p)
        if optionals and s.get("type") == "boolean" and (flag := said_flag(p, request)) is not None:
            flags[p] = flag
        if dates and (said := said_dates(s, request)):
            days[p] = said
        if fractions and (parts := said_fractions(s, request)):
            shares[p] = parts
        elif cues and p not in days and (cued := cued_numbers(p, s, request)):
            shares[p] = cued
        if items and (some := named_items(s, request)):
            chosen[p] = some
        elif items and (one_of := named_choice(s, request)):
            picked[p] = one_of
        elif items and p not in required and p not in named and p not in flags and _chosen(s):
            unsaid.append(p)
    if not named and not flags and not days and not shares and not chosen and not picked and not unsaid and not written:
        return tool
    for p in unsaid:  # an optional choice (or flag) the request names none of is left out, not filled
        del properties[p]
    enums = [*((p, [flag]) for p, flag in flags.items()), *days.items(), *shares.items(), *written.items()]
    for p, values in [*enums, *picked.items()]:
        properties[p] = {**properties[p], "enum": values}
    for p, values in chosen.items():  # each once at most: SmolLM2 wrote a named choice again after the others
        allowed = {**properties[p]["items"], "enum": values}
        properties[p] = {**properties[p], "items": allowed, "minItems": 1, "maxItems": len(values)}
    required = list(dict.fromkeys([*required, *named, *flags]))
    return ToolSpec(tool.name, tool.description, {**schema, "properties": properties, "required": required})


def _chosen(schema: dict[str, Any]) -> bool:
    """Whether a parameter's value is a choice: a list of an enum's items, a string of an enum, or a flag. Left
    optional where the request names none of its choices, SmolLM2 filled one ("driving": "highway" for "How often
    does a Golf 2021 need an oil change?"); its default is what the request asks for."""
    return choices(schema) is not None or bool(schema.get("enum")) or schema.get("type") == "boolean"


_FOUND_NUMBER = re.compile(PLAIN_NUMBER)
_PERCENT = re.compile(rf"({PLAIN_NUMBER})\s*(?:%|percent\b)")


def _squashed(text: str) -> str:
    """`text` without its spaces: words joined ("Meals on Wheels": mealsonwheels; "275,000" stays as written)."""
    return re.sub(r"\s+", "", text)


def unfounded(calls: Sequence[ToolCall], tools: Sequence[ToolSpec], request: str) -> list[str]:
    """The required arguments of the calls ("tool.parameter") that the request does not give: left out, or a value
    the request does not hold (a number it does not give, in digits, in words or with a magnitude, the fraction of a
    percentage it writes counting; a text it does not hold, as written or with its words joined, with a word of
    three letters or more it lacks, one of four or more counting by its stem). Parameters whose
    values are chosen (an enum, a boolean) are not asked. A near miss called anyway fills what its tool needs and
    the request never said ("the rate of return of $15,000 revenue and $22,000 cost": `calculate_profit` with a
    `tax_rate` of 0.2)."""
    said = without_separators(request).lower()
    squashed = _squashed(said)
    numbers = {float(n) for n in _FOUND_NUMBER.findall(said)}
    numbers |= {float(n) / 100 for n in _PERCENT.findall(said)}  # "5%" gives 0.05 as well as 5
    numbers |= {float(n) for n in said_numbers(request)}  # "two nights", "$2 million"
    words = set(_WORD.findall(said))

    def has(word: str) -> bool:  # as written, or by its stem (`_same_word`: "German" for Germany)
        return word in words or any(_same_word(word, w) for w in words)

    specs = {t.name: t for t in tools}

    def holds(value: str) -> bool:
        if _FOUND_NUMBER.fullmatch(value.strip()):
            return any(abs(float(value) - n) < 1e-9 for n in numbers)
        text = value.strip().lower()
        telling = [w for w in _WORD.findall(text) if len(w) >= 3]
        if text and _squashed(text) in squashed:  # as written, or its words joined ("QuebecCity" for "Quebec City")
            return True
        return bool(telling) and all(has(w) for w in telling)

    missing = []
    for call in calls:
        spec = specs.get(call.name)
        arguments = call.args_or_raw()
        if spec is None or not isinstance(arguments, dict):
            continue
        properties = spec.parameters.get("properties") or {}
        for p in spec.parameters.get("required") or []:
            found = properties.get(p)
            schema: dict[str, Any] = found if isinstance(found, dict) else {}
            if schema.get("enum") or schema.get("type") == "boolean" or choices(schema) is not None:
                continue
            values = call_values(arguments[p]) if p in arguments else []
            if not values or not all(holds(v) for v in values):
                missing.append(f"{call.name}.{p}")
    return missing


def turned_down(calls: Sequence[ToolCall], tools: Sequence[ToolSpec], request: str) -> list[str]:
    """What `founded` answers a gated turn instead for: when every call has a required argument the request does
    not give (`unfounded`, against the request with its dates written as the tools ask), those arguments; [] when a
    call is founded, or there is no call. The local model's turn and `toollab eval gate`'s curve both ask here."""
    if not calls:
        return []
    said = written_as_asked(request, tools)
    missing = [unfounded([c], tools, said) for c in calls]
    return [m for ms in missing for m in ms] if all(missing) else []


# two names a pairing word joins: "Harbor City FC vs Northfield United", "Harborfront to Old Town"
_PAIRED = re.compile(rf"({NAME})\s+(?:vs\.?|versus|v\.?|against|to)\s+({NAME})")
# a range of two numbers ("from 0.8 to 8.0", "between 2.5 and 120"), a unit word allowed after the first
_RANGE = re.compile(
    r"\b(?:from|between)\s+[$€£]?(-?\d[\d,]*(?:\.\d+)?)(?:\s*[a-z%]{1,12})?\s+(?:to|and)\s+[$€£]?(-?\d[\d,]*(?:\.\d+)?)"
)


def _range_pairs(request: str) -> set[tuple[float, float]]:
    return {(float(a.replace(",", "")), float(b.replace(",", ""))) for a, b in _RANGE.findall(request)}


def _each_call(
    calls: Sequence[ToolCall], tools: Sequence[ToolSpec], mend: Callable[[dict[str, Any], ToolSpec], dict[str, Any]]
) -> list[ToolCall]:
    """The calls, each of an offered tool with arguments as an object given `mend(a copy of its arguments, its
    tool)`; a call `mend` leaves as it was, or of no offered tool, or with unreadable arguments, stays itself."""
    specs = {t.name: t for t in tools}
    out = []
    for call in calls:
        arguments = call.args_or_raw()
        spec = specs.get(call.name)
        fixed = mend(dict(arguments), spec) if spec is not None and isinstance(arguments, dict) else arguments
        out.append(call if fixed == arguments else call.model_copy(update={"arguments": fixed}))
    return out


def _as_written(ends: tuple[float, float], like: float) -> tuple[float, float]:
    """A range's two ends as numbers of `like`'s type: integers for an integer value (the schema asked one)."""
    if isinstance(like, int) and all(end.is_integer() for end in ends):
        return int(ends[0]), int(ends[1])
    return ends


def in_written_order(calls: Sequence[ToolCall], tools: Sequence[ToolSpec], request: str) -> list[ToolCall]:
    """The calls with two string arguments that hold the two names of a pair the request writes ("Harbor City FC vs
    Northfield United") in the order the tool lists its parameters, as the request writes them: SmolLM2 wrote
    `final_score(home="Northfield United", away="Harbor City FC")` for "Who won Harbor City FC vs Northfield
    United?". A pair's first name goes to the parameter listed first (home, origin, the first team). So do the two
    numbers of a range ("from 0.8 to 8.0", "between 2.5 and 120"): the first to the number parameter listed first
    (lower, start, minimum); SmolLM2 wrote lower 1250.0 and upper 2.5 for "from 2.5 to 1250.0". Two number parameters
    holding the same end of one range take both its ends (SmolLM2 wrote lower 8.0 and upper 8.0 for "from 0.8 to
    8.0")."""
    pairs = [(a.strip().lower(), b.strip().lower()) for a, b in _PAIRED.findall(request)]
    ranges = _range_pairs(request)
    if not pairs and not ranges:
        return list(calls)

    def mend(fixed: dict[str, Any], spec: ToolSpec) -> dict[str, Any]:
        listed = list(spec.parameters.get("properties") or {})
        order = [p for p in listed if isinstance(fixed.get(p), str)]
        for i, first in enumerate(order):
            for second in order[i + 1 :]:
                if (str(fixed[second]).strip().lower(), str(fixed[first]).strip().lower()) in pairs:
                    fixed[first], fixed[second] = fixed[second], fixed[first]
        numbers = [p for p in listed if _is_number(fixed.get(p))]
        for i, first in enumerate(numbers):
            for second in numbers[i + 1 :]:
                if (float(fixed[second]), float(fixed[first])) in ranges and fixed[first] != fixed[second]:
                    fixed[first], fixed[second] = fixed[second], fixed[first]
                elif (
                    fixed[first] == fixed[second] and len(ends := [r for r in ranges if float(fixed[first]) in r]) == 1
                ):
                    fixed[first], fixed[second] = _as_written(ends[0], fixed[first])
        return fixed

    return _each_call(calls, tools, mend)


def _item_kept(item: str, whole: Sequence[str], outside: str) -> str:
    """An array's item as it was, or cut to the list's item it starts with where it runs on into `outside`."""
    lowered = item.strip().lower()
    for word in whole:
        if lowered.startswith(word + " ") and outside.lower() in lowered:
            return item.strip()[: len(word)]
    return item


def lists_kept_whole(calls: Sequence[ToolCall], tools: Sequence[ToolSpec], request: str) -> list[ToolCall]:
    """The calls where a text parameter took an item of a list the request writes while the call's array of text
    took the list's other items, mended: the array holds the whole list, in the request's order, and the text
    parameter the one capitalised name the request writes outside the list (left as it was when there is not exactly
    one). The tool lists its text parameter first, and SmolLM2 took the list's first item there: `festival="Neon
    Fields", bands=["The Lanterns in Daejeon"]` for "Check set times for Neon Fields and The Lanterns in Daejeon",
    `store="apples"` for "What would apples, rice and bottled water cost at The Green Fork?"."""

    def mend(fixed: dict[str, Any], spec: ToolSpec) -> dict[str, Any]:
        properties = spec.parameters.get("properties") or {}
        free = {p: schema["type"] for p, schema in properties.items() if _free_text(schema)}
        texts = [p for p, kind in free.items() if kind == "string"]
        arrays = [p for p, kind in free.items() if kind == "array"]
        for text in texts if len(arrays) == 1 else []:
            value, held = fixed.get(text), fixed.get(arrays[0])
            if not isinstance(value, str) or not isinstance(held, list) or not all(isinstance(i, str) for i in held):
                continue
            siblings = listed_with(value, request)
            whole = [value.strip().lower(), *siblings]
            took = [i.strip().lower() for i in held]
            if not siblings or not took or not all(any(t == w or t.startswith(w + " ") for w in whole) for t in took):
                continue
            outside = [
                c
                for c in dict.fromkeys(_CAPITALISED.findall(request))
                if c.split()[0] not in _OPENERS and not any(w in c.lower() or c.lower() in w for w in whole)
            ]
            if len(outside) == 1:
                # the array's own items where they go on past the list's reading ("bottled water" for "bottled"),
                # but not into the name outside ("The Lanterns in Daejeon")
                items = [_item_kept(i, whole, outside[0]) for i in held]
                items += [] if whole[0] in took else _spelled(whole[:1], request)
                fixed[arrays[0]] = sorted(items, key=lambda i: request.lower().find(i.lower()))
                fixed[text] = outside[0]
        return fixed

    return _each_call(calls, tools, mend)


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:/-]\d+)*(?![\d.,:/-]*\d)")  # 1,250.5, 2027-03-14, 18:45, 5 of 5cm
_LISTED = re.compile(r"(?:[\w'-]+,\s+)+[\w'-]+,?\s+and\s+[\w'-]+")  # "fern, cactus and basil"
_QUOTED = re.compile(r"""(?:^|(?<=[\s(\[]))['"]([^'"]{2,80})['"]""")
_CAPITALISED = re.compile(r"(?<![.?!:]\s)(?<!^)(?<![\"'])\b([A-Z][\w-]+(?:\s+[A-Z][\w-]+)*)")
_OPENERS = frozenset({"I", "I'm", "I'd", "Also", "And", "Then", "Can", "Could", "Please", "What", "How", "Find"})


def salient_values(request: str) -> list[str]:
    """The values a request gives that a call would carry: numbers (a unit may follow: 5cm), quoted spans,
    capitalised names that do not open a sentence, and the words of a list of three or more ("fern, cactus and
    basil"), lowercased, each once."""
    found = [without_separators(n) for n in _NUMBER.findall(request)]
    found += [w for listed in _LISTED.findall(request) for w in re.split(r",?\s+and\s+|,\s+", listed)]
    found += _QUOTED.findall(request)
    found += [c for c in _CAPITALISED.findall(request.strip().strip("\"'")) if c.split()[0] not in _OPENERS]
    out: list[str] = []
    for value in (v.strip().lower() for v in found):
        if value and value not in out:
            out.append(value)
    return out


def unused_values(values: Sequence[str], calls: Sequence[ToolCall]) -> list[str]:
    """The values that no call holds (inside any of its argument values, ignoring case; a number as a whole number;
    a quoted or named value counts as used when a call holds any of its words, not counting numbers: the dates of a
    list share their year)."""
    held = " \n ".join(v.lower() for c in calls for v in call_values(c.args_or_raw()))

    def used(value: str) -> bool:
        if re.fullmatch(PLAIN_NUMBER, value):  # a whole number of a value: 5 is not held by 675000 nor by 5.5
            return whole_number(value).search(held) is not None
        if value in held:
            return True
        words = [w for w in _WORD.findall(value) if len(w) >= 3 and not w.isdigit()]
        return bool(words) and any(w in held for w in words)

    return [v for v in values if not used(v)]


def items_left(items: Sequence[str], calls: Sequence[ToolCall], request: str) -> list[str]:
    """The `items` of the request's lists that no call holds yet (`unused_values`); a number item where no call
    holds it as the request writes it, or written otherwise where the request does not write the call's value as
    it is (`holds_number`: "$675,000 for 5 and 20 years at 5.0%": the rate's 5.0 is not the years' 5)."""
    texts = [t for call in calls for t in number_texts(call.args_or_raw())]
    numbers = {i for i in items if re.fullmatch(PLAIN_NUMBER, i)}
    unused = set(unused_values([i for i in items if i not in numbers], calls))
    return [i for i in items if (not holds_number(texts, i, request) if i in numbers else i in unused)]


_UNIT = r"(?:[\s-]?(?!(?:and|or|as)\b)[a-z%]+)?"  # 5cm, 5 cm, 5%, 15-year (never the "and" of a list)
MAX_LISTED = 6
_JOINED = re.compile(r"\b(?:and|or|as\s+well\s+as)\b")  # a separator that comes before a list's last item
# what may come before each item: "$", a word, or two ("for a Civic 2020 as well as for a Camry 2021")
_LEAD = re.compile(
    r"(?:[$€£]|(?<![\w'-])(?:(?:in|at|on|for|from|of|to|with|by)\s+)?(?:in|at|on|for|from|of|to|with|by|the|a|an)\s+)$",
    re.IGNORECASE,
)


_LOWERCASE = r"[a-z][\w'-]*"  # a lowercase word as a list's item
_CLAUSE_ENDS = re.compile(r"\s*(?:[?.!,;:]|$)")  # where a list of two lowercase words must end


def _item_shape(value: str) -> tuple[str, bool] | None:
    """A pattern for the items of a list `value` is one of (a list's items look alike: numbers, capitalised names
    that may hold numbers, or as many lowercase words as the value has), and whether a list of two joined by "and"
    counts: for one lowercase word too, where the list ends a clause ("in meters and feet?", "highway and city?"; a
    call that took "salt" of "salt and pepper." was wrong either way), but not for lowercase phrases. BFCL lost two
    items to a first version that read any two ("a base of 10 units and height of 5 units", "medium to oil and
    change size to 12x18"); the clause's end is the judge's lesson, and "What spacing do beans and lettuce need?"
    is left one call again."""
    if re.fullmatch(PLAIN_NUMBER, value):
        return PLAIN_NUMBER, True
    if re.fullmatch(DIGIT_DATE, value):  # ... or a date in digits
        return DIGIT_DATE, True
    words = value.split()
    if not 1 <= len(words) <= 3 or not all(re.fullmatch(r"[^\W_]+", w) for w in words):  # "Kraków" too
        return None
    if words[0][:1].isupper() and all(w[:1].isupper() or w[:1].isdigit() for w in words):  # Model 3 2022
        return r"[A-Z][\w'-]*(?:\s+[A-Z0-9][\w'-]*){0,2}", True
    return _LOWERCASE + rf"\s+{_LOWERCASE}" * (len(words) - 1), len(words) == 1


def _paired_with(value: str, request: str) -> list[str] | None:
    """Where `value` is a place listed with its region (`placed_pairs`), the other places, as the value is written:
    with their regions or without; [] for a region; None where the value is neither."""
    pairs = placed_pairs(request)
    lowered = value.lower()
    for i, (place, region) in enumerate(pairs):
        others = pairs[:i] + pairs[i + 1 :]
        if lowered == f"{place}, {region}".lower():
            return [f"{p}, {r}".lower() for p, r in others]
        if lowered == place.lower():
            return [p.lower() for p, _ in others]
        if lowered == region.lower():
            return []
    return None


def listed_with(value: str, request: str) -> list[str]:
    """The other items of the list in the request that `value` is an item of ("Paris" in "Paris, Rome and Oslo":
    Rome, Oslo; 30 in "over thirty and fifteen years": 15; Porto in "Porto, Portugal and Nagoya, Japan": Nagoya),
    lowercased; [] when the value is in no list."""
    value = value.strip()
    if (paired := _paired_with(value, request)) is not None:
        return paired
    number = re.fullmatch(PLAIN_NUMBER, without_separators(value)) is not None
    # a number may carry a unit (5cm), but is no item where it is part of a time, a ratio or a date (8:20, 3/4)
    tail = r"(?![\d:/]|-\d|\.\d)" + _UNIT if number else r"(?![\w'-])"
    if number:
        value = without_separators(value)
    written = re.escape(value) + (r"(?:\.0+)?" if re.fullmatch(r"-?\d+", value) else "")  # 88 for "88.0"
    pattern = re.compile(rf"(?<![\w.{':/' if number else ''}-]){written}{tail}", re.IGNORECASE)
    # "1,500 and 12,000" is a list of 1500 and 12000, as calls write them; and where the request does not write a
    # number in digits, "thirty and five" one of 30 and 5 (not first: "three sides: 3, 4 and 5")
    texts = (without_separators(request), numbers_in_digits(request)) if number else (request,)
    found = None
    for request in texts:
        if (found := pattern.search(request)) is not None:
            break
    if found is None and (whole := re.fullmatch(r"(-?\d+)\.0+", value)):  # 5.0 for "5 and 20", unless it says 5.0
        return listed_with(whole.group(1), texts[0])
    shape = _item_shape(value if number else request[found.start() : found.start() + len(value)]) if found else None
    if found is None or shape is None:
        return []
    item, pairs = shape
    # what is written before the value may come before each item again: "$675,000 and $18,500", "in Porto and in
    # Nagoya"; a word only where the items before the value have it too ("to Porto and from Madrid" is no list)
    led = _LEAD.search(request[: found.start()])
    lead = re.escape(led.group(0)) if led is not None else ""
    again = f"(?:{lead})?" if lead else ""
    each = lead if led is not None and led.group(0)[0].isalpha() else ""
    after = re.compile(rf"{LIST_SEPARATOR}{again}({item}){tail}")
    before = re.compile(rf"(?<![\w.'-]){each}({item}){tail}{LIST_SEPARATOR}{again}$")
    siblings: list[str] = []
    commas = False
    # "and" (or "or") comes once in a list, before its last item: "japanese, german and italian, advanced level"
    # lists three languages, and "advanced" is not a fourth
    last = (back := before.search(request[: found.start()])) is not None and _JOINED.search(back.group(0)) is not None
    end = found.end()
    ahead = False  # an "and" after the value: going back, there is none
    while not last and len(siblings) < MAX_LISTED and (step := after.match(request, end)) is not None:
        siblings.append(step.group(1))
        commas |= "," in step.group(0)
        end = step.end()
        last = ahead = _JOINED.search(step.group(0)) is not None
    pairs_after = re.compile(rf"\s*,\s*({item}){tail}\s+and\s+({item}){tail}")
    while last and len(siblings) < MAX_LISTED and (pair := pairs_after.match(request, end)) is not None:
        siblings += [pair.group(1), pair.group(2)]  # "3 and 4, 5 and 12": pairs listed, each an item's pair
        end = pair.end()
    # going back, the "and" comes first or not at all: past a comma it is another list's ("..., advanced level")
    joined, crossed = ahead, False
    start = found.start()
    while len(siblings) < MAX_LISTED and (back := before.search(request[:start])) is not None:
        if _JOINED.search(back.group(0)):
            if joined or crossed:
                break
            joined = True
        elif (ended := before.search(request[: back.start()])) is not None and _JOINED.search(ended.group(0)):
            # the item a comma goes back to closes a list of its own ("italian" of "... and italian, advanced")
            if not (joined and not crossed and " and " in ended.group(0)):
                break
            siblings += [back.group(1), ended.group(1)]  # ... unless both are pairs: "3 and 4, 5 and 12"
            commas = True
            start = ended.start()
            continue
        else:
            crossed = True
        siblings.append(back.group(1))
        commas |= "," in back.group(0)
        start = back.start()
    siblings = [s for s in siblings if s.split()[0] not in _OPENERS and s.lower() not in GLUE_WORDS]
    if not siblings or not (pairs or commas):
        return []
    if not commas and item == _LOWERCASE and not _CLAUSE_ENDS.match(request, end):
        return []  # "10 units and height of 5": two words, not a list
    return [s.lower() for s in siblings]


_ABBREVIATING = re.compile(r"(?:^|\s)(?:[A-Z]\.)*[A-Z]$")  # "Washington D" of "Washington D.C.": not a word's end


@functools.lru_cache(maxsize=64)
def _quoted_lowered(request: str) -> tuple[str, ...]:
    """The request's quoted spans, lowercased: found once per request, not at every token a value is written."""
    return tuple(q.lower() for q in _QUOTED.findall(request))


def ends_item(value: str, request: str) -> bool:
    """Whether a string value written so far is a whole item of a list in the request ("Eagle Ridge" of "How
    difficult are Eagle Ridge, Summit Path and Fern Gully Loop?") that no quoted span of the request holds with more:
    one call's value, the other items the next calls' (SmolLM2 wrote "Eagle Ridge, Summit Path" as one trail)."""
    if not value or value != value.strip() or _ABBREVIATING.search(value):
        return False
    lowered = value.lower()
    if any(lowered in quoted and len(quoted) > len(value) for quoted in _quoted_lowered(request)):
        return False
    ends = re.search(rf"(?<![\w.-]){re.escape(value)}(?:{LIST_SEPARATOR}|[?.!;)]|$)", request, re.IGNORECASE)
    return ends is not None and bool(listed_with(value, request))


def unlisted(calls: Sequence[ToolCall], request: str) -> list[str]:
    """The items of the request's lists that no call holds (`items_left`), where a call holds another item of the
    same list: the calls of a turn that took "Paris" from "Paris, Rome and Oslo" are not done before Rome and Oslo
    have theirs."""
    values = [v for c in calls for v in call_values(c.args_or_raw(), exact=True)]
    siblings = [s for v in values for s in listed_with(v, request)]
    return items_left(list(dict.fromkeys(siblings)), calls, request)


def array_items_left(items: Sequence[str], request: str) -> list[str] | None:
    """For an array's string `items` so far that copy a list of the request, its items they do not hold yet, as the
    request spells them ([] once they hold it whole); None where they copy no list. The list is the first item's
    (`listed_with`; an item may go on past a sibling's word: "wool hat" for "wool"), or the items are, in order, a
    list the request writes with "and" or "or" before its last item and no further item after it ("with mushrooms
    and olives to 12 Elm Street", which `listed_with` does not read inside a clause). SmolLM2 wrote ["milk", "eggs",
    "bread", "bread"] for "milk, eggs, bread and butter", and went on after "olives" with the address."""
    if not items:
        return None
    siblings = listed_with(items[0], request)
    held = [i.lower() for i in items[1:]]
    if siblings:
        left = [s for s in siblings if not any(h == s or h.startswith(s + " ") for h in held)]
        return _spelled(left, request)
    if len(items) < 2:
        return None
    *first, last = (re.escape(i) for i in items)
    joined = r"\s*,\s*".join(first)
    written = rf"(?<![\w-]){joined},?\s+(?:and|or)\s+{last}(?![\w-])(?!\s*,\s*\w|\s+(?:and|or)\s)"
    return [] if re.search(written, request, re.IGNORECASE) else None


def listed_next(calls: Sequence[ToolCall], request: str) -> tuple[set[str], list[str]]:
    """The parameters whose values the calls took from a list of the request, and that list's items no call holds
    yet as the request spells them: what the next call of the turn should take (`Grounding` favours them there)."""
    parameters: set[str] = set()
    for call in calls:
        arguments = call.args_or_raw()
        if not isinstance(arguments, dict):
            continue
        for key, value in arguments.items():
            others = call.model_copy(update={"arguments": {k: v for k, v in arguments.items() if k != key}})
            siblings = [s for x in call_values(value, exact=True) for s in listed_with(x, request)]
            # a list another argument of the same call also took from spans parameters ("italian, advanced and
            # beginner level" is one language and two levels): which of them varies is not known
            if siblings and len(items_left(siblings, [others], request)) == len(siblings):
                parameters.add(key)
    return parameters, _spelled(unlisted(calls, request), request)


def _spelled(items: Sequence[str], request: str) -> list[str]:
    """Lowercased items as the request spells them (a number without its thousands separators, as `listed_with`
    gives it)."""
    spelled = []
    for item in items:
        for text in (request, without_separators(request), numbers_in_digits(request)):
            if (found := re.search(rf"(?<![\w.-]){re.escape(item)}", text, re.IGNORECASE)) is not None:
                spelled.append(found.group(0))
                break
    return spelled


def crossed_next(calls: Sequence[ToolCall], request: str) -> dict[str, str]:
    """The next case to call where the `calls` (of one tool) took the items of two lists of the request in two
    parameters (`crossed_left`): the first pair left, in the request's order; {} when none is left."""
    left = crossed_left(calls, request)
    return left[0] if left else {}


def _holds(arguments: dict[str, Any], pair: dict[str, str]) -> bool:
    return all(value.lower() in (v.lower() for v in call_values(arguments.get(key))) for key, value in pair.items())


def crossed_left(calls: Sequence[ToolCall], request: str) -> list[dict[str, str]]:
    """The pairs no call holds yet where the `calls` (of one tool) took the items of two lists of the request in two
    parameters ("the winning percentage of Lakers and Bulls in seasons 2018 and 2020": four calls, each team in
    each season), as the request spells them, in the request's order; [] when every pair is called, there are more
    pairs than MAX_COVERED_CALLS, or the request pairs the lists in order ("... respectively")."""
    arguments = [a for call in calls if isinstance(a := call.args_or_raw(), dict)]
    if not arguments or len(arguments) < len(calls) or RESPECTIVELY.search(request):
        return []
    lists: dict[str, list[str]] = {}
    for key, value in arguments[0].items():
        values = call_values(value, exact=True)
        if not isinstance(value, (list, dict)) and values and (siblings := listed_with(values[0], request)):
            lists[key] = _spelled([values[0].lower(), *siblings], request)
    if len(lists) != 2:
        return []
    (first, items), (second, others) = (
        (key, sorted(found, key=lambda v: request.lower().find(v.lower()))) for key, found in lists.items()
    )
    if {i.lower() for i in items} & {o.lower() for o in others} or len(items) * len(others) > MAX_COVERED_CALLS:
        return []
    pairs = [{first: x, second: y} for x in items for y in others]
    return [pair for pair in pairs if not any(_holds(a, pair) for a in arguments)]


def fills_pair(earlier: Sequence[ToolCall], call: ToolCall, request: str) -> bool:
    """Whether `call` holds a pair of two lists' items that the `earlier` calls of its tool took and miss
    (`crossed_left`): each of its values was called, not together."""
    arguments = call.args_or_raw()
    same = [c for c in earlier if c.name == call.name]
    return isinstance(arguments, dict) and any(_holds(arguments, pair) for pair in crossed_left(same, request))


def pinned_next(calls: Sequence[ToolCall], request: str, listed: set[str] | None = None) -> dict[str, list[str]]:
    """What the next call of a tool whose earlier `calls` in the turn took items of a list in the request must write
    (as JSON texts, `Grounding` holds it to them): each parameter that took a list's items one of that list's items
    no call holds yet, and each other parameter that every earlier call gave one same value that value again, where
    the request writes no rival for it ("$18,500 for 20 and 15 years": the second call's years is 15 and its
    principal 18500 again). A rival is a value of the request of the same kind (a number, or a name or quoted span)
    that no call holds and that is no list's item: "1.5% for Japan and 2.1% for India" leaves the rate free.
    When every item is called, a pair of two lists' items no call holds yet (`crossed_next`: each team in each
    season); nothing when no pair is left either. `listed`: the parameters that took a list's items, when the
    caller has found them already (`listed_next`)."""
    if listed is None:
        listed, _ = listed_next(calls, request)
    arguments = [a for call in calls if isinstance(a := call.args_or_raw(), dict)]
    if not listed or len(arguments) < len(calls) or not calls:
        return {}
    pinned: dict[str, list[str]] = {}
    for key in sorted(listed):
        siblings = dict.fromkeys(
            s for a in arguments if key in a for x in call_values(a[key], exact=True) for s in listed_with(x, request)
        )
        if left := _spelled(items_left(list(siblings), calls, request), request):
            pinned[key] = [form for item in left for form in value_forms(item)]
    if not pinned:  # every item is called: a pair of two lists' items may not be yet
        pinned = {key: value_forms(item) for key, item in crossed_next(calls, request).items()}
    if not pinned:
        return {}
    items = {s for a in arguments for x in call_values(list(a.values()), True) for s in listed_with(x, request)}
    rivals = [v for v in unused_values(salient_values(request), calls) if v not in items]
    rival_kinds = {bool(re.fullmatch(PLAIN_NUMBER, v)) for v in rivals}  # True: a number
    for key, value in arguments[0].items():
        if key in listed or isinstance(value, (list, dict)) or not all(a.get(key, ...) == value for a in arguments):
            continue
        if _is_number(value) in rival_kinds:
            continue  # the request writes another value of its kind that no call took: the value may change
        pinned[key] = value_forms(value) if not isinstance(value, str) else [json.dumps(value, ensure_ascii=False)]
    return pinned


def uncovered(
    text: str, format: Format, finish: str | None, values: Sequence[str] = (), request: str | None = None
) -> bool:
    """Whether a turn that has just completed a call (`text` ends with the envelope's end) should go on: it holds
    fewer than MAX_COVERED_CALLS calls, none of them the `finish` action, and some of the request's `values` is in
    none of them, or (given the `request`) an item of a list one of them took from is in none of them, or a pair of
    two lists' items that a tool's calls took is not called yet (`crossed_left`)."""
    envelope = format.envelope
    if envelope is None or not text.endswith(envelope.end):
        return False
    calls = format.parse(text).tool_calls
    if not calls or len(calls) >= MAX_COVERED_CALLS or any(c.name == finish for c in calls):
        return False
    if unused_values(values, calls):
        return True
    if request is None:
        return False
    by_tool: dict[str, list[ToolCall]] = {}
    for call in calls:
        by_tool.setdefault(call.name, []).append(call)
    return bool(unlisted(calls, request)) or any(crossed_next(same, request) for same in by_tool.values())


MAX_OPERANDS = 4  # more numbers in the results than this and the expression is left to the model
_RESULT_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*\d)")
_DIGITS_SO_FAR = re.compile(r"-?\d[\d.]*$")
_OPEN_EXPRESSION = re.compile(rf'"{EXPRESSION}"\s*:\s*"((?:[^"\\]|\\.)*)$')


_CALL_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"')


def writing_expression(text: str, tool: str) -> bool:
    """Whether `text` (a turn being decoded, calls written as JSON) is inside the expression of a call of the
    expression tool `tool`."""
    names = _CALL_NAME.findall(text)
    return bool(names) and names[-1] == tool and _OPEN_EXPRESSION.search(text) is not None


@dataclass(frozen=True)
class ExpressionHint:
    """What the expression of the chain's step (`toollab.harness.chain`) should hold: every number of the results
    (asked to add three populations SmolLM2 writes two of them, or one) and the request's numbers no call took
    ("... by 6"), no other number (it wrote the "3400" of the calculator's description example, and went on past
    the last population: "+ 53544"), the operators the request names ("combined": +; it wrote "a + b - c"), and no
    character but digits, operators, brackets and spaces (it copied the sentence whose words it had counted)."""

    operands: tuple[str, ...]
    operators: str
    numbers: tuple[str, ...] = ()  # the operands and the request's numbers that no call took

    @classmethod
    def of(cls, messages: Sequence[Message], params: RequestParams) -> ExpressionHint | None:
        """The hint for a turn that must call an expression tool by name after results; None for any other turn,
        or past MAX_OPERANDS numbers. The request's numbers that a call took already are not offered again ("Add
        17 and 25, then multiply the total by 3": 42 and 3)."""
        named = params.named_tool
        if named is None or expression_tool([t for t in params.tools if t.name == named]) is None:
            return None  # (every turn but the chain's step: nothing read from the messages)
        results = results_since_request(messages)
        if not results:
            return None
        operands = tuple(dict.fromkeys(_RESULT_NUMBER.findall(results)))
        if len(operands) > MAX_OPERANDS:
            return None
        request = last_request(messages)
        numbers = tuple(dict.fromkeys((*operands, *unheld_numbers(request, calls_since_request(messages)))))
        return cls(operands, operators(request), numbers)

    def left(self, text: str) -> tuple[str, ...] | None:
        """None when `text` (a turn being decoded) is not inside the expression; else the numbers it has still to
        take (none: it is complete, or has gone astray with more numbers than it should hold, and closes)."""
        written = _OPEN_EXPRESSION.search(text)
        if written is None:
            return None
        held = _RESULT_NUMBER.findall(written.group(1))
        return () if len(held) >= len(self.numbers) + 1 else tuple(n for n in self.numbers if n not in held)

    def fits(self, text: str, digits: str) -> bool:
        """Whether `digits`, written next inside the expression of `text` (after a space: a new number), still
        spell the start of a number it has still to take."""
        written = _OPEN_EXPRESSION.search(text)
        value = written.group(1) if written is not None else ""
        run = _DIGITS_SO_FAR.search(value)
        start = "" if run is None or digits[:1].isspace() else run.group()
        held = set(_RESULT_NUMBER.findall(value[: len(value) - len(start)]))
        return any(n.startswith(start + digits.strip()) for n in self.numbers if n not in held)


def _written_numbers(request: str) -> Counter[float]:
    """The numbers the request writes, each as often as written: in digits (without separators; not dates, times
    or ratios) and in words ("two nights")."""
    found = [n for n in _NUMBER.findall(without_separators(request)) if re.fullmatch(r"\d+(?:\.\d+)?", n)]
    return Counter(float(n) for n in (*found, *said_numbers(request)))


def numbers_apart(calls: Sequence[ToolCall], tools: Sequence[ToolSpec], request: str) -> list[ToolCall]:
    """The calls where two number parameters hold the same number, which the request writes once, mended: the one
    the tool lists later takes the one number the request writes that no parameter of the call holds (left as they
    were when there is not exactly one). SmolLM2 wrote `population=9800, area_km2=9800` for "the density of towns of
    9,800 people over 88 km²" (on an AMD EPYC; an Intel Xeon wrote 88)."""
    written = _written_numbers(request)

    def mend(fixed: dict[str, Any], spec: ToolSpec) -> dict[str, Any]:
        numbers = [p for p in spec.parameters.get("properties") or {} if _is_number(fixed.get(p))]
        for i, first in enumerate(numbers):
            for second in numbers[i + 1 :]:
                value = float(fixed[first])
                if float(fixed[second]) != value or written[value] != 1:
                    continue
                left = [n for n in written if n not in {float(fixed[p]) for p in numbers}]
                if len(left) == 1:
                    fixed[second] = int(left[0]) if isinstance(fixed[second], int) and left[0].is_integer() else left[0]
        return fixed

    return _each_call(calls, tools, mend)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def mended(calls: Sequence[ToolCall], tools: Sequence[ToolSpec], request: str) -> list[ToolCall]:
    """A turn's calls after decoding: a list kept whole in its array (`lists_kept_whole`), pairs and ranges in the
    order the request writes them (`in_written_order`), then a number two parameters took once written
    (`numbers_apart`)."""
    calls = in_written_order(lists_kept_whole(calls, tools, request), tools, request)
    return numbers_apart(calls, tools, request)
