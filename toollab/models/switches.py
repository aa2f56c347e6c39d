"""The named levers on how a local model uses tools, and what each sets.

Each switch was measured alone and together with the others on the dev set (`toollab eval synth`, never BFCL),
with McNemar's test against the default it would change (`benchmarks/switches.py`; README, "Making the default
agent work"). `load_model` turns a `Switches` into the model's decoding options and call policy; every command
takes `--switches "name=on,name=off"`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from toollab.harness.request import ANSWER, CallPolicy, Gate
from toollab.models.demos import DemoPicker
from toollab.models.local_parts import EachPart
from toollab.retrieval import TopTools

# Fitted on the dev set: the gate's threshold is the most accurate point on items that need a call that keeps
# irrelevance accuracy at 80% or above (`toollab eval gate`), with `founded` turning down what it catches above
# the threshold (0.3113 before the dev set's dates, lists and values said in another form). "dense-unnamed" fitted
# better on the dev set (0.2895: 79.6% of the items that need a call, 83.3% irrelevance, against 78.3% / 80.0%),
# whose names say nothing of the tools, but lost 2 of BFCL's items and won none: there names say what is asked
# ("Christianity in Egypt and Turkey"). The selector's ratio keeps 98% (multiple) and 88% (parallel_multiple) of
# the tools a train-split request asks for and drops 97-100% of the others; the grounding strength was chosen
# among 2 and 3.
GATE = Gate("dense", 0.2883)
# a request that asks several things: per part, split further where it asks for different tools (`tool_parts`)
SELECT = EachPart(TopTools(3, signal="dense", ratio=0.7), floor=GATE.threshold)
GROUNDING = 3.0
DEMOS = DemoPicker(2)  # the two demonstrations nearest the request
VOTES = 5  # candidates of a calling turn under `vote`: the greedy one and four samples


@dataclass(frozen=True)
class Switches:
    """`gate`: a turn that answers the user calls only when the request fits an offered tool (otherwise it answers),
    instead of always calling. `select`: a request shows only the tools that fit it. `grounding`: argument values
    copy the request and the results (with `listed`, a later call takes a list's next item); a list's item or an
    object's key opens as a value does (not `"}}}`), and a list of strings ends where it takes an item again or,
    past its second, one sharing no word with the request; a number the request writes with separators
    ("$1,250,000") is copied whole, and any number of the source, once written, takes no further digit unless a
    longer one starts with it ("5 km": 5, not 500000); a place whose description asks its region keeps it
    ("Denver, Colorado").
    `loop_guard`: no token loops inside a call, and no number runs past 20 digits. `extra_calls`: a turn ends before
    a call that repeats one of its calls or asks nothing the request asked (judged as soon as the call's JSON
    closes, so that the token budget does not cut it off first). `one_call`: one call a turn.
    `finish_after_results`: a turn after tool results is a finish (an answer from the results) instead of prose or
    more calls. `direct_results`: a round whose calls all succeed ends the run with their results as the answer (no
    answer written by the model; LangChain's return_direct): on the dev set's everyday tasks SmolLM2's own answers
    after results lost 16 items and gained none against them. `demos`: the two worked requests (from the dev set's
    train split) nearest the request are shown before it, with their calls in the model's format. `vote`: a calling
    turn decodes five candidates (greedy and four samples) and keeps the calls most of them make (self-consistency);
    it costs up to five times the decoding. `named_optionals`: an optional parameter the request names (a word of
    its name, or an enum value) must be written, and a flag it names takes the value it says ("without insurance":
    false). `coverage`: a turn's first calls may not end the turn while a number, quoted span, capitalised name or
    listed word ("fern, cactus and basil") of the request is in none of them (up to four calls). `listed`: the same,
    for the items of a list in the request one of the turn's calls took a value from ("Paris" of "Paris, Rome and
    Oslo": Rome and Oslo want calls too), and a later call of the tool writes one of the items left and repeats a
    value all its earlier calls gave where the request writes no rival (`local_mentions.pinned_next`); on the dev
    set it won 5 parallel items and lost none, on BFCL (50 a category) 1 and none; the pins 14 and none. Where two
    parameters took two lists' items, every pairing is called ("Lakers and Bulls in 2018 and 2020": four calls;
    `local_mentions.crossed_left`), unless the request says "respectively". A number item is called only when a call
    holds it as the request writes it ("5 and 20 years at 5.0%": the rate's 5.0 is not the years' 5;
    `local_numbers.holds_number`), a list may be said in words ("thirty and fifteen years"), and while a tool's list
    has items left the next call's name leans to that tool.
    `decompose`: a first calling turn whose request joins several requests ("... ? Also: ...") decodes one row per
    part, each seeing its part alone as the request, and makes the parts' calls (a request that numbers its asks
    where sentences open, "First, ... Lastly, ...", splits at the numbers, and an ask done again for other values,
    "... Can you do the same but for 10 years instead?", or "... What about 10 years?", is a part of its own, the ask
    with the new values in place: `local_repeats`; a question "and" joins to another is a part of its own; and a
    sentence that states its cases side by side, "... after 30 years at 5% and after 20 years at 4%?", is a part
    per case: `local_cases`); on the dev set's parallel and parallel_multiple items (60 each) it won 21 and lost 4.
    `chain` (with `direct_results`): a round whose results leave arithmetic the request asks undone ("How many more
    people live in A than in B?") is followed by one call of the offered calculator, whose result is then the
    answer; a local model's expression there takes every number of the results and the request's own, and the
    operators it names (`local_mentions.ExpressionHint`). On the
    everyday tasks' train split it won 7 and lost none (the dev split has no task it applies to, and none changed).
    With it, a local model's first calling turn on a request whose numbers are all in arithmetic it writes out
    ("What is (5.0 + 3.0) * 2.0?", or "twelve times three") writes one of those spans as the calculator's expression
    (`chain.written_expressions`), and `select` offers the calculator alone for it (`local_parts.written_arithmetic`).
    `dates`: a parameter whose description asks a date format ("yyyy-mm-dd", "MM/DD/YYYY") takes only the dates the
    request writes ("March 11, 2022"), in that format. `named_items`: a list whose items are choices of an enum holds
    only the choices the request names, when it names some ("a park with a tennis court": ["Tennis Court"], not every
    amenity offered), and a string chosen from an enum is one of the choices the request names (`named_choice`: "after a
    loss" is the `outcome` "loss"). `founded` (with `gate`): a turn the gate let call whose every call needs a value the
    request never gave (a required argument it does not hold, numbers said in words counting:
    `local_mentions.unfounded`) is answered instead: a near miss fills what its tool needs. `fractions`: a number
    parameter whose description asks a fraction ("as a decimal (0.05 for 5%)", "the probability") takes one of the
    percentages the request writes as its fraction ("8% a year": 0.08), where the request writes some. `cues`: a number
    parameter takes only the request's numbers written beside a word of its name, or else of its description ("over
    thirty, twenty and five years" for `years`, "275,000 people" for a population described as "number of people"),
    where some are (`local_cues.cued_numbers`). Off: on the dev set it won 4 and lost 1, on BFCL it lost 12 and won 6
    (parallel 6 / 0), where requests count their cases in words ("two charges", "four circles": the count is cued by the
    noun a description names) and glue units to numbers ("5cm", which it does not read), and a parameter cued for one
    number of a list ("... for the year 2020") lost the others ("in 2015"). `tool_parts` (with `decompose` and
    `select`): a part is split further where its clauses ask for different offered tools ("Book a flight from Seattle to
    Boston and book a hotel in Boston for 4 nights.": a flight, a hotel), each clause judged by the tool it fits best at
    the gate's threshold or more (`local_parts.tool_parts`), and shown that tool."""

    gate: bool = True
    select: bool = True
    grounding: bool = True
    loop_guard: bool = True
    extra_calls: bool = True
    one_call: bool = False
    finish_after_results: bool = True
    direct_results: bool = True
    chain: bool = True
    demos: bool = False
    vote: bool = False
    named_optionals: bool = True
    coverage: bool = False
    listed: bool = True
    decompose: bool = True
    dates: bool = True
    named_items: bool = True
    founded: bool = True
    fractions: bool = True
    cues: bool = False
    tool_parts: bool = True

    @classmethod
    def parse(cls, text: str, base: Switches | None = None) -> Switches:
        """`base` (the defaults) with "name=on,name=off" put in. Raises ValueError naming what is wrong."""
        values: dict[str, bool] = {}
        names = [f.name for f in dataclasses.fields(cls)]
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = part.partition("=")
            if name not in names:
                raise ValueError(f"unknown switch {name!r}; switches: {', '.join(names)}")
            if value not in ("on", "off"):
                raise ValueError(f"switch {name!r} takes on or off, not {value!r}")
            values[name] = value == "on"
        return dataclasses.replace(base or cls(), **values)

    @classmethod
    def none(cls) -> Switches:
        """Every switch off: the agent as it was before any was measured."""
        return cls(**{f.name: False for f in dataclasses.fields(cls)})

    def local_options(self) -> dict[str, Any]:
        """The local model's decoding options."""
        return {
            "loop_guard": self.loop_guard,
            "dedupe_calls": self.extra_calls,
            "grounded_calls": self.extra_calls,
            "grounding": GROUNDING if self.grounding else 0.0,
            "demos": DEMOS if self.demos else None,
            "votes": VOTES if self.vote else 1,
            "named_optionals": self.named_optionals,
            "coverage": self.coverage,
            "listed": self.listed,
            "decompose": self.decompose,
            "operands": self.chain,
            "dates": self.dates,
            "named_items": self.named_items,
            "founded": self.founded,
            "fractions": self.fractions,
            "cues": self.cues,
            "tool_parts": GATE.threshold if self.tool_parts and self.decompose else None,
        }

    def policy(self) -> CallPolicy:
        """How an agent asks the model for calls."""
        return CallPolicy(
            first_turn="auto" if self.gate else "required",
            after_results=ANSWER if self.finish_after_results else "auto",
            parallel=not self.one_call,
            gate=GATE if self.gate else None,
            select=(SELECT if self.tool_parts else dataclasses.replace(SELECT, floor=None)) if self.select else None,
            direct=self.direct_results,
            chain=self.chain,
        )

    def describe(self) -> str:
        return ", ".join(f"{f.name}={'on' if getattr(self, f.name) else 'off'}" for f in dataclasses.fields(self))
