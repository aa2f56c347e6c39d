"""Generating the dev set's single-turn items in BFCL's shapes, and its splits.

Items are BFCL `Item`s (the same question turns, function docs and possible-answer format), so BFCL's own AST
checker judges them and `toollab eval synth` runs through the same pipeline as `toollab eval bfcl`. A seeded
generator makes the same items on every machine; a smaller limit is a prefix of a larger one (runs stay paired).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from datetime import date, datetime
from itertools import combinations, permutations
from typing import Any

from toollab.eval.bfcl.data import Item
from toollab.eval.synth.families import ADJECTIVES, DECOYS, FAMILIES, POOLS, Family, Fn, Param
from toollab.eval.synth.list_families import LIST_FAMILIES, LIST_POOLS

SPLITS = ("train", "dev", "test")
SINGLE = ("synth_simple", "synth_multiple", "synth_parallel", "synth_parallel_multiple", "synth_irrelevance")
TASKS = "synth_task"
# calls that pass lists (`list_families`), one call or two of one function: apart, so that the other categories
# stay as they were ("parallel" in a name is what BFCL's checker reads to judge several calls)
LISTS = ("synth_lists", "synth_parallel_lists")
SYNTH_CATEGORIES = (*SINGLE, TASKS, *LISTS)
_SHARES = (("train", 50), ("dev", 25), ("test", 25))  # percent of families


def split_of(name: str) -> str:
    """The split a family (or a task template) belongs to: a fixed hash of its name."""
    bucket = int(hashlib.sha256(name.encode()).hexdigest(), 16) % 100
    for split, share in _SHARES:
        if bucket < share:
            return split
        bucket -= share
    raise AssertionError("shares add up to 100")


def families(split: str) -> list[Family]:
    return [f for f in FAMILIES if split_of(f.name) == split]


def function_doc(fn: Fn) -> dict[str, Any]:
    """A function as BFCL documents one."""
    properties: dict[str, Any] = {}
    for prm in fn.params:
        prop: dict[str, Any] = {"type": prm.type, "description": prm.description}
        if prm.type == "array" and prm.items == "enum":
            prop["items"] = {"type": "string", "enum": list(prm.enum)}
        elif prm.type == "array":
            prop["items"] = {"type": prm.items}
        elif prm.enum:
            prop["enum"] = list(prm.enum)
        if not prm.required:
            prop["default"] = prm.default
        properties[prm.name] = prop
    required = [prm.name for prm in fn.params if prm.required]
    return {
        "name": fn.name,
        "description": fn.description,
        "parameters": {"type": "dict", "properties": properties, "required": required},
    }


def _pool(prm: Param) -> Sequence[Any]:
    if prm.type == "array" and prm.items != "enum":  # lists of their own
        return LIST_POOLS[prm.pool or prm.name]
    if prm.type == "array":  # one or two of its items
        return [*((item,) for item in prm.enum), *combinations(prm.enum, 2)]
    if prm.enum:
        return prm.enum
    if prm.type == "boolean":
        return (True, False)
    if prm.spoken:
        return tuple(date.fromisoformat(d).strftime(prm.spoken) for d in POOLS[prm.pool or "date"])
    return POOLS[prm.pool or prm.name]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def spoken_date(day: date) -> str:
    """A date as people write it in a request, in one of four ways chosen by the date ("March 14, 2027",
    "14 March 2027", "March 14th, 2027", "the 14th of March 2027")."""
    month = day.strftime("%B")
    ways = (
        f"{month} {day.day}, {day.year}",
        f"{day.day} {month} {day.year}",
        f"{month} {_ordinal(day.day)}, {day.year}",
        f"the {_ordinal(day.day)} of {month} {day.year}",
    )
    return ways[day.toordinal() % len(ways)]


_SPELLED = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"),
    *("twenty", "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five"),
)
_TENS = {30: "thirty", 40: "forty", 50: "fifty"}


def spelled(n: int) -> str:
    """A count in words, as people write small ones ("five", "twenty-four", "thirty")."""
    return _TENS.get(n) or _SPELLED[n]


def _text(prm: Param, value: Any) -> str:
    if prm.spelled:
        return spelled(int(value))
    if isinstance(value, bool):
        return prm.words[0] if value else prm.words[1]
    if prm.spoken:
        return spoken_date(datetime.strptime(value, prm.spoken).date())
    if prm.number_list:
        return "[" + ", ".join(str(item) for item in value) + "]"
    if prm.type == "array" and prm.items == "string":
        return ", ".join(value[:-1]) + " and " + value[-1]
    if prm.type == "array":
        return " and ".join(item.lower() for item in value)
    if prm.percent:
        return f"{value * 100:g}%"
    if prm.adjective:
        return ADJECTIVES[value]
    if prm.grouped:
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"
    return str(value)


def ask(fn: Fn, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A question for `fn` and its possible answer (acceptable values per argument, BFCL's format)."""
    template = rng.choice(fn.asks)
    values = {prm.name: rng.choice(_pool(prm)) for prm in fn.params}
    if len(fn.params) > 1 and len({str(v) for v in values.values()}) < len(values):  # no two slots alike
        return ask(fn, rng)
    question = template.format(**{prm.name: _text(prm, values[prm.name]) for prm in fn.params})
    return question, _answer(fn, _slots(fn, template), values)


