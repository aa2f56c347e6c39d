"""A number parameter takes the request's numbers written beside a word of its name or description (`cues`)."""

from __future__ import annotations

from toollab import ToolSpec
from toollab.models.local_cues import cued_numbers, named_numbers, number_cues
from toollab.models.local_mentions import mentioned_required

LOAN = "Monthly payment for borrowing $1,250,000, 18,500 and 240,000 over thirty, twenty and five years at 5.0%?"
YEARS = {"type": "integer", "description": "Loan term in years."}
RATE = {"type": "number", "description": "Annual interest rate in percent."}
PRINCIPAL = {"type": "number", "description": "Amount borrowed, in dollars."}


def test_a_number_is_cued_by_the_word_after_it_or_its_list_and_the_word_before():
    cues = dict(number_cues("A town of 275,000 and 9,800 people over 12.5 square kilometers, and years ten."))
    assert cues == {275000: {"people"}, 9800: {"people"}, 12.5: {"square"}, 10: {"years"}}
    assert dict(number_cues("A 30-year loan of $200,000 at 4%")) == {30: {"year"}, 200000: {"dollars"}, 4: {"percent"}}
    said = number_cues("for fifteen, five and thirty years")
    assert [v for v, _ in said] == [15, 5, 30] and all(cue == {"years"} for _, cue in said)  # not 5 and 30 as 35
    assert [v for v, _ in number_cues("on 2027-03-14 at 8:30")] == [2027, 8, 30]  # no cue, nothing restricted


def test_a_parameter_takes_the_numbers_its_name_or_else_its_description_cues():
    assert cued_numbers("years", YEARS, LOAN) == [30, 20, 5]
    assert cued_numbers("annual_rate", RATE, LOAN) == [5.0]  # "%" is "percent", from the description
    assert cued_numbers("principal", PRINCIPAL, LOAN) == [1250000, 18500, 240000]  # "borrowing", "borrowed"
    # "$" reads as "dollars": a loan's amount written beside another word is still cued by the description
    both = "Interest on $18,500 borrowed for 30 years, and the payment on a $1,250,000 loan over ten years?"
    assert cued_numbers("principal", PRINCIPAL, both) == [18500, 1250000]
    rate = {"type": "number", "description": "Interest rate per year."}  # "per year" names a unit: no cue
    assert cued_numbers("rate", rate, LOAN) == []
    assert cued_numbers("years", {"type": "string", "description": "Term."}, LOAN) == []  # numbers only
    assert cued_numbers("years", YEARS, "a term of 2.5 years") == []  # an integer's cue on a fraction misleads
    base = {"type": "number", "description": "The base of the triangle in meters."}
    triangle = "A triangle with base 10 meters and height 5 meters."
    assert cued_numbers("base", base, triangle) == [10]  # the name's cue first: both are in meters
    # the grounding reads the name's cue alone, always on: it ends "10" of "$10,000 ... for 10 years" at 10
    assert named_numbers("years", LOAN) == {30, 20, 5} and named_numbers("principal", LOAN) == set()
    # not a rate's unit ("per year"), and not a percentage (a parameter may take it as a fraction: 0.05)
    assert named_numbers("compounds_per_year", "5% compounded yearly for 10 years") == set()
    assert named_numbers("annual_yield", "$50000 with a 5% annual yield after 3 years") == set()


def test_cues_make_the_numbers_a_parameters_choices_in_the_grammar_only_when_switched_on():
    spec = ToolSpec("loan", "Monthly payment.", {"type": "object", "properties": {
        "principal": PRINCIPAL, "annual_rate": RATE, "years": YEARS, "note": {"type": "string"},
    }, "required": ["principal", "annual_rate", "years"]})  # fmt: skip
    shown = mentioned_required(spec, LOAN, cues=True).parameters["properties"]
    assert shown["years"]["enum"] == [30, 20, 5] and shown["annual_rate"]["enum"] == [5.0]
    assert "enum" not in shown["note"]
    assert mentioned_required(spec, LOAN) is spec  # off by default
    assert mentioned_required(spec, "What about it?", cues=True) is spec  # no number: the tool as it is
