"""Everyday agent tasks: a question, all eight everyday tools offered at once, and one right answer.

Some tasks need one tool, some two in a row (the second needs the first's result), some none. The agent runs
as a user would run it; the item passes when its final answer holds the right value (a number within 1%, a time,
or a word) and no protocol markup. Splits are by template, like the single-turn items' by family.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toollab.eval import layers
from toollab.eval.bfcl.calls import ReadCalls, operations
from toollab.eval.bfcl.data import Item
from toollab.eval.records import CallRecord, ItemRecord, Layers, RecordHead
from toollab.eval.synth.everyday import EVERYDAY_TOOLS, RATES_TO_EUR, time_in, weather_of
from toollab.eval.synth.families import POOLS
from toollab.formats.markup import MARKUP
from toollab.harness import Agent, CallPolicy, Model, RunStatus, ToolResultMessage
from toollab.retrieval import Catalogue

MAX_STEPS = 6
SENTENCES = (
    "the quick brown fox jumps over the lazy dog",
    "rain is expected in the hills tonight",
    "please bring two chairs and a lamp",
    "our train leaves at seven",
    "she sold the old blue bicycle to a neighbour last spring",
)
OPPOSITES = {"hot": "cold", "up": "down", "early": "late", "open": "closed|close", "full": "empty", "wet": "dry"}
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class Expect:
    """What a right answer holds: a number (within 1%), or a piece of text (a time, a word; "a|b" takes either)."""

    number: float | None = None
    text: str | None = None

    def met_by(self, answer: str) -> bool:
        if self.text is not None:
            return any(t.lower() in answer.lower() for t in self.text.split("|"))
        assert self.number is not None
        for found in _NUMBER.findall(answer):
            value = float(found.replace(",", ""))
            if abs(value - self.number) <= max(0.01, abs(self.number) * 0.01):
                return True
        return False


@dataclass(frozen=True)
class Drawn:
    """One drawn task: the question, what a right answer holds, and the calls that answer it, in order (each a
    tool name and its arguments; a later call may use an earlier result, which the draw knows)."""

    question: str
    expect: Expect
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()


Draw = Callable[[random.Random], Drawn]


def _n(rng: random.Random, low: int, high: int) -> int:
    return rng.randint(low, high)


def _money(rng: random.Random) -> tuple[float, str, str]:
    a, b = rng.sample(sorted(RATES_TO_EUR), 2)
    amount = float(rng.choice((10, 20, 50, 75, 120, 300)))
    return amount, a, b


def _converted(amount: float, a: str, b: str) -> float:
    return round(amount * RATES_TO_EUR[a] / RATES_TO_EUR[b], 2)


def _dates(rng: random.Random) -> tuple[str, str, int]:
    import datetime as dt

    start = dt.date(2027, 1, 1) + dt.timedelta(days=_n(rng, 0, 300))
    end = start + dt.timedelta(days=_n(rng, 3, 200))
    return start.isoformat(), end.isoformat(), (end - start).days


@dataclass(frozen=True)
class Template:
    """A kind of task in one wording: the tools a right run uses (in order), the split it belongs to, and a draw
    of its question with what the answer must hold. Every kind has a wording in each split."""

    tools: tuple[str, ...]
    split: str
    draw: Draw


TEMPLATES: dict[str, Template] = {}


def template(split: str, *tools: str) -> Callable[[Draw], Draw]:
    def register(draw: Draw) -> Draw:
        TEMPLATES[draw.__name__] = Template(tools, split, draw)
        return draw

    return register


# ---- arithmetic --------------------------------------------------------------------------------------------


@template("train", "arith")
def times(r: random.Random) -> Drawn:
    a, b = _n(r, 12, 99), _n(r, 12, 99)
    return Drawn(f"What is {a} times {b}?", Expect(a * b), (("arith", {"expression": f"{a} * {b}"}),))


@template("train", "arith")
def divided(r: random.Random) -> Drawn:
    b = _n(r, 3, 12)
    a = b * _n(r, 4, 90)
    return Drawn(f"What is {a} divided by {b}?", Expect(a / b), (("arith", {"expression": f"{a} / {b}"}),))


@template("dev", "arith")
def bracketed(r: random.Random) -> Drawn:
    a, b, c = _n(r, 2, 20), _n(r, 2, 20), _n(r, 2, 9)
    return Drawn(f"What is ({a} + {b}) * {c}?", Expect((a + b) * c), (("arith", {"expression": f"({a} + {b}) * {c}"}),))


@template("test", "arith")
def minus(r: random.Random) -> Drawn:
    a, b = _n(r, 200, 5000), _n(r, 10, 199)
    return Drawn(f"How much is {a} minus {b}?", Expect(a - b), (("arith", {"expression": f"{a} - {b}"}),))


# Arithmetic said in words rather than written: a list's sum or mean, and two operations in steps, the second on
# the first's result ("Divide 100 by 4, then add 5 to the result": SmolLM2 added 100 and 5).


def _three(r: random.Random) -> tuple[int, int, int]:
    return _n(r, 3, 60), _n(r, 3, 60), _n(r, 3, 60)


def _arith(question: str, value: float, expression: str) -> Drawn:
    """A task the calculator answers in one call of `expression`."""
    return Drawn(question, Expect(value), (("arith", {"expression": expression}),))


@template("train", "arith")
def sum_of(r: random.Random) -> Drawn:
    a, b, c = _three(r)
    return _arith(f"What is the sum of {a}, {b} and {c}?", a + b + c, f"{a} + {b} + {c}")


@template("dev", "arith")
def total_of(r: random.Random) -> Drawn:
    a, b, c = _three(r)
    return _arith(f"What is the total of {a}, {b} and {c}?", a + b + c, f"{a} + {b} + {c}")


@template("test", "arith")
def together(r: random.Random) -> Drawn:
    a, b, c = _three(r)
    return _arith(f"Add {a}, {b} and {c} together.", a + b + c, f"{a} + {b} + {c}")


@template("train", "arith")
def average(r: random.Random) -> Drawn:
    a, b, c = _three(r)
    return _arith(f"What is the average of {a}, {b} and {c}?", (a + b + c) / 3, f"({a} + {b} + {c}) / 3")


@template("dev", "arith")
def mean_of(r: random.Random) -> Drawn:
    (a, b, c), d = _three(r), _n(r, 3, 60)
    return _arith(f"What is the mean of {a}, {b}, {c} and {d}?", (a + b + c + d) / 4, f"({a} + {b} + {c} + {d}) / 4")


@template("test", "arith")
def find_average(r: random.Random) -> Drawn:
    a, b, c = _three(r)
    return _arith(f"Find the average of {a}, {b} and {c}.", (a + b + c) / 3, f"({a} + {b} + {c}) / 3")


@template("train", "arith")
def multiply_then(r: random.Random) -> Drawn:
    a, b, c = _n(r, 3, 40), _n(r, 3, 40), _n(r, 2, 50)
    return _arith(f"Multiply {a} by {b}, then subtract {c} from the result.", a * b - c, f"{a} * {b} - {c}")


@template("dev", "arith")
def divide_then(r: random.Random) -> Drawn:
    b = _n(r, 2, 12)
    a, c = b * _n(r, 3, 40), _n(r, 2, 50)
    return _arith(f"Divide {a} by {b}, then add {c} to the result.", a / b + c, f"{a} / {b} + {c}")


@template("test", "arith")
def subtract_then(r: random.Random) -> Drawn:
    a, c = _n(r, 50, 200), _n(r, 2, 40)
    b = _n(r, 2, 9)
    return _arith(f"Subtract {c} from {a}, then multiply the result by {b}.", (a - c) * b, f"({a} - {c}) * {b}")


# ---- lookups -------------------------------------------------------------------------------------------------


@template("train", "weather_now")
def weather(r: random.Random) -> Drawn:
    city = r.choice(POOLS["city"])
    return Drawn(f"What's the weather like in {city}?", Expect(weather_of(city)[0]), (("weather_now", {"city": city}),))


@template("dev", "weather_now")
def warm(r: random.Random) -> Drawn:
    city = r.choice(POOLS["city"])
    return Drawn(
        f"How warm is it in {city} right now?", Expect(weather_of(city)[0]), (("weather_now", {"city": city}),)
    )


@template("test", "weather_now")
def temperature(r: random.Random) -> Drawn:
    city = r.choice(POOLS["city"])
    return Drawn(
        f"What is the temperature in {city} today?", Expect(weather_of(city)[0]), (("weather_now", {"city": city}),)
    )


@template("train", "clock_in")
def clock(r: random.Random) -> Drawn:
    city = r.choice(POOLS["city"])
    return Drawn(f"What time is it in {city}?", Expect(text=time_in(city)), (("clock_in", {"city": city}),))


@template("dev", "clock_in")
def local_time(r: random.Random) -> Drawn:
    city = r.choice(POOLS["city"])
    return Drawn(f"What's the local time in {city}?", Expect(text=time_in(city)), (("clock_in", {"city": city}),))


@template("test", "clock_in")
def time_now(r: random.Random) -> Drawn:
    city = r.choice(POOLS["city"])
    return Drawn(f"Tell me the time in {city} now.", Expect(text=time_in(city)), (("clock_in", {"city": city}),))


# ---- conversions and counts ------------------------------------------------------------------------------------


@template("train", "money_convert")
def convert_money(r: random.Random) -> Drawn:
    amount, a, b = _money(r)
    return Drawn(
        f"How much is {amount:g} {a} in {b}?",
        Expect(_converted(amount, a, b)),
        (("money_convert", {"amount": amount, "from_code": a, "to_code": b}),),
    )


@template("dev", "money_convert")
def exchange(r: random.Random) -> Drawn:
    amount, a, b = _money(r)
    return Drawn(
        f"Convert {amount:g} {a} to {b}.",
        Expect(_converted(amount, a, b)),
        (("money_convert", {"amount": amount, "from_code": a, "to_code": b}),),
    )


@template("test", "money_convert")
def have_money(r: random.Random) -> Drawn:
    amount, a, b = _money(r)
    return Drawn(
        f"I have {amount:g} {a}. How many {b} is that?",
        Expect(_converted(amount, a, b)),
        (("money_convert", {"amount": amount, "from_code": a, "to_code": b}),),
    )


@template("train", "word_tally")
def count_words(r: random.Random) -> Drawn:
    sentence = r.choice(SENTENCES)
    return Drawn(
        f"How many words are in this sentence: '{sentence}'?",
        Expect(len(sentence.split())),
        (("word_tally", {"text": sentence}),),
    )


@template("dev", "word_tally")
def words_in(r: random.Random) -> Drawn:
    sentence = r.choice(SENTENCES)
    return Drawn(
        f"How many words does '{sentence}' have?", Expect(len(sentence.split())), (("word_tally", {"text": sentence}),)
    )


@template("test", "word_tally")
def word_count(r: random.Random) -> Drawn:
    sentence = r.choice(SENTENCES)
    return Drawn(
        f"Give me the word count of '{sentence}'.", Expect(len(sentence.split())), (("word_tally", {"text": sentence}),)
    )


@template("train", "days_between_dates")
def days(r: random.Random) -> Drawn:
    start, end, between = _dates(r)
    return Drawn(
        f"How many days are there from {start} to {end}?",
        Expect(between),
        (("days_between_dates", {"start": start, "end": end}),),
    )


@template("dev", "days_between_dates")
def how_long(r: random.Random) -> Drawn:
    start, end, between = _dates(r)
    return Drawn(
        f"How long is it from {start} to {end}, in days?",
        Expect(between),
        (("days_between_dates", {"start": start, "end": end}),),
    )


@template("test", "days_between_dates")
def days_apart(r: random.Random) -> Drawn:
    start, end, between = _dates(r)
    return Drawn(
        f"How many days apart are {start} and {end}?",
        Expect(between),
        (("days_between_dates", {"start": start, "end": end}),),
    )


@template("train", "length_convert")
def miles(r: random.Random) -> Drawn:
    km = _n(r, 3, 80)
    return Drawn(
        f"How many miles is {km} km?",
        Expect(round(km * 1000 / 1609.344, 3)),
        (("length_convert", {"value": km, "from_unit": "km", "to_unit": "mi"}),),
    )


@template("dev", "length_convert")
def km_to_miles(r: random.Random) -> Drawn:
    km = _n(r, 3, 80)
    return Drawn(
        f"Convert {km} km to miles.",
        Expect(round(km * 1000 / 1609.344, 3)),
        (("length_convert", {"value": km, "from_unit": "km", "to_unit": "mi"}),),
    )


@template("test", "length_convert")
def kilometers(r: random.Random) -> Drawn:
    km = _n(r, 3, 80)
    return Drawn(
        f"What is {km} kilometers in miles?",
        Expect(round(km * 1000 / 1609.344, 3)),
        (("length_convert", {"value": km, "from_unit": "km", "to_unit": "mi"}),),
    )


@template("train", "percent_of")
def percent(r: random.Random) -> Drawn:
    p, v = r.choice((5, 10, 15, 20, 25)), _n(r, 20, 400)
    return Drawn(f"What is {p}% of {v}?", Expect(p / 100 * v), (("percent_of", {"percent": p, "value": v}),))


@template("dev", "percent_of")
def percent_words(r: random.Random) -> Drawn:
    p, v = r.choice((5, 10, 15, 20, 25)), _n(r, 20, 400)
    return Drawn(f"How much is {p} percent of {v}?", Expect(p / 100 * v), (("percent_of", {"percent": p, "value": v}),))


@template("test", "percent_of")
def tip(r: random.Random) -> Drawn:
    p, v = r.choice((5, 10, 15, 20, 25)), _n(r, 20, 400)
    return Drawn(
        f"The bill is {v}. What is a {p}% tip?", Expect(p / 100 * v), (("percent_of", {"percent": p, "value": v}),)
    )


# ---- no tool needed --------------------------------------------------------------------------------------------


@template("train")
def hello(r: random.Random) -> Drawn:
    return Drawn(f"Say hello to {r.choice(POOLS['person'])}.", Expect(text="hello"), ())


@template("dev")
def opposite(r: random.Random) -> Drawn:
    word = r.choice(sorted(OPPOSITES))
    return Drawn(f"What is the opposite of '{word}'? Answer in one word.", Expect(text=OPPOSITES[word]), ())


@template("test")
def echo(r: random.Random) -> Drawn:
    word = r.choice(("yes", "ready", "banana", "blue"))
    return Drawn(f"Reply with just the word {word}.", Expect(text=word), ())


# ---- two steps: the second call needs the first's result -----------------------------------------------------


@template("train", "money_convert", "arith")
def money_then_add(r: random.Random) -> Drawn:
    (amount, a, b), x = _money(r), _n(r, 2, 30)
    question, converted = f"Convert {amount:g} {a} to {b}, then add {x} to the result.", _converted(amount, a, b)
    first = ("money_convert", {"amount": amount, "from_code": a, "to_code": b})
    return Drawn(question, Expect(converted + x), (first, ("arith", {"expression": f"{converted:g} + {x}"})))


@template("dev", "weather_now", "arith")
def fahrenheit(r: random.Random) -> Drawn:
    city = r.choice(POOLS["city"])
    celsius = weather_of(city)[0]
    question, calls = f"What is the temperature in {city} in degrees Fahrenheit?", (("weather_now", {"city": city}),)
    return Drawn(question, Expect(celsius * 9 / 5 + 32), (*calls, ("arith", {"expression": f"{celsius} * 9 / 5 + 32"})))


@template("test", "word_tally", "arith")
def words_times(r: random.Random) -> Drawn:
    sentence, k = r.choice(SENTENCES), _n(r, 2, 9)
    question, count = f"Count the words in '{sentence}' and multiply that count by {k}.", len(sentence.split())
    calls = (("word_tally", {"text": sentence}), ("arith", {"expression": f"{count} * {k}"}))
    return Drawn(question, Expect(count * k), calls)


def task_items(split: str, n: int, seed: int = 0) -> list[Item]:
    """`n` tasks from the templates of `split`."""
    names = [name for name, t in TEMPLATES.items() if t.split == split]
    items = []
    for i in range(n):
        rng = random.Random(f"{seed}:synth_task:{split}:{i}")
        name = rng.choice(names)
        tools = TEMPLATES[name].tools
        drawn = TEMPLATES[name].draw(rng)
        question, expect = drawn.question, drawn.expect
        items.append(
            Item(
                id=f"synth_task_{split}_{i}",
                category="synth_task",
                turns=[[{"role": "user", "content": question}]],
                functions=[t.spec.to_dict() for t in EVERYDAY_TOOLS],
                answer={"tools": list(tools), "number": expect.number, "text": expect.text},
                entry={"template": name},
            )
        )
    return items


def judge(answer: str | None, expect: Expect, status: RunStatus) -> tuple[bool, str]:
    """Whether a run's final answer is right, and BFCL-style error type when it is not."""
    if answer is None or not answer.strip():
        return False, "task:no_answer" if status == RunStatus.COMPLETED else f"task:{status}"
    if MARKUP.search(answer):
        return False, "task:markup"
    if not expect.met_by(answer):
        return False, "task:wrong_answer"
    return True, ""