def _slots(fn: Fn, template: str) -> set[str]:
    """The parameters `template` has a slot for."""
    return {prm.name for prm in fn.params if "{" + prm.name + "}" in template}


def _answer(fn: Fn, asked: set[str], values: dict[str, Any]) -> dict[str, Any]:
    """The possible answer of the call that gives the parameters `asked` their `values`: a parameter the request
    leaves out may be absent or its default."""
    answer: dict[str, list[Any]] = {}
    for prm in fn.params:
        if prm.name in asked and prm.number_list:  # in their order
            answer[prm.name] = [list(values[prm.name])]
        elif prm.name in asked and prm.type == "array":  # its items in any order
            answer[prm.name] = [list(order) for order in permutations(values[prm.name])]
        elif prm.name in asked:
            answer[prm.name] = [values[prm.name]]
        else:
            assert not prm.required, f"{fn.name}: a request leaves out required {prm.name}"
            answer[prm.name] = ["", prm.default]
    return {fn.name: answer}


def _listable(fn: Fn, template: str) -> list[Param]:
    """The parameters `template` has a slot for whose values a question can list (not booleans, not lists)."""
    slots = _slots(fn, template)
    return [prm for prm in fn.params if prm.name in slots and prm.type not in ("boolean", "array")]


def ask_list(fn: Fn, rng: random.Random, k: int, tries: int = 10) -> tuple[str, list[dict[str, Any]]] | None:
    """One question asking `k` calls of `fn` that differ in one parameter, whose values are listed in its slot
    ("How often should I water my fern, cactus and basil?"), and the calls' possible answers; None when the
    template drawn has no slot to list (booleans do not list) or too few values, or `tries` draws all gave a slot
    one of the listed values."""
    template = rng.choice(fn.asks)
    listable = _listable(fn, template)
    if not listable:
        return None
    varied = rng.choice(listable)
    if len(_pool(varied)) < k:
        return None
    listed = rng.sample(list(_pool(varied)), k)
    values = {prm.name: rng.choice(_pool(prm)) for prm in fn.params}
    # no listed value is another slot's too ("Harbor City FC vs Harbor City FC")
    if {str(v) for v in listed} & {str(values[p.name]) for p in fn.params if p is not varied}:
        return ask_list(fn, rng, k, tries - 1) if tries > 1 else None
    words = {prm.name: _text(prm, values[prm.name]) for prm in fn.params}
    words[varied.name] = ", ".join(_text(varied, v) for v in listed[:-1]) + " and " + _text(varied, listed[-1])
    slots = _slots(fn, template)
    return template.format(**words), [_answer(fn, slots, values | {varied.name: value}) for value in listed]


