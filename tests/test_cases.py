"""Cases stated side by side in one sentence, read as one request each (`local_cases`, used by `decompose`)."""

from __future__ import annotations

import pytest

from toollab.models.local_cases import (
    bracketed_sentences,
    by_cases,
    case_sentences,
    choice_sentences,
    crossed_sentences,
    respective_sentences,
)
from toollab.models.local_parts import Part
from toollab.tools import ToolSpec


@pytest.mark.parametrize(
    ("sentence", "cases"),
    [
        (
            "What will $250,000 be worth after 30 years at 5% and after 20 years at 4%?",
            [
                "What will $250,000 be worth after 30 years at 5%?",
                "What will $250,000 be worth after 20 years at 4%?",
            ],
        ),
        # a capitalised name of several words is one value, whatever its length
        (
            "Who won Riverside Rovers vs Old Town Athletic and Harbor City FC vs Northfield United?",
            ["Who won Riverside Rovers vs Old Town Athletic?", "Who won Harbor City FC vs Northfield United?"],
        ),
        # lowercase values, and what comes after the cases goes with each
        (
            "When do the advanced german course and the beginner spanish course meet?",
            ["When do the advanced german course meet?", "When do the beginner spanish course meet?"],
        ),
        # the sentences before go with each; ", and" joins too
        (
            "I'm rated 1875. What's my new rating after a draw against a 1200, and after a win against a 1450?",
            [
                "I'm rated 1875. What's my new rating after a draw against a 1200?",
                "I'm rated 1875. What's my new rating after a win against a 1450?",
            ],
        ),
        # "another" stands for what the first case's words before it say
        (
            "What is the density of a town with 9,800 people over 88 square kilometers and another with 48,200 "
            "people over 12.5 square kilometers?",
            [
                "What is the density of a town with 9,800 people over 88 square kilometers?",
                "What is the density of a town with 48,200 people over 12.5 square kilometers?",
            ],
        ),
        # dates in any form are one value each; a name ends where a date starts
        (
            "Book the bike service at Spoke & Chain on March 14th, 2027 and at Hill Climb Cycles on the 30th of "
            "November 2027.",
            [
                "Book the bike service at Spoke & Chain on March 14th, 2027.",
                "Book the bike service at Hill Climb Cycles on the 30th of November 2027.",
            ],
        ),
        # a case may hold "and" itself
        (
            "What is the GCD of 12 and 18 and the LCM of 4 and 6?",
            ["What is the GCD of 12 and 18?", "What is the LCM of 4 and 6?"],
        ),
        # a case may open with a number where two values vary
        (
            "What's the total if I donate $50 with a 100% match, $75 with a 50% match, and $100 with a 25% match?",
            [
                "What's the total if I donate $50 with a 100% match?",
                "What's the total if I donate $75 with a 50% match?",
                "What's the total if I donate $100 with a 25% match?",
            ],
        ),
        # more cases joined by commas
        (
            "What will $250,000 be worth after 30 years at 5%, after 20 years at 4% and after 10 years at 3%?",
            [
                "What will $250,000 be worth after 30 years at 5%?",
                "What will $250,000 be worth after 20 years at 4%?",
                "What will $250,000 be worth after 10 years at 3%?",
            ],
        ),
    ],
)
def test_cases_side_by_side_are_one_sentence_each(sentence: str, cases: list[str]) -> None:
    assert case_sentences(sentence) == cases


@pytest.mark.parametrize(
    "sentence",
    [
        "What is the area of a triangle with base 10 and height 5?",  # labelled values of one call
        "Rectangle of length 5 m and width 3 m.",
        "Calculate a loan with a principal of $10,000 and an interest rate of 5%.",
        "Probability with a mean of 5 and a standard deviation of 2?",
        "Integrate x^2 between 2 and 5 using the trapezoid method.",
        "What spacing do beans and lettuce need?",  # one item on each side: a list, not cases
        "What's the weather in Paris and Rome?",
        "Find a flight from Boston on March 14th, 2027 and return on March 20th, 2027.",
        "Find the distance between 5 km north and 3 km east.",  # two ends of one distance
        # only glue words the same and lowercase words apart: two things asked, not one thing's cases
        "What's the tire pressure and the oil change interval for a Golf 2021?",
    ],
)
def test_one_ask_is_left_whole(sentence: str) -> None:
    assert case_sentences(sentence) == [sentence]


def test_a_things_measures_are_no_cases() -> None:
    room = "How much paint for a room 5 m long, 4 m wide and 2.5 m high with 2 coats?"
    assert case_sentences(room) == [room]


def test_words_of_a_parameter_name_label_values_and_are_no_cases() -> None:
    match = ToolSpec(
        "final_score",
        "The score of a match.",
        {"type": "object", "properties": {"home_team": {"type": "string"}, "away_team": {"type": "string"}}},
    )
    sentence = "Who won the match with the home team Lakers and the away team Celtics?"
    assert case_sentences(sentence, [match]) == [sentence]
    assert len(case_sentences(sentence)) == 2  # without the tool, "home" and "away" read as values