async def run_task(
    item: Item, model: Model, head: RecordHead, policy: CallPolicy, *, tools_per_turn: int | None = None
) -> ItemRecord:
    """The agent on one everyday task, with all the everyday tools (or the `tools_per_turn` that fit it best each
    round); judged by its final answer."""
    expect = Expect(item.answer["number"], item.answer["text"])
    question = item.turns[0][0]["content"]
    started = time.perf_counter()
    tools = Catalogue(EVERYDAY_TOOLS)  # shows the `tools_per_turn` that fit the request best, or all of them
    result = await Agent(model, tools, max_steps=MAX_STEPS, policy=policy, tools_per_turn=tools_per_turn).run(question)
    if result.status == RunStatus.MODEL_ERROR:
        from toollab.eval.bfcl.single_turn import failed

        return failed(head, result.error or "model error", result.error_source or "provider", result.duration_seconds)
    valid, error_type = judge(result.answer, expect, result.status)
    ran = {m.call_id for m in result.messages if isinstance(m, ToolResultMessage) and m.error_kind is None}
    called = [c.name for c in result.tool_calls if c.id in ran and c.name != "finish"]
    expected = list(item.answer["tools"])
    read = ReadCalls(attempts=len(result.tool_calls))
    read.parse_failures = sum(c.parse_error is not None for c in result.tool_calls)
    return ItemRecord(
        **head,
        prompt=question,
        transcript=result.messages,
        raw=[m.raw if m.raw is not None else m.content for m in result.messages if m.role == "assistant"],
        calls=[CallRecord(name=c.name, arguments=_object(c.args_or_raw())) for c in result.tool_calls],
        valid=valid,
        error_type=None if valid else error_type,
        errors=[] if valid else [f"answer {result.answer!r}; expected {expect.number or expect.text!r}"],
        layers=Layers(selection=layers.selection(called, expected), trajectory=layers.trajectory(called, expected)),
        ops=operations(time.perf_counter() - started, result.usage, len(result.rounds), read),
        failure_source=None if valid else "model",
    )


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {"_raw": value}