def _two_lists(
    fn: Fn, rng: random.Random, k: int, tries: int
) -> tuple[str, dict[str, Any], dict[str, list[Any]], dict[str, str]] | None:
    """A template of `fn` with two of its slots listing `k` values each ("Lisbon, Porto and Faro", "Madrid, Rome
    and Oslo"): the template, a value for every parameter, the two lists by parameter, and each slot's words;
    None when the template drawn has fewer than two slots to list or `tries` draws all repeated a value."""
    template = rng.choice(fn.asks)
    listable = [prm for prm in _listable(fn, template) if len(_pool(prm)) >= k]
    if len(listable) < 2:
        return None
    varied = rng.sample(listable, 2)
    values = {prm.name: rng.choice(_pool(prm)) for prm in fn.params}
    columns = {prm.name: rng.sample(list(_pool(prm)), k) for prm in varied}
    said = [str(v) for column in columns.values() for v in column]
    said += [str(values[p.name]) for p in fn.params if p not in varied]
    if len(set(said)) < len(said):  # no value twice ("Lisbon to Lisbon")
        return _two_lists(fn, rng, k, tries - 1) if tries > 1 else None
    words = {prm.name: _text(prm, values[prm.name]) for prm in fn.params}
    for prm in varied:
        texts = [_text(prm, v) for v in columns[prm.name]]
        words[prm.name] = ", ".join(texts[:-1]) + " and " + texts[-1]
    return template, values, columns, words


def ask_respectively(fn: Fn, rng: random.Random, k: int, tries: int = 10) -> tuple[str, list[dict[str, Any]]] | None:
    """One question asking `k` calls of `fn` that differ in two parameters, both listed in their slots and paired
    in order ("... from Lisbon, Porto and Faro to Madrid, Rome and Oslo, respectively?"), and the calls' possible
    answers; None when no two lists could be drawn (`_two_lists`)."""
    drawn = _two_lists(fn, rng, k, tries)
    if drawn is None:
        return None
    template, values, columns, words = drawn
    question = template.format(**words)
    end = question[-1] if question[-1] in "?.!" else ""
    question = f"{question.rstrip('?.!')}, respectively{end}"
    slots = _slots(fn, template)
    cases = [{name: column[n] for name, column in columns.items()} for n in range(k)]
    return question, [_answer(fn, slots, values | case) for case in cases]


def ask_product(fn: Fn, rng: random.Random, tries: int = 10) -> tuple[str, list[dict[str, Any]]] | None:
    """One question asking a call of `fn` for each pair of two parameters' values, two of each listed in their slots
    without pairing them ("Schedule for japanese and german, advanced and beginner level?": four calls), and the
    calls' possible answers; None when no two lists could be drawn (`_two_lists`)."""
    drawn = _two_lists(fn, rng, 2, tries)
    if drawn is None:
        return None
    template, values, columns, words = drawn
    (a, xs), (b, ys) = columns.items()
    slots = _slots(fn, template)
    return template.format(**words), [_answer(fn, slots, values | {a: x, b: y}) for x in xs for y in ys]


# A request to do one ask again with another value: the ask, then "the same" for the new value(s), said as the
# template says the value (with its "$", its unit, "%"), or by the parameter's name where the template gives it bare.
_AGAIN = (
    "{q}, and then do the same for {new}{end}",
    "{q} Then do the same for {new}.",
    "{q} Can you do the same but for {new} instead?",
    "{q} And the same for {new}, please.",
    "{q} After that, I need the same with {new}.",
)
_NOT_UNITS = {"and", "or", "at", "for", "in", "on", "of", "to", "with", "over", "a", "an", "the", "is", "per", "by"}


def _again_text(prm: Param, template: str, value: Any) -> str:
    """`value` as a request to do the same again says it: "$20,000 loan", "10 years", "3.5%", "Porto", or "a sample
    size of 150" where the template writes the number with nothing telling after it."""
    text = _text(prm, value)
    if prm.type not in ("integer", "float"):
        return text
    found = re.search(r"(\$?)\{" + prm.name + r"\}(%|\s+[A-Za-z][\w-]*)?", template)
    dollar, after = (found.group(1), found.group(2) or "") if found else ("", "")
    if after.strip().lower() in _NOT_UNITS:
        after = ""
    if not after and not dollar and not prm.percent:
        named = prm.name.replace("_", " ")
        return f"{named} of {text}" if named.startswith("my ") else f"a {named} of {text}"
    return f"{dollar}{text}{after}"