def test_lowercase_cases_that_share_only_glue_words_are_cases_where_they_name_a_tools_choices() -> None:
    course = ToolSpec(
        "class_timetable",
        "When a language course meets.",
        {"type": "object", "properties": {"language": {"type": "string"}, "level": {"enum": ["beginner", "advanced"]}}},
    )
    sentence = "When do the beginner spanish and the advanced german classes meet?"
    assert case_sentences(sentence) == [sentence]
    assert case_sentences(sentence, [course]) == [
        "When do the beginner spanish classes meet?",
        "When do the advanced german classes meet?",
    ]


def test_a_list_of_names_that_pairs_with_one_name_is_one_case_per_item() -> None:
    from toollab.models.local_cases import paired_sentences

    assert case_sentences("What was the score of Harbor City FC and Riverside Rovers against Northfield United?") == [
        "What was the score of Harbor City FC against Northfield United?",
        "What was the score of Riverside Rovers against Northfield United?",
    ]
    assert paired_sentences("Plan a trip from Boston to Paris and Rome.") == [
        "Plan a trip from Boston to Paris.",
        "Plan a trip from Boston to Rome.",
    ]
    for whole in (
        "Who won Riverside Rovers vs Old Town Athletic and Harbor City FC vs Northfield United?",  # pairs listed
        "Show me the Harborfront to Old Town and Saltcove to Gull Point ferry times.",
        "What is the weather in Paris and Rome?",  # nothing to pair with
    ):
        assert paired_sentences(whole) == [whole]


def test_by_cases_keeps_a_part_tool_and_gives_up_past_the_most_parts() -> None:
    asked = "What will $250,000 be worth after 30 years at 5% and after 20 years at 4%?"
    parts = by_cases([Part(asked, False, tool_of="the ask")], [])
    assert [p.request for p in parts] == case_sentences(asked) and {p.tool_of for p in parts} == {"the ask"}
    many = "Worth after 1 year at 5%, after 2 years at 4%, after 3 years at 3% and after 4 years at 2%?"
    assert len(case_sentences(many)) == 4
    assert len(by_cases([Part(many, False), Part("What is the weather in Oslo?", False)], [])) == 2


_COURSE = ToolSpec(
    "class_timetable",
    "When a course meets.",
    {
        "type": "object",
        "properties": {
            "language": {"type": "string"},
            "level": {"type": "string", "enum": ["beginner", "intermediate", "advanced"]},
        },
    },
)


@pytest.mark.parametrize(
    ("sentence", "cases"),
    [
        # numbers in digits and in words, a currency sign on the first item only, the list's "respectively" gone
        (
            "Monthly payment for $1,250,000, 18,500 and 240,000 over thirty, twenty and five years at 5.0%, "
            "respectively?",
            [
                "Monthly payment for $1,250,000 over thirty years at 5.0%?",
                "Monthly payment for 18,500 over twenty years at 5.0%?",
                "Monthly payment for 240,000 over five years at 5.0%?",
            ],
        ),
        # names of several words, the sentence's first words not taken for one ("Progress of ...")
        (
            "Progress of Library Renewal, Winter Coats and Meals on Wheels toward $25,000, 150,000 and 48,500, "
            "respectively.",
            [
                "Progress of Library Renewal toward $25,000.",
                "Progress of Winter Coats toward 150,000.",
                "Progress of Meals on Wheels toward 48,500.",
            ],
        ),
        # a unit every item has goes with it; "respective" too
        (
            "Find the area of rectangles 5 cm and 10 cm long and 3 cm and 4 cm wide respectively.",
            [
                "Find the area of rectangles 5 cm long and 3 cm wide.",
                "Find the area of rectangles 10 cm long and 4 cm wide.",
            ],
        ),
        # the word before a list's first item may come again before the others
        (
            "The respective populations of Paris and Rome in 2010 and in 2020?",
            ["The populations of Paris in 2010?", "The populations of Rome in 2020?"],
        ),
        # a tool's choices are items too
        (
            "When do the advanced and beginner courses meet in Lisbon and Porto, respectively?",
            ["When do the advanced courses meet in Lisbon?", "When do the beginner courses meet in Porto?"],
        ),
    ],
)
def test_respectively_pairs_the_lists_items_in_order(sentence: str, cases: list[str]) -> None:
    assert respective_sentences(sentence, [_COURSE]) == cases
    assert case_sentences(sentence, [_COURSE]) == cases


@pytest.mark.parametrize(
    "sentence",
    [
        "Calculate the speed for distances of 10 and 20 km, respectively.",  # one list: nothing to pair
        "Monthly payment for $1,250,000 and 18,500 over 30, 20 and 5 years at 5% and 4%, respectively?",  # 2, 3, 2: ...
        "Monthly payment for $1,250,000 and 18,500 over 30 and 20 years?",  # no "respectively": every pairing
        "When do the german and spanish courses meet in Lisbon and Porto, respectively?",  # free words: no list
    ],
)
def test_respectively_without_one_pairing_of_lists_is_left_whole(sentence: str) -> None:
    assert respective_sentences(sentence, [_COURSE]) == [sentence]


