"""An ask done again for other values ("... Can you do the same but for 10 years instead?") read as the ask and the
ask with the new values in place (`local_repeats`, used by `decompose` through `request_parts`)."""

from __future__ import annotations

import pytest

from toollab.models.local_parts import request_parts
from toollab.models.local_repeats import again_clause, done_again


@pytest.mark.parametrize(
    ("request_", "again"),
    [
        # a number by its unit: SmolLM2 made up the second call's principal (10500) from the clause alone
        (
            "What is the monthly payment on a $18,500 loan at 4.2% over 5 years? And can you do the same but for 10 "
            "years instead?",
            "What is the monthly payment on a $18,500 loan at 4.2% over 10 years?",
        ),
        # a list is one ask for each item in its value's place; a number said in words is read as digits where
        # it must be
        (
            "What is the monthly payment on a $36,000 loan at 5.0% over twenty years? Can you do the same but for "
            "3.5% and 6.75% instead?",
            [
                "What is the monthly payment on a $36,000 loan at 3.5% over twenty years?",
                "What is the monthly payment on a $36,000 loan at 6.75% over twenty years?",
            ],
        ),
        # an item without the unit keeps the ask's: SmolLM2 put the 20 in the amount of a listing ask
        (
            "What will $1,000 be worth in 5 years at 3%? Do it for 10 and 20 years too.",
            ["What will $1,000 be worth in 10 years at 3%?", "What will $1,000 be worth in 20 years at 3%?"],
        ),
        # a number by the words before it
        (
            "What is the probability with a standard deviation of 10, sample size of 50 and sample mean of 25? And "
            "can you do the same but for a sample size of 150 instead?",
            "What is the probability with a standard deviation of 10, sample size of 150 and sample mean of 25?",
        ),
        (
            "When is the last frost usually in Porto, and then do the same for Kraków?",
            "When is the last frost usually in Kraków?",
        ),
        (
            "How much climbing is on Eagle Ridge in meters? Then do the same for Summit Path and Blue Lake Trail.",
            ["How much climbing is on Summit Path in meters?", "How much climbing is on Blue Lake Trail in meters?"],
        ),
        # a name whose words read as a number ("Two Wheels Depot") stays a name; a date's month is no name
        (
            "Can Spoke & Chain service my bicycle on the 30th of November 2027? After that, I need the same with "
            "Hill Climb Cycles and Two Wheels Depot.",
            [
                "Can Hill Climb Cycles service my bicycle on the 30th of November 2027?",
                "Can Two Wheels Depot service my bicycle on the 30th of November 2027?",
            ],
        ),
        (
            "Find restaurants in Los Angeles, CA that are open until at least 22:00, and then do the same for San "
            "Francisco, CA and Seattle, WA?",
            [
                "Find restaurants in San Francisco, CA that are open until at least 22:00?",
                "Find restaurants in Seattle, WA that are open until at least 22:00?",
            ],
        ),
        # the apostrophes of "I'm" and "What's" quote nothing; "rating" is the cue "rated" gives
        (
            "I'm rated 1875 and got a loss against a 1450. What's my new rating, and then do the same for my rating "
            "of 1200?",
            "I'm rated 1200 and got a loss against a 1450. What's my new rating?",
        ),
        # a quoted span by the words before it
        (
            "Calculate the area under 'x^3' between 2 and 5 using the 'trapezoid' method, and then do the same "
            "calculation but using the 'simpson' method?",
            "Calculate the area under 'x^3' between 2 and 5 using the 'simpson' method?",
        ),
        # "what about" / "how about" asks the same about other values
        (
            "What will $250,000 be worth after thirty years at a 5% annual yield, and what about after ten years?",
            "What will $250,000 be worth after 10 years at a 5% annual yield?",
        ),
        ("When is the last frost usually in Cusco? How about Tallinn?", "When is the last frost usually in Tallinn?"),
        # "it" done again after another verb, what it would be with other values, and a bare "And for ...?"
        (
            "What's the future value of $5,000 invested at 6% for 10 years? Also calculate it for 20 years.",
            "What's the future value of $5,000 invested at 6% for 20 years?",
        ),
        (
            "What's the monthly payment on a $200,000 loan at 5% for 30 years? What would it be at 4%?",
            "What's the monthly payment on a $200,000 loan at 4% for 30 years?",
        ),
        (
            "What's the monthly payment on a $200,000 loan at 5% for 30 years? What if the rate were 4%?",
            "What's the monthly payment on a $200,000 loan at 4% for 30 years?",
        ),
        ("What is the population of Oslo in 2010? And in 2020?", "What is the population of Oslo in 2020?"),
        ("Find coworking spaces in Madrid. Same for Valencia.", "Find coworking spaces in Valencia."),
        ("Which anthem does Japan have? And Spain?", "Which anthem does Spain have?"),
        # the number with the same unit, though the words before "4.2%" hold "years" too
        (
            "Monthly payment for borrowing $1,250,000 over ten years at 4.2%? Then do the same for fifteen years.",
            "Monthly payment for borrowing $1,250,000 over 15 years at 4.2%?",
        ),
    ],
)
def test_an_ask_done_again_is_the_ask_with_the_new_values_in_place(request_: str, again: str | list[str]) -> None:
    asks = [again] if isinstance(again, str) else again
    around = again_clause(request_)
    assert around is not None
    before, clause, _ = around
    assert done_again(before, clause) == asks
    parts = request_parts(request_)
    assert [p.request for p in parts] == [before, *asks] and all(p.tool_of == before for p in parts[1:])