def ask_again(fn: Fn, rng: random.Random, k: int, tries: int = 10) -> tuple[str, list[dict[str, Any]]] | None:
    """One ask of `fn`, then the same again for `k` other values of one parameter ("What is the monthly payment on
    a $18,500 loan at 4.2% over 5 years? Can you do the same but for 10 years instead?"), and the 1 + k calls'
    possible answers; None when the template has no slot to vary or `tries` draws all repeated a value."""
    template = rng.choice(fn.asks)
    listable = _listable(fn, template)
    listable = [prm for prm in listable if len(_pool(prm)) > k]
    if not listable:
        return None
    varied = rng.choice(listable)
    first, *others = rng.sample(list(_pool(varied)), k + 1)
    values = {prm.name: rng.choice(_pool(prm)) for prm in fn.params} | {varied.name: first}
    said = [str(v) for v in (*values.values(), *others)]
    if len(set(said)) < len(said):
        return ask_again(fn, rng, k, tries - 1) if tries > 1 else None
    question = template.format(**{prm.name: _text(prm, values[prm.name]) for prm in fn.params})
    texts = [_again_text(varied, template, v) for v in others]
    new = ", ".join(texts[:-1]) + " and " + texts[-1] if k > 1 else texts[0]
    end = question[-1] if question[-1] in "?.!" else "."
    form = rng.choice(_AGAIN)
    again = form.format(q=question.rstrip("?.!") if form.startswith("{q},") else question, new=new, end=end)
    slots = _slots(fn, template)
    return again, [_answer(fn, slots, values | {varied.name: v}) for v in (first, *others)]


def _asks(fn: Fn, rng: random.Random, listed: bool) -> tuple[str, list[dict[str, Any]]]:
    """A question for `fn` and its calls' possible answers: when `listed`, two or three values of one parameter
    listed (`ask_list`) where its template has a slot to list, else one call."""
    several = ask_list(fn, rng, rng.randint(2, 3)) if listed else None
    if several is not None:
        return several
    question, answer = ask(fn, rng)
    return question, [answer]


_COUNTS = ("two", "three", "four")


def _slot(prm: Param, value: Any) -> str:
    """A parameter and its value in words: "origin city Lisbon"; a boolean with words of its own says only them."""
    if isinstance(value, bool) and prm.words != ("yes", "no"):
        return _text(prm, value)
    return f"{prm.name.replace('_', ' ')} {_text(prm, value)}"


_ORDINALS = ("first", "second", "third", "fourth")


def ask_cases(fn: Fn, rng: random.Random, k: int, tries: int = 10) -> tuple[str, list[dict[str, Any]]] | None:
    """One request stating what to do, then `k` cases of it one by one ("Three cases of this, please: estimate how
    many days a parcel takes between two cities. The first has origin city Lisbon and destination city Porto, the
    second has ..."), and the calls' possible answers (optional parameters left out); None when `tries` draws gave
    two cases alike or a case two slots alike."""
    required = [prm for prm in fn.params if prm.required]
    cases = [{prm.name: rng.choice(_pool(prm)) for prm in required} for _ in range(k)]
    alike = len({repr(c) for c in cases}) < k or any(len({str(v) for v in c.values()}) < len(c) for c in cases)
    if alike:
        return ask_cases(fn, rng, k, tries - 1) if tries > 1 else None
    clauses = [f"the {_ORDINALS[n]} has " + " and ".join(_slot(prm, case[prm.name]) for prm in required)
               for n, case in enumerate(cases)]  # fmt: skip
    listed = ", ".join(clauses[:-1]) + ", and " + clauses[-1]
    what = fn.description[0].lower() + fn.description[1:]
    question = f"{_COUNTS[k - 2].capitalize()} cases of this, please: {what} {listed[0].upper()}{listed[1:]}."
    return question, [_answer(fn, {prm.name for prm in required}, case) for case in cases]


# What people add that is not an argument: a name, a number, a service. Every odd simple and multiple item ends
# with one, so a rule that wants every name and number of the request in a call meets its cost on the dev set too
# (BFCL's questions name stores, sites and second quantities that no argument takes).
ASIDES = (
    "I'm asking for my friend Juniper.",
    "I found you through the Kestrel app.",
    "It's for a school project due on the 14th.",
    "We are 3 people, if that matters.",
    "My colleague Marlow asked me to check.",
    "I'm writing this on my Orbit 7 tablet.",
    "Thanks, this is my 2nd question today.",
    "I read about it in Atlas Weekly.",
)