def test_a_list_of_one_parameters_choices_is_one_sentence_a_choice() -> None:
    asked = "When does the beginner and intermediate italian course meet?"
    split = ["When does the beginner italian course meet?", "When does the intermediate italian course meet?"]
    assert choice_sentences(asked, [_COURSE]) == split and case_sentences(asked, [_COURSE]) == split
    assert choice_sentences(asked) == [asked]  # without the tool, two lowercase words inside a clause: no list
    # another list beside it (which pairs are meant is `listed`'s to read), "respectively", no list: left whole
    for whole in (
        "Schedule for italian in Lisbon and Porto, beginner and advanced level?",
        "When does the advanced and beginner german and spanish course meet, respectively?",
        "When does the advanced german course meet?",
    ):
        assert choice_sentences(whole, [_COURSE]) == [whole]


@pytest.mark.parametrize(
    ("sentence", "cases"),
    [
        # amounts and terms: every amount with every term, each sentence keeping the terms (its calls' to list);
        # SmolLM2 wrote the four calls in one turn, the last cut off at the token budget
        (
            "What's the monthly payment on $100,000 and $200,000 loans at 4% over 15 and 30 years?",
            [
                "What's the monthly payment on $100,000 loans at 4% over 15 and 30 years?",
                "What's the monthly payment on $200,000 loans at 4% over 15 and 30 years?",
            ],
        ),
        # names and numbers; a tool's choices and names
        (
            "What was the population of Lisbon and Oslo in 1990 and 2010?",
            [
                "What was the population of Lisbon in 1990 and 2010?",
                "What was the population of Oslo in 1990 and 2010?",
            ],
        ),
        (
            "When do the beginner and advanced courses meet in Lisbon and Porto?",
            [
                "When do the beginner courses meet in Lisbon and Porto?",
                "When do the advanced courses meet in Lisbon and Porto?",
            ],
        ),
    ],
)
def test_two_lists_of_different_sorts_cross(sentence: str, cases: list[str]) -> None:
    assert crossed_sentences(sentence, [_COURSE]) == cases
    assert case_sentences(sentence, [_COURSE]) == cases


@pytest.mark.parametrize(
    "sentence",
    [
        "What is the GCD of 12 and 18 and of 30 and 45?",  # bare numbers: what they count is not known
        "Who played Lakers and Bulls against Celtics and Knicks?",  # lists of one sort may pair otherwise
        "Monthly payment for $1,250,000 and 18,500 over 30 and 20 years, respectively?",  # pairs, said so
        "The population of Lisbon, Portugal and Oslo, Norway in 1990 and 2010?",  # places and their regions
        "Ferry times from Harborfront to Old Town and Saltcove to Gull Point on 2 May and 9 May?",  # routes
        "Progress of Meals on Wheels and Winter Coats? Then, if I give $40 and $50, what is the total?",  # two asks
        "Events about 'War' and 'Economy' in France between the years 1800 and 1900?",  # a range is no list
    ],
)
def test_lists_that_may_not_cross_are_left_whole(sentence: str) -> None:
    assert crossed_sentences(sentence, [_COURSE]) == [sentence]


def _arrays_tool(name: str, *arrays: str) -> ToolSpec:
    properties = {a: {"type": "array", "items": {"type": "number"}, "description": a} for a in arrays}
    return ToolSpec(name=name, description=name, parameters={"type": "object", "properties": properties})


def test_a_list_in_brackets_is_one_value_and_lists_of_them_are_one_case_each_for_a_tool_of_one_array() -> None:
    # read number by number, "[7, 3, 9] and of [2, 8, 6, 1]" made the cases "[7, 3, 9, 1]" and "[2, 8, 6, 1]"
    median = [_arrays_tool("median_of", "values")]
    assert case_sentences("Find the median of [7, 3, 9] and of [2, 8, 6, 1].", median) == [
        "Find the median of [7, 3, 9].",
        "Find the median of [2, 8, 6, 1].",
    ]
    determinant = [_arrays_tool("matrix_determinant", "matrix")]
    assert bracketed_sentences("Find the determinants of [[1, 2], [3, 4]] and [[0, 1], [1, 0]].", determinant) == [
        "Find the determinants of [[1, 2], [3, 4]].",
        "Find the determinants of [[0, 1], [1, 0]].",
    ]
    # a tool that takes two arrays may take both lists in one call
    two = [_arrays_tool("two_sample_test", "group_a", "group_b")]
    compare = "Compare the groups [5.1, 4.9, 5.6] and [6.2, 6.0, 6.6]."
    assert case_sentences(compare, two) == [compare]
    one = "Compute the median of [4, 9, 7, 9, 3]."
    assert case_sentences(one, median) == [one]