def test_the_ask_done_again_is_the_last_part_before_it_and_parts_after_it_stay() -> None:
    joined = (
        "Monthly payment for borrowing $240,000 over fifteen years at 4.2%, without insurance? Additionally, how much "
        "interest do I pay in total on $1,250,000 borrowed for 30 years at 4.2%? And the same for 6.75%, please. "
        "Also, where is Harbor City FC in the table?"
    )
    assert [p.request for p in request_parts(joined)] == [
        "Monthly payment for borrowing $240,000 over fifteen years at 4.2%, without insurance?",
        "How much interest do I pay in total on $1,250,000 borrowed for 30 years at 4.2%?",
        "How much interest do I pay in total on $1,250,000 borrowed for 30 years at 6.75%?",
        "Where is Harbor City FC in the table?",
    ]


@pytest.mark.parametrize(
    "request_",
    [
        "What spacing do carrots need, and then do the same for zucchini and beans?",  # lowercase words: not read
        "Is 10 more than 5? Then do the same for 7.",  # two numbers, nothing tells which one 7 replaces
        "What is the weather in Oslo? Then do the same again.",  # no value given
        "What is the weather in Paris? What about the time there?",  # nothing of the ask's kind to put in place
    ],
)
def test_a_clause_whose_values_find_no_one_place_is_left_as_it_was(request_: str) -> None:
    around = again_clause(request_)
    assert around is None or done_again(*around[:2]) is None
    assert not any(p.tool_of for p in request_parts(request_))


@pytest.mark.parametrize(
    "request_",
    [
        "The second charge is 3 coulombs and is placed 4 meters from the same point.",
        "Drop a ball from 10 meters, and then from 20 meters with the same initial velocity.",
        "Tell me the population of Oslo. Is it the same as in Bergen?",
        "What is the population of Oslo in 2010? And for Paris, find coworking spaces.",  # another ask follows
        "Find the weather in Oslo. And Book a hotel in Rome.",  # a verb, not a value
    ],
)
def test_the_same_thing_named_is_no_ask_to_do_it_again(request_: str) -> None:
    assert again_clause(request_) is None


def test_a_choice_of_the_tools_goes_where_the_ask_names_a_choice_of_its_parameter() -> None:
    from toollab.tools import ToolSpec

    climb = ToolSpec(
        "trail_climb",
        "Total climb of a trail.",
        {
            "type": "object",
            "properties": {"trail": {"type": "string"}, "unit": {"type": "string", "enum": ["meters", "feet"]}},
            "required": ["trail"],
        },
    )
    asked = "What's the elevation gain of Summit Path in feet? And the same for meters, please."
    assert [p.request for p in request_parts(asked, [climb])] == [
        "What's the elevation gain of Summit Path in feet?",
        "What's the elevation gain of Summit Path in meters?",
    ]
    assert len(request_parts(asked)) == 1  # without the tools, "meters" is a lowercase word like any other