# How people join the things they ask in one message: "Also: ...", and as often a sequence word ("Then, ...",
# "After that, ...", a last "Finally, ..."), or a join inside a sentence (", and then ...", or a bare "and"), which
# a reader may not take for a dependency on its own: each ask here is whole (it names everything it needs).
_JOINS = ("Also:", "Also,", "Additionally,", "Then,", "Next,", "After that,")
_LAST_JOINS = ("Finally,", "Lastly,")
_INSIDE_JOINS = (", and then", ", and also", ", then", " and")


# ... or they number them where sentences open, after a line that says there are several (and may close with one
# that speaks of them all)
_NUMBERED = (
    "Two things, please. First: {0} Second: {1}",
    "Could you help me with a couple of things? First, {0} Second, {1}",
    "I have two questions. Firstly, {0} Secondly, {1}",
    "Can you help me with a few tasks? First, {0} Lastly, {1} Could you do these for me?",
)


def _after(join: str, question: str) -> str:
    """A question as it goes on after a join: lowercased after a comma ("Then, how ..."), unless it opens with "I"
    or a name in capitals."""
    first = question.split()[0]
    keep = join.endswith(":") or first in ("I", "I'm", "I'd", "I'll", "I've") or first[:2].isupper()
    return question if keep else question[0].lower() + question[1:]


def _joined(questions: Sequence[str], rng: random.Random) -> str:
    """The questions as one message: a third of the joins inside a sentence (", and then how ..."), the others
    between sentences."""
    out = questions[0]
    for k, question in enumerate(questions[1:], start=1):
        last = k == len(questions) - 1 and k >= 2
        inside = rng.random() < 1 / 3
        join = rng.choice(_INSIDE_JOINS if inside else _LAST_JOINS if last and rng.random() < 0.5 else _JOINS)
        said = _after(join, question)
        out = f"{out.rstrip('?.!')}{join} {said}" if inside else f"{out} {join} {said}"
    return out


def _numbered(first: str, second: str, rng: random.Random) -> str:
    """Two questions numbered where sentences open, in one of the ways of `_NUMBERED`."""
    form = rng.choice(_NUMBERED)
    join = form.split("{0}")[0].rstrip().split()[-1]  # "First:", "First,", "Firstly,"
    return form.format(_after(join, first), _after(join, second))


def _all_functions(split: str) -> list[Fn]:
    return [fn for family in families(split) for fn in family.functions]


def _item(category: str, split: str, i: int, question: str, fns: list[Fn], answer: list[Any]) -> Item:
    return Item(
        id=f"{category}_{split}_{i}",
        category=category,
        turns=[[{"role": "user", "content": question}]],
        functions=[function_doc(fn) for fn in fns],
        answer=answer,
    )


def _one(category: str, split: str, i: int, rng: random.Random) -> Item:
    fams = families(split)
    pool = _all_functions(split)
    if category == "synth_simple":
        fn = rng.choice(pool)
        question, answer = ask(fn, rng)
        if i % 2:
            question = f"{question} {rng.choice(ASIDES)}"
        return _item(category, split, i, question, [fn], [answer])
    if category == "synth_multiple":
        fn = rng.choice(pool)
        others = rng.sample([f for f in pool if f.name != fn.name], rng.randint(1, 3))
        question, answer = ask(fn, rng)
        offered = [fn, *others]
        rng.shuffle(offered)
        if i % 2:
            question = f"{question} {rng.choice(ASIDES)}"
        return _item(category, split, i, question, offered, [answer])
    if category == "synth_parallel":
        fn = rng.choice(pool)
        if i % 8 == 1:  # an eighth ask once, then "the same" for other values ("..., and then do the same for X")
            again = ask_again(fn, rng, rng.randint(1, 2))
            if again is not None:
                return _item(category, split, i, again[0], [fn], again[1])
        elif i % 2:  # the other odd items list one parameter's values in one question, as people often ask
            listed = ask_list(fn, rng, rng.randint(2, 4))
            if listed is not None:
                return _item(category, split, i, listed[0], [fn], listed[1])
        elif i % 4 == 2:  # a quarter state their cases one by one after what to do for each
            cases = ask_cases(fn, rng, rng.randint(2, 4))
            if cases is not None:
                return _item(category, split, i, cases[0], [fn], cases[1])
        elif i % 16 == 4:  # a sixteenth list two parameters' values, paired in order ("..., respectively")
            paired = ask_respectively(fn, rng, rng.randint(2, 3))
            if paired is not None:
                return _item(category, split, i, paired[0], [fn], paired[1])
        elif i % 16 == 12:  # ... and a sixteenth two values of each, to be called in every pairing (four calls)
            crossed = ask_product(fn, rng)
            if crossed is not None:
                return _item(category, split, i, crossed[0], [fn], crossed[1])
        asked = [ask(fn, rng) for _ in range(rng.randint(2, 3))]
        if len({repr(a) for _, a in asked}) < len(asked):  # each ask a different call
            return _one(category, split, i, rng)
        question = _joined([q for q, _ in asked], rng)
        return _item(category, split, i, question, [fn], [a for _, a in asked])
    if category == "synth_parallel_multiple":
        family = rng.choice([f for f in fams if len(f.functions) > 1] or fams)
        first, second = rng.sample(list(family.functions), 2) if len(family.functions) > 1 else rng.sample(pool, 2)
        if i % 8 == 1 and (again := ask_again(second, rng, 1)) is not None:  # the second, then the same again
            (q1, a1), (q2, c2) = ask(first, rng), again
            c1 = [a1]
        elif i % 2:  # half ask one function or both for several values at once: 3 or 4 calls
            (q1, c1), (q2, c2) = _asks(first, rng, listed=True), _asks(second, rng, listed=i % 4 == 3)
        else:
            (q1, a1), (q2, a2) = ask(first, rng), ask(second, rng)
            c1, c2 = [a1], [a2]
        offered = [first, second, *rng.sample([f for f in pool if f not in (first, second)], rng.randint(0, 2))]
        rng.shuffle(offered)
        if i % 4 == 2:  # a quarter number their requests
            return _item(category, split, i, _numbered(q1, q2, rng), offered, [*c1, *c2])
        return _item(category, split, i, _joined([q1, q2], rng), offered, [*c1, *c2])
    if category == "synth_irrelevance":  # half near misses (the family's other functions), half unrelated ones
        fn = rng.choice(pool)
        family = next(f for f in fams if fn in f.functions)
        siblings = [f for f in family.functions if f is not fn]
        unrelated = [f for f in pool if f not in family.functions]
        near = bool(siblings) and rng.random() < 0.5
        offered = siblings if near else rng.sample(unrelated, min(len(unrelated), rng.randint(1, 3)))
        question, _ = ask(fn, rng)
        if i % 4 == 3 and fn.name in DECOYS:  # a quarter: the same domain and things, another task (dev and test)
            offered = [DECOYS[fn.name], *siblings]
            rng.shuffle(offered)
        return _item(category, split, i, question, offered, [])
    if category in LISTS:  # one call, or two calls of one function with other lists, joined
        listing = [fn for family in LIST_FAMILIES if split_of(family.name) == split for fn in family.functions]
        fn = rng.choice(listing)
        if category == LISTS[0]:
            question, answer = ask(fn, rng)
            return _item(category, split, i, question, [fn], [answer])
        asked = [ask(fn, rng) for _ in range(2)]
        if len({repr(a) for _, a in asked}) < 2:
            return _one(category, split, i, rng)
        return _item(category, split, i, _joined([q for q, _ in asked], rng), [fn], [a for _, a in asked])
    raise ValueError(f"unknown synth category {category!r}; known: {', '.join(SYNTH_CATEGORIES)}")


def load_synth(categories: Sequence[str], split: str = "dev", limit: int | None = None, seed: int = 0) -> list[Item]:
    """`limit` items (100 when None) of each category from `split`. Item i depends only on (category, split, i,
    seed), so a smaller limit gives a prefix of a larger one."""
    from toollab.eval.synth.tasks import task_items

    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    n = 100 if limit is None else limit
    out: list[Item] = []
    for category in categories:
        if category == TASKS:
            out.extend(task_items(split, n, seed))
            continue
        for i in range(n):
            rng = random.Random(f"{seed}:{category}:{split}:{i}")
            out.append(_one(category, split, i, rng))
    return out
