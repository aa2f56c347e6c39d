"""Steering a small model's decoding (loops, extra calls, grounding), the call gate and tool selection."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Sequence

import pytest

from toollab import AssistantMessage, CallPolicy, RequestParams, ToolCall, ToolSpec, UserMessage
from toollab.eval.synth.everyday import EVERYDAY_TOOLS
from toollab.formats import get_format
from toollab.harness.messages import SystemMessage, ToolResultMessage
from toollab.harness.request import Gate
from toollab.models.local_gate import decide
from toollab.models.local_steering import adds_to, extra_call_cut, loop_token

HERMES = get_format("hermes")
SPECS = [t.spec for t in EVERYDAY_TOOLS]


def written(*calls: ToolCall) -> str:
    return HERMES.render_calls(list(calls))


def test_a_loop_is_a_block_repeated_back_to_back():
    assert loop_token([5, 1, 2, 1, 2, 1, 2, 1, 2]) == 1  # (1, 2) four times: 1 would start it again
    assert loop_token([7] * 8) == 7 and loop_token([7] * 7) is None  # one token: eight in a row
    assert loop_token([1, 2, 3, 1, 2, 3, 1, 2, 3]) == 1
    assert loop_token([1, 2, 3, 4, 5, 6, 7, 8, 9]) is None and loop_token([]) is None


def test_a_number_past_twenty_digits_is_a_runaway():
    from toollab.models.local_steering import runaway_number

    assert runaway_number('{"time": 500000001000000015000') and runaway_number("50.0000000100000001500")
    assert not runaway_number('"2027-10-18", "rate": 3.14159265358979') and not runaway_number("1234567890 12345")


def test_a_turn_is_cut_before_a_call_that_repeats_or_adds_nothing_asked():
    request = "What is the weather in Lima and in Quito?"
    lima = ToolCall(name="weather_now", arguments={"city": "Lima"})
    quito = ToolCall(name="weather_now", arguments={"city": "Quito"})
    paris = ToolCall(name="weather_now", arguments={"city": "Paris"})
    two = written(lima, quito)
    assert extra_call_cut(two, HERMES, dedupe=True, request=request) is None  # a second city that was asked for
    assert extra_call_cut(written(lima, lima), HERMES, dedupe=True, request=None) == written(lima)
    assert extra_call_cut(written(lima, paris), HERMES, dedupe=False, request=request) == written(lima)
    assert extra_call_cut(written(lima, lima), HERMES, dedupe=False, request=request) == written(lima)
    assert extra_call_cut(two[:-3], HERMES, dedupe=True, request=request) is None  # not at a call's end
    assert extra_call_cut(written(lima), HERMES, dedupe=True, request=request) is None  # the first call stays
    assert extra_call_cut("[f(a=1), f(a=1)]", get_format("pythonic"), dedupe=True, request=None) is None
    assert adds_to(ToolCall(name="arith", arguments={"expression": "9 * 4"}), [], "9 words\nmultiply by 4") is False
    assert adds_to(ToolCall(name="w", arguments={"n": 9.0}), [], "it has 9 words") is True  # 9.0 written 9
    climb = ToolCall(name="trail_climb", arguments={"trail": "Summit Path"})
    grade = ToolCall(name="trail_grade", arguments={"trail": "Summit Path"})
    assert adds_to(grade, [climb], "How hard is Summit Path, and how much does it climb?")  # another question
    assert not adds_to(climb, [climb, grade], "How hard is Summit Path, and how much does it climb?")
    # a number is new unless the tool's calls hold it as written, or written otherwise where the request does not
    loan = "Interest on $675,000 for 5 and 20 years at 5.0%?"
    first = ToolCall(name="interest", arguments={"principal": 675000, "rate": 5.0, "years": 20})
    five = {"principal": 675000, "rate": 5.0, "years": 5}
    assert adds_to(first.model_copy(update={"arguments": five}), [first], loan)
    swapped = {"principal": 20, "rate": 5.0, "years": 675000}  # the same numbers moved about: padding
    assert not adds_to(first.model_copy(update={"arguments": swapped}), [first], loan)
    assert not adds_to(first, [first], loan)
    words = "Monthly payment on $18,500 over thirty and fifteen years?"  # a number said in words is said
    thirty = ToolCall(name="payment", arguments={"principal": 18500, "years": 30})
    fifteen = thirty.model_copy(update={"arguments": {"principal": 18500, "years": 15}})
    assert adds_to(fifteen, [thirty], words) and not adds_to(thirty, [fifteen], words.replace("thirty", "twenty"))


def test_a_call_is_judged_as_soon_as_its_json_closes():
    # four calls can fill the budget: the last, a repeat, was cut inside `</tool_call>` and counted as truncated
    from toollab.models.local_steering import closed_call

    lima = ToolCall(name="weather_now", arguments={"city": "Lima"})
    full = written(lima, lima)
    for cut in (full, full[: -len("\n</tool_call>")], full[: -len("_call>")]):
        assert extra_call_cut(closed_call(cut, HERMES) or "", HERMES, dedupe=True, request=None) == written(lima)
    inside = full[: -len("}\n</tool_call>")]  # the arguments' object closed, the call's not yet: not judged
    assert extra_call_cut(closed_call(inside, HERMES) or "", HERMES, dedupe=True, request=None) is None
    assert closed_call('{"name": "f", "arguments": {"a": 1', HERMES) is None


def test_a_list_that_takes_an_item_again_or_one_from_nowhere_ends():
    from toollab.models.local_steering import runaway_item

    source = (
        "Find Friends on Netflix, and The Office and Stranger Things on Hulu; eggs, milk and tofu for dinner".lower()
    )
    assert runaway_item('{"show_list": ["Friends", "Stranger Things", "Stranger Things"', source)
    assert runaway_item('{"show_list": ["Friends", "Stranger Things", "Friends', source)  # `",` is one token
    assert not runaway_item('{"show_list": ["Friends", "Stranger Things", "The Office"', source)
    assert runaway_item('{"ingredients": ["eggs", "milk", "household"', source)  # past the second item, from nowhere
    assert not runaway_item('{"ingredients": ["eggs", "household"', source)  # the first two are the model's own
    assert not runaway_item('{"ingredients": ["eggs", "milk", "dinner.com"', source)  # a word of the source
    assert not runaway_item('{"grades": [7, 8, 7', source)  # numbers: data may repeat
    assert not runaway_item('{"a": ["eggs", "milk", "eggs"], "b": "eggs"', source)  # that list is closed


def test_tool_selection_keeps_the_finish_action_and_the_order():
    def first_two(request, tools):
        return tools[:2]

    params = CallPolicy(select=first_two).params([*SPECS[:4], ToolSpec("finish", "", {})], False, "finish", "hi")
    assert [t.name for t in params.tools] == [SPECS[0].name, SPECS[1].name, "finish"]
    assert CallPolicy(select=first_two).params([], False).tools == []


class NoModel:
    """A stand-in for the local model: the relevance signals never ask it anything."""

    format = HERMES


@pytest.mark.slow
@pytest.mark.parametrize("signal", ["dense", "bm25"])
def test_the_gate_calls_for_a_fitting_request_and_answers_otherwise(signal):
    threshold = {"dense": 0.3, "bm25": 1.0}[signal]
    params = RequestParams(SPECS, "auto", gate=Gate(signal, threshold))
    asked = [UserMessage(content="What's the weather like in Lima?")]
    decided, seen = asyncio.run(decide(NoModel(), asked, params, ""))  # type: ignore[arg-type]
    assert decided.tool_choice == "required" and seen["call"] and seen["score"] >= threshold
    decided, seen = asyncio.run(decide(NoModel(), [UserMessage(content="Say hello to Ana.")], params, ""))  # type: ignore[arg-type]
    assert decided.tool_choice == "none" and not seen["call"]
    required = RequestParams(SPECS, "required", gate=Gate(signal, threshold))
    assert asyncio.run(decide(NoModel(), asked, required, "")) == (required, None)  # type: ignore[arg-type]


def test_the_gate_reads_a_request_without_the_data_it_quotes():
    from toollab.retrieval.relevance import relevance, without_quoted

    long = "How many words does 'she sold the old blue bicycle to a neighbour last spring' have?"
    assert without_quoted(long) == "How many words does '…' have?"
    assert without_quoted("What's the time in Bob's town?") == "What's the time in Bob's town?"  # apostrophes
    assert without_quoted("\"Find the book 'Dune' for me.\"") == "Find the book '…' for me."  # quoted whole
    assert without_quoted("Say 'hello there'") == "Say 'hello there'"  # nothing would be left to ask
    assert relevance(without_quoted(long), SPECS, "dense") > relevance(long, SPECS, "dense")


def test_the_unnamed_gate_reads_a_request_without_the_names_it_gives():
    from toollab.harness.messages import without_names
    from toollab.models.local_gate import request_relevance

    campaign = "How close is the Library Renewal and Meals on Wheels campaign to its $2,000,000 goal?"
    assert without_names(campaign) == "How close is the campaign to its $2,000,000 goal?"
    # a sentence's first word, a word in capitals, a month and a day stay: they say what is asked
    kept = "Compute the BMI of Ana Lopez on Monday, March 14th. Then ask Bob."
    assert without_names(kept) == "Compute the BMI of on Monday, March 14th. Then ask ."
    assert without_names("Who is Ana Lopez?") == "Who is Ana Lopez?"  # nothing would be left to ask
    weather = "What's the weather like in Lima for Juniper Okafor and Marlow Reyes?"
    unnamed = request_relevance(weather, SPECS, "dense-unnamed")
    named = request_relevance(weather, SPECS, "dense")
    assert unnamed == request_relevance(without_names(weather), SPECS, "dense") > named


def test_the_gate_scores_a_request_that_asks_several_things_by_its_best_fitting_part():
    from toollab.models.local_gate import request_relevance
    from toollab.retrieval.relevance import relevance

    weather = "What's the weather like in Lima?"
    joined = f"Two things, please. First: {weather} Second: Will my cat enjoy a new scratching post?"
    assert relevance(joined, SPECS, "dense") < relevance(weather, SPECS, "dense")  # the other question dilutes it
    assert request_relevance(joined, SPECS, "dense") >= relevance(weather, SPECS, "dense") - 0.02
    assert request_relevance(weather, SPECS, "dense") == relevance(weather, SPECS, "dense")  # one part: the same
    # ... and by its best sentence: an aside dilutes the ask as another question does
    aside = f"{weather} I am asking for my friend Juniper."
    assert (
        relevance(aside, SPECS, "dense")
        < request_relevance(aside, SPECS, "dense")
        == relevance(weather, SPECS, "dense")
    )


def test_the_gate_scores_a_request_that_lists_things_by_its_first_item_too():
    from toollab.models.local_cases import first_items
    from toollab.models.local_gate import request_relevance
    from toollab.retrieval.relevance import relevance

    # a list of names fits its tool less than one of them (the dev set's "Can Two Wheels Depot and Hill Climb
    # Cycles service my bicycle ...?" fell below the threshold, each shop alone did not)
    listed = "What's the weather like in Puerto Maldonado, San Juan de Lurigancho, Villa El Salvador and Ayacucho?"
    first = "What's the weather like in Puerto Maldonado?"
    assert first_items(listed) == first
    assert relevance(listed, SPECS, "dense") < relevance(first, SPECS, "dense")
    assert request_relevance(listed, SPECS, "dense") == pytest.approx(relevance(first, SPECS, "dense"))
    assert first_items("What's the weather like in Lima?") == "What's the weather like in Lima?"  # no list


def test_the_gate_scores_a_list_in_words_of_the_array_parameter_that_takes_it():
    from toollab.models.local_gate import lists_named, lists_shortened, request_relevance
    from toollab.models.switches import GATE
    from toollab.retrieval.relevance import relevance

    array = {"type": "array", "items": {"type": "string"}}
    basket = ToolSpec(
        "basket_cost",
        "Price a basket of groceries at one store.",
        {"type": "object", "properties": {"store": {"type": "string"}, "products": array}},
    )
    clashes = ToolSpec(
        "set_time_clashes",
        "Find where the sets of chosen bands overlap at a festival.",
        {"type": "object", "properties": {"festival": {"type": "string"}, "bandNames": array}},
    )
    priced = "Price tofu, spinach and garlic at Sakura Bar."
    assert lists_named(priced, [basket, *SPECS[:1]]) == [("Price products at Sakura Bar.", basket)]
    assert lists_shortened(priced) == "Price tofu at Sakura Bar."  # "garlic at" is no item of two words
    sets = "Check set times for Neon Fields and The Lanterns in Porto."
    assert lists_named(sets, [clashes]) == [("Check set times for band names in Porto.", clashes)]
    bracketed = "Check set times for ['Ember', 'Northbound'] and ['Halo']."
    assert lists_named(bracketed, [clashes]) == [("Check set times for band names and band names.", clashes)]
    assert lists_named("Check set times for Neon Fields in Porto.", [clashes]) == []  # no list
    # MiniLM does not know the items for what the tool takes; the parameter's name it does
    assert relevance(sets, [clashes], "dense") < GATE.threshold < request_relevance(sets, [clashes], "dense")


@pytest.mark.slow
def test_top_tools_keeps_the_ones_that_fit():
    from toollab.retrieval import TopTools

    chosen = TopTools(2)("How many words are in 'the quick brown fox'?", SPECS)
    assert "word_tally" in [t.name for t in chosen] and len(chosen) == 2
    assert [t.name for t in TopTools(1)("Convert 49 km to miles.", SPECS)] == ["length_convert"]
    with pytest.raises(ValueError, match="unknown gate signal"):
        Gate("vibes", 0.5)


def test_switches_parse_and_set_the_policy_and_decoding():
    from toollab.harness.request import ANSWER
    from toollab.models.switches import GATE, SELECT, Switches

    default = Switches()
    assert default.policy().gate == GATE and default.policy().select == SELECT
    assert default.policy().after_results == ANSWER and default.local_options()["grounding"] > 0
    assert default.policy().direct and default.policy().parallel
    assert default.local_options()["named_optionals"] and not default.local_options()["coverage"]
    assert default.local_options()["listed"] and not Switches.parse("listed=off").local_options()["listed"]
    assert default.local_options()["decompose"] and not Switches.parse("decompose=off").local_options()["decompose"]
    assert default.policy().chain and default.local_options()["operands"] and not Switches.parse("chain=off").chain
    off = Switches.none()
    assert off.policy() == CallPolicy(first_turn="required", after_results="auto", parallel=True)
    assert off.local_options() == {
        "loop_guard": False, "dedupe_calls": False, "grounded_calls": False, "grounding": 0.0, "demos": None,
        "votes": 1, "named_optionals": False, "coverage": False, "listed": False, "decompose": False,
        "operands": False, "dates": False, "named_items": False, "founded": False, "fractions": False,
        "cues": False, "tool_parts": None,
    }  # fmt: skip
    assert default.local_options()["tool_parts"] == GATE.threshold
    assert Switches.parse("tool_parts=off").policy().select == dataclasses.replace(SELECT, floor=None)
    assert (
        default.local_options()["named_items"] and not Switches.parse("named_items=off").local_options()["named_items"]
    )
    assert default.local_options()["dates"] and not Switches.parse("dates=off").local_options()["dates"]
    assert default.local_options()["fractions"] and not Switches.parse("fractions=off").local_options()["fractions"]
    assert not default.local_options()["cues"] and Switches.parse("cues=on").local_options()["cues"]
    assert Switches.parse("vote=on").local_options()["votes"] > 1
    assert Switches.parse("demos=on").local_options()["demos"] is not None
    assert Switches.parse("gate=off, one_call=on").policy().first_turn == "required"
    assert Switches.parse("one_call=on").policy().parallel is False
    assert Switches.parse("") == default and "gate=on" in default.describe()
    with pytest.raises(ValueError, match="unknown switch 'gates'"):
        Switches.parse("gates=off")
    with pytest.raises(ValueError, match="takes on or off"):
        Switches.parse("gate=maybe")


def test_answer_means_finish_when_there_is_one_and_prose_otherwise():
    from toollab.harness.request import ANSWER

    policy = CallPolicy(after_results=ANSWER)
    tools = [SPECS[0], ToolSpec("finish", "", {})]
    assert policy.params(tools, after_results=True, finish="finish").tool_choice == "finish"
    assert policy.params(tools[:1], after_results=True, finish=None).tool_choice == "none"
    assert policy.params(tools, after_results=False, finish="finish").tool_choice == "auto"


def test_the_gate_curve_from_one_forced_run():
    from toollab.eval.gate_curve import curve, operating_point
    from toollab.eval.records import ItemRecord, Operations

    def record(i, category, valid):
        ops = Operations(latency_seconds=1.0, model_calls=1)
        return ItemRecord(id=str(i), category=category, model="m", format="hermes", valid=valid, ops=ops)

    records = [
        record(0, "synth_simple", True),  # needs a call, calling gets it right
        record(1, "synth_simple", False),  # needs a call, calling still gets it wrong
        record(2, "synth_irrelevance", False),
        record(3, "synth_irrelevance", False),
    ]
    scores = {"0": {"dense": 0.9}, "1": {"dense": 0.5}, "2": {"dense": 0.2}, "3": {"dense": 0.6}}
    points = curve(records, scores, "dense")
    assert (points[0].calls_right, points[0].irrelevance) == (0.5, 0.0)  # call on everything
    assert (points[-1].calls_right, points[-1].irrelevance) == (0.0, 1.0)  # call on nothing
    best = operating_point(points, floor=1.0)  # no call on either irrelevance item, and item 0 still called
    assert 0.6 < best.threshold <= 0.9 and best.calls_right == 0.5 and best.irrelevance == 1.0
    # with `founded` turning down item 3's calls (and item 0's), a threshold at item 3's score is no longer needed
    answered = curve(records, scores, "dense", frozenset({"3"}))
    best = operating_point(answered, floor=1.0)
    assert 0.2 < best.threshold <= 0.5 and best.calls_right == 0.5 and best.irrelevance == 1.0
    assert max(p.calls_right for p in curve(records, scores, "dense", frozenset({"0", "3"}))) == 0.0


TIRES = ToolSpec(
    "recommended_tire_pressure",
    "Recommended tire pressure for a car model.",
    {
        "type": "object",
        "properties": {"car_model": {"type": "string", "description": "Model and year."}},
        "required": ["car_model"],
        "additionalProperties": False,
    },
)


def test_a_vote_keeps_the_calls_most_candidates_make_and_the_greedy_one_on_a_tie():
    from toollab import AssistantMessage
    from toollab.models.local_vote import majority

    def said(*calls: tuple[str, dict]) -> AssistantMessage:
        return AssistantMessage(tool_calls=[ToolCall(id=str(i), name=n, arguments=a) for i, (n, a) in enumerate(calls)])

    a, b = ("tires", {"car_model": "Model 3"}), ("tires", {"car_model": "Tesla"})
    broken = AssistantMessage(tool_calls=[ToolCall(name="tires", arguments="{", parse_error="unreadable")])
    assert majority([said(b), said(a), said(a), said(b, a), said(a)]) == (1, 3)
    assert majority([said(a, b), said(b, a), said(b)]) == (0, 2)  # the same calls in another order agree
    assert majority([said(b), said(a)]) == (0, 1)  # a tie keeps the greedy candidate
    assert majority([broken, said(a)]) == (1, 1)  # a failed greedy turn is replaced by a readable one
    assert majority([broken, AssistantMessage(content="no call")]) == (0, 0)


def test_demonstrations_come_before_the_first_request_and_the_nearest_last():
    from toollab import SystemMessage
    from toollab.models.demos import DemoPicker, bank, with_demos

    picked = DemoPicker(2)("How much is 20 USD in yen?")
    assert len(picked) == 2 and picked[0] != picked[1] and picked[0].calls[0][0] != picked[1].calls[0][0]
    assert "fx" in picked[-1].calls[0][0]  # the currency demonstration is the nearest
    asked = [SystemMessage(content="Be brief."), UserMessage(content="How much is 20 USD in yen?")]
    shown = with_demos(asked, picked)
    assert shown[0] == asked[0] and shown[-1] == asked[-1] and len(shown) == 6
    assert shown[1].content == picked[0].question and shown[2].tool_calls[0].name == picked[0].calls[0][0]
    assert DemoPicker(0)("anything") == [] and DemoPicker(2)("") == [] and len(bank()) >= 100


def test_an_optional_parameter_the_request_names_becomes_required_for_the_grammar():
    from toollab.models.local_mentions import mentioned_required, names

    ride = ToolSpec(
        "ride.find",
        "Find rides.",
        {
            "type": "object",
            "properties": {
                "source": {"type": "string"},
                "max_cost": {"type": "number"},
                "car": {"type": "string", "enum": ["SUV", "sedan"]},
                "roomType": {"type": "string"},
                "type": {"type": "string"},
            },
            "required": ["source"],
        },
    )
    asked = "A ride from Lima with a maximum cost of $50, an SUV if they have one; any type of room"
    assert mentioned_required(ride, asked).parameters["required"] == ["source", "max_cost", "car", "roomType"]
    assert ride.parameters["required"] == ["source"]  # the tool itself is unchanged
    alone = mentioned_required(ride, "A ride from Lima").parameters  # an optional choice it names none of: left out
    assert (
        "car" not in alone["properties"] and alone["required"] == ["source"] and "car" in ride.parameters["properties"]
    )
    assert names("acceleration", {}, "an acceleeration of 9.8") and names("event_type", {}, "war events")
    assert not names("type", {}, "any type") and not names("date", {}, "next month (April 2022)")
    assert not names("car", {"enum": ["SUV"]}, "a SUVs-only lot")  # enum values as whole words
    # a number named by the words its description opens with, a number after them: "alpha" in BFCL-style schemas
    alpha = {"type": "number", "description": "Significance level. Default 0.05."}
    assert names("alpha", alpha, "Compare them at a significance level of 0.01.")
    assert not names("alpha", alpha, "Which significance level should I use?")  # no number said for it
    assert not names("alpha", {**alpha, "type": "string"}, "at a significance level of 0.01")


def test_a_flag_the_request_names_takes_the_value_it_says_for_the_grammar():
    from toollab.models.local_mentions import mentioned_required, said_flag

    assert said_flag("include_donor_count", "Progress of Winter Coats, with the donor count, please.") is True
    assert said_flag("include_donor_count", "Progress of Winter Coats, without the donor count.") is False
    assert said_flag("include_bonus", "Net pay on $68,500, not counting my bonus?") is False
    assert said_flag("include_player_stats", "the score, individual player stats and team stats") is True
    assert said_flag("include_bonus", "Net pay on $68,500 including tips?") is None  # "including" names nothing
    assert said_flag("include_player_stats", "the score and the player list") is None  # every telling word
    forecast = ToolSpec(
        "forecast",
        "Weather forecast.",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "include_precipitation": {"type": "boolean"},
                "hourly": {"type": "boolean"},
            },
            "required": ["city", "hourly"],
        },
    )
    grammar = mentioned_required(forecast, "Forecast for Lima, without precipitation, hourly please").parameters
    assert grammar["required"] == ["city", "hourly", "include_precipitation"]
    assert grammar["properties"]["include_precipitation"] == {"type": "boolean", "enum": [False]}
    assert grammar["properties"]["hourly"] == {"type": "boolean", "enum": [True]}
    assert forecast.parameters["properties"]["hourly"] == {"type": "boolean"}  # the tool itself is unchanged
    alone = mentioned_required(forecast, "Forecast for Lima").parameters  # an optional flag it does not name: left out
    assert list(alone["properties"]) == ["city", "hourly"] and alone["required"] == ["city", "hourly"]


def test_a_place_parameter_whose_description_asks_its_region_is_found():
    from toollab.models.local_mentions import region_parameters

    def place(description: str) -> ToolSpec:
        schema = {"type": "object", "properties": {"location": {"type": "string", "description": description}}}
        return ToolSpec("find", "Find.", schema)

    assert region_parameters([place("The city and state, e.g. Denver, CO")]) == {"location"}
    assert region_parameters([place("City and country where it is.")]) == {"location"}
    assert region_parameters([place("e.g. San Francisco, CA")]) == {"location"}
    assert region_parameters([place("The city name, e.g. Denver")]) == frozenset()
    assert region_parameters([place("A state of the art model.")]) == frozenset()
    from toollab.models.local_steering import _REGION

    def region_after(value: str, text: str) -> bool:
        return re.search(rf"(?<!\w){re.escape(value)}{_REGION}", text) is not None

    assert region_after("Denver", "around Denver, Colorado with pediatrics") and region_after("Boston", "in Boston, MA")
    assert region_after("New York City", "of New York City, NY,  and Los Angeles, CA")
    assert not region_after("Paris", "Paris, Rome and Oslo") and not region_after("Lima", "Lima, Quito, Bogota")
    assert not region_after("New York City", "New York City, Los Angeles, Alabama")  # places listed


def test_numbers_lose_their_thousands_separators_where_values_are_copied():
    from toollab.tools.arithmetic import without_separators

    assert without_separators("a payout of $1,000,000 and 500,000 shares") == "a payout of $1000000 and 500000 shares"
    unchanged = "1,2345 and 12,34"
    assert without_separators(f"$1,500, 250 and 40,000.5; {unchanged}") == f"$1500, 250 and 40000.5; {unchanged}"


def test_coverage_finds_the_request_values_no_call_holds():
    from toollab.models.local_mentions import salient_values, unused_values

    asked = "Sales tax on $30.45 in Chicago, Illinois and $1,052.33 in Sacramento, California on 2027-03-14."
    values = salient_values(asked)
    assert values == ["30.45", "1052.33", "2027-03-14", "chicago", "illinois", "sacramento", "california"]
    assert salient_values("What is the weather in 'Lima'? Also: I'd like Quito.") == ["lima", "quito"]
    assert salient_values("Circles of radius 5cm and 10.5 cm.") == ["5", "10.5"]  # a unit may follow
    assert salient_values("How far apart do beans, radishes and kale go?") == ["beans", "radishes", "kale"]
    first = ToolCall(name="tax", arguments={"amount": 30.45, "city": "Chicago", "state": "Illinois"})
    assert unused_values(values, [first]) == ["1052.33", "2027-03-14", "sacramento", "california"]
    second = ToolCall(name="tax", arguments={"amount": 1052.33, "city": "Sacramento, California", "on": "2027-03-14"})
    assert unused_values(values, [first, second]) == []
    # a number is held whole: 5 is not in 675000 nor in 5.5, and 88.0 is held by 88 (and 88 by 88.0)
    held = [ToolCall(name="f", arguments={"a": 675000, "b": 88, "c": 5.5, "d": 12.0})]
    assert unused_values(["5", "88.0", "88", "5.5", "12", "1"], held) == ["5", "1"]
    from toollab.models.local_mentions import uncovered

    assert uncovered(written(first), HERMES, "finish", values) and not uncovered(
        written(first, second), HERMES, "finish", values
    )
    assert not uncovered(written(first)[:-3], HERMES, "finish", values)  # in the middle of a call


def test_listed_finds_the_other_items_of_a_list_a_call_took_from():
    from toollab.models.local_mentions import listed_next, listed_with, uncovered, unlisted
    from toollab.models.local_places import placed_pairs

    weather = "What is the weather in Paris, Rome and Oslo today? I found you through the Kestrel app."
    assert listed_with("paris", weather) == ["rome", "oslo"] and listed_with("Oslo", weather) == ["rome", "paris"]
    assert listed_with("Kestrel", weather) == []  # a name in no list wants no call of its own
    assert listed_with("5", "Circles of radius 5, 10 and 15 units.") == ["10", "15"]
    assert listed_with("Civic 2020", "Pressure for a Civic 2020 as well as for a Camry 2021?") == ["camry 2021"]
    assert listed_with("15", "Payments for 15-year and 30-year loans?") == ["30"]  # a unit after a hyphen
    assert listed_with("2027", "Sailings on 2027-03-10 and 2027-04-11?") == []  # a date's year is no item
    assert listed_with("5", "Circles of radius 5cm, 10cm and 15cm.") == ["10", "15"]  # a unit may follow
    # a whole float written as an int (a grammar's enum writes 88.0 as 88) is still that item, and holds it
    areas = "A town of 275,000 people over 1540.0, 88.0 and 12.5 square kilometers?"
    assert listed_with("1540", areas) == ["88.0", "12.5"] and listed_with("15", areas) == []
    town = [ToolCall(name="density", arguments={"population": 275000, "area": a}) for a in (1540, 88)]
    assert unlisted(town[:1], areas) == ["88.0", "12.5"] and unlisted(town, areas) == ["12.5"]
    # a number with thousands separators is the number a call writes without them
    gifts = "If I give $1,500 and 12,000 and my employer matches 50%, what is the total?"
    assert listed_with("1500", gifts) == ["12000"] and listed_with("1,500", gifts) == ["12000"]
    assert unlisted([ToolCall(name="gift", arguments={"amount": 1500, "match": 50})], gifts) == ["12000"]
    assert listed_with("New York", "The population of New York and Los Angeles in 2020.") == ["los angeles"]
    assert listed_with("Corolla 2019", "Tires for a Corolla 2019, Model 3 2022 and Civic 2018?") == [
        "model 3 2022",
        "civic 2018",
    ]
    assert listed_with("beans", "How far apart do zucchini, beans and kale go?") == ["kale", "zucchini"]
    assert listed_with("beans", "Spacing for beans and lettuce?") == ["lettuce"]  # two lowercase words
    assert listed_with("beans", "What spacing do beans and lettuce need?") == []  # ... that end a clause
    assert listed_with("cm", "A box with a side of 4 cm and depth of 2 cm.") == []  # not "depth" as a unit
    assert listed_with("meters", "The climb of Eagle Ridge in meters and feet?") == ["feet"]
    assert listed_with("paris", "The weather in paris and how warm is it?") == []  # "and" then a clause, no item
    assert listed_with("Cusco", "The last frost in Cusco as well as Tallinn?") == ["tallinn"]
    assert listed_with("5", "Circles of radius 5 as well as 10cm.") == ["10"]
    assert listed_with("red wine", "Pair red wine and white fish.") == []  # lowercase phrases: no list of two
    # "and" comes once, before a list's last item: "advanced" is no fourth language, and no item of theirs
    classes = "Schedule for japanese, german and italian, advanced level?"
    assert listed_with("japanese", classes) == ["german", "italian"]
    assert listed_with("italian", classes) == ["german", "japanese"] and listed_with("advanced", classes) == []
    pairs = "Compute the Pythagorean Theorem of two side lengths: 3 and 4, 5 and 12."  # pairs listed: four items
    assert listed_with("4", pairs) == ["5", "12", "3"] and listed_with("5", pairs) == ["12", "4", "3"]
    assert listed_with("Paris", "A flight to Paris and I will pay.") == []  # a sentence's opener is no item
    assert listed_with("Mombasa, Daejeon", "The weather in Mombasa, Daejeon and Tallinn") == []  # packed: not one
    # places listed with their regions are pairs: a place's siblings are the other places, written as it is
    places = "Population of Nagoya, Japan, Porto, Portugal and Cusco, Peru in 2010?"
    assert placed_pairs(places) == (("Nagoya", "Japan"), ("Porto", "Portugal"), ("Cusco", "Peru"))
    assert listed_with("Porto", places) == ["nagoya", "cusco"] and listed_with("Japan", places) == []
    assert listed_with("Porto, Portugal", places) == ["nagoya, japan", "cusco, peru"]
    assert placed_pairs(weather) == () and placed_pairs("In Boston, MA and Washington, D.C.") == (
        ("Boston", "MA"),
        ("Washington", "D.C."),
    )
    # what comes before the value may come before each item again: a currency, or a word the items before have too
    loans = "Interest on loans of $10,000, $20,000 and $30,000 at 4%?"
    assert listed_with("10000", loans) == ["20000", "30000"] and listed_with("30000", loans) == ["20000", "10000"]
    frost = "The last frost in Porto and in Nagoya?"
    assert listed_with("Porto", frost) == ["nagoya"] and listed_with("Nagoya", frost) == ["porto"]
    trips = "Ferries from Lisbon to Porto and from Madrid to Rome."  # "to Porto and from Madrid" is no list
    assert listed_with("Madrid", trips) == [] and listed_with("Porto", trips) == []
    # numbers said in words are items one by one, as calls write them in digits
    loan = "Monthly payment on $18,500 over thirty and fifteen years at 5.0%?"
    assert listed_with("30", loan) == ["15"]
    thirty = ToolCall(name="loan", arguments={"principal": 18500, "rate": 5.0, "years": 30})
    assert unlisted([thirty], loan) == ["15"]
    # a number item is held as the request writes it: the rate's 5.0 (written "5.0%") is not the years' 5
    interest = "Interest on $675,000 for 5 and 20 years at 5.0%?"
    twenty = ToolCall(name="interest", arguments={"principal": 675000, "rate": 5.0, "years": 20})
    assert unlisted([twenty], interest) == ["5"] and listed_next([twenty], interest) == ({"years"}, ["5"])
    five = twenty.model_copy(update={"arguments": {"principal": 675000, "rate": 5.0, "years": 5}})
    assert unlisted([twenty, five], interest) == []
    paris = ToolCall(name="weather", arguments={"city": "Paris"})
    rome = ToolCall(name="weather", arguments={"city": "Rome"})
    oslo = ToolCall(name="weather", arguments={"city": "Oslo", "unit": "celsius"})
    assert unlisted([paris], weather) == ["rome", "oslo"] and unlisted([paris, rome, oslo], weather) == []
    assert uncovered(written(paris, rome), HERMES, "finish", request=weather)
    assert not uncovered(written(paris, rome, oslo), HERMES, "finish", request=weather)
    assert not uncovered(
        written(ToolCall(name="weather", arguments={"city": "Lima"})), HERMES, "finish", request=weather
    )


def test_a_lists_later_call_is_pinned_to_the_items_left_and_the_values_its_calls_repeat():
    from toollab.models.local_dates import written_as_asked
    from toollab.models.local_mentions import pinned_next, unlisted
    from toollab.models.local_steering import continuing, value_forms

    assert value_forms("german") == ['"german"', '"German"'] and value_forms("1,500") == ['"1,500"', "1500"]
    assert value_forms(18500) == ["18500"] and value_forms(True) == ["true"] and value_forms([1]) == []
    assert value_forms("88.0") == ['"88.0"', "88.0", "88"]  # as JSON writes a whole float from an enum too
    asked = "Interest on $18,500 at 5.0% for 20, 15 and 10 years on the fixed plan?"
    loan = [ToolCall(name="loan", arguments={"principal": 18500, "rate": 5.0, "years": 20, "plan": "fixed"})]
    assert pinned_next(loan, asked) == {
        "years": ['"15"', "15", '"10"', "10"], "principal": ["18500"], "rate": ["5.0"], "plan": ['"fixed"']
    }  # fmt: skip
    second = ToolCall(name="loan", arguments={"principal": 9000, "rate": 5.0, "years": 15, "plan": "fixed"})
    assert pinned_next([*loan, second], asked) == {"years": ['"10"', "10"], "rate": ["5.0"], "plan": ['"fixed"']}
    assert pinned_next([*loan, second, second.model_copy(update={"arguments": {"years": 10}})], asked) == {}
    # a value the request gives a rival for stays free: "1.5% for Japan and 2.1% for India"
    asked = "Growth of Japan and India in 10 and 20 years at 1.5% for Japan and 2.1% for India?"
    japan = ToolCall(name="growth", arguments={"country": "Japan", "years": 10, "rate": 1.5})
    assert pinned_next([japan], asked) == {"country": ['"India"'], "years": ['"20"', "20"]}
    assert pinned_next([ToolCall(name="clock", arguments={"hours": 8, "minutes": 20})], "At 8:20 and 11:50?") == {}
    gift = ToolCall(name="gift", arguments={"amount": 1500, "match": 50})
    assert pinned_next([gift], "I give $1,500 and 12,000; they match 50%.") == {
        "amount": ['"12000"', "12000"],
        "match": ["50"],
    }
    vocabulary = {'"': 0, " ": 1, ' "': 2, "G": 3, "Ger": 4, "g": 5, "german": 6, "J": 7, "1": 8, "15": 9, "5": 10}
    forms = value_forms("german")
    assert continuing("", forms, vocabulary) == ({0, 1, 2}, False, False)  # the quote (or a space) first
    assert continuing('"', forms, vocabulary) == ({3, 4, 5, 6}, False, False)  # the item's start, not "J"
    assert continuing('"german', forms, vocabulary) == ({0}, False, True)  # its closing quote may end the call
    assert continuing('"Jap', forms, vocabulary) is None  # a value that left the items is left alone
    assert continuing("1", ["15"], vocabulary) == ({10}, False, False)
    assert continuing("15", ["15", "150"], vocabulary) == (set(), True, False)  # may end; a longer one may go on
    # the dates of a list share their year: a date is not called for by another date's year
    bike = ToolSpec("bike", "Book a service.", {
        "type": "object", "properties": {"date": {"type": "string", "description": "Format MM/DD/YYYY."}}
    })  # fmt: skip
    asked = written_as_asked("On the 17th of January 2028, the 30th of November 2027 and March 14th, 2027.", [bike])
    assert asked == "On 01/17/2028, 11/30/2027 and 03/14/2027."  # "the" goes with its date: the list is one
    booked = [ToolCall(name="bike", arguments={"date": d}) for d in ("11/30/2027", "01/17/2028")]
    assert unlisted(booked, asked) == ["03/14/2027"]


def test_a_request_splits_into_its_parts_only_at_a_connective_and_a_sequence_only_where_it_stands_alone():
    from toollab.models.local_parts import lists_several, request_parts

    def split(request: str) -> list[str]:
        return [part.request for part in request_parts(request)]

    # a step on the total (sum, product, difference) of the step before is no part of its own; "the total cost"
    # or "the sum of 4 and 5" says of what, and asks on its own
    assert split("Add 17 and 25, then multiply the total by 3.") == ["Add 17 and 25, then multiply the total by 3."]
    assert split("Add 5 and 6. Then, subtract 2 from the sum.") == ["Add 5 and 6. Then, subtract 2 from the sum."]
    assert split("Find the sum of 4 and 5, then what is the product of 2 and 3?") == [
        "Find the sum of 4 and 5?",
        "What is the product of 2 and 3?",
    ]
    assert split("When does the beginner german course meet? Also: Schedule for french, intermediate?") == [
        "When does the beginner german course meet?",
        "Schedule for french, intermediate?",
    ]
    assert split("Find the area of a circle of radius 3. Additionally, find its perimeter.") == [
        "Find the area of a circle of radius 3.",
        "Find its perimeter.",
    ]
    assert split("Where is Harbor FC in the table? Then, who won Harbor FC v Rovers? Lastly, when do Rovers play?") == [
        "Where is Harbor FC in the table?",
        "Who won Harbor FC v Rovers?",
        "When do Rovers play?",
    ]
    # a sequenced sentence that points back stays with the part before it; "this time" restates its case whole
    assert split("Fetch sequence XYZ. Then fetch it in genbank format. After that, weather in Oslo?") == [
        "Fetch sequence XYZ. Then fetch it in genbank format.",
        "Weather in Oslo?",
    ]
    # inside a sentence, where the clause after ", then" / "and also" asks on its own
    assert split("First, raise 3 to the power of 5, then raise 2 to the power of 3.") == [
        "First, raise 3 to the power of 5.",
        "Raise 2 to the power of 3.",
    ]
    assert split("Fetch the top 10 artworks by popularity and then fetch the top 5 sorted chronologically?") == [
        "Fetch the top 10 artworks by popularity?",
        "Fetch the top 5 sorted chronologically?",
    ]
    # a question "and" joins to another is a part of its own, unless it points back
    assert split("What position is Harbor FC in and what was the score of Harbor FC v Rovers?") == [
        "What position is Harbor FC in?",
        "What was the score of Harbor FC v Rovers?",
    ]
    for whole in (
        "Find the route from Porto to Braga and how long it takes.",
        "Tell me the recipe for paella and how to cook it.",
        "Find the grocery store closest to Berkeley, selling tomatoes and also pet food.",
        "A car moving at 20 m/s and then accelerates at 10 m/s^2 for 5 seconds?",
        "The route from home to Palo Alto, then from my office to San Jose?",
        "Integrate x^3 with the trapezoid method, and then do the same with simpson.",
        "Find the status of John Doe in New York, also find the offenses he committed.",
        # a clause that gives no value asks about what came before: alone, SmolLM2 made up a loan of $100
        "How much interest would I pay on $50,000 at 6% over 10 years, and what would the monthly payment be?",
    ):
        assert split(whole) == [whole]
    trees = "Train a model with 100 trees. Then, you train another with 200 trees. Compare them."
    assert split(trees) == [trees]  # it tells more of the story: not a request of its own
    assert split("GCD of 56 and 98 by Euclid? After that, GCD of 81 and 27, but this time by the binary way.") == [
        "GCD of 56 and 98 by Euclid?",
        "GCD of 81 and 27, but this time by the binary way.",
    ]
    # context before a question and a question after the fact stay with their part
    rated = "I'm rated 1450 and got a loss against a 1875. What's my new rating?"
    assert split(f"{rated} Also: {rated}") == [rated, rated]
    frost = "Is it safe to plant out in Tromso yet? When does frost end?"
    assert split(f"How far apart should I plant beans? Also: {frost}") == [
        "How far apart should I plant beans?",
        frost,
    ]
    # no connective, a sequence (the second may need the first's result), "also" inside a sentence, a bare "Also."
    for whole in (
        "What's the weather in Paris? I'm asking for a friend.",
        "Get the weather in Paris. Then convert it to Fahrenheit.",
        "Book spin and also boxing on friday.",
        "Book spin on friday. Also.",
        "What is 2 + 2?",
    ):
        assert split(whole) == [whole]
    assert len(split(" Also: ".join(["Is Summit Path a hard hike?"] * 5))) == 1  # more than MAX_PARTS
    assert lists_several("How far apart should I plant beans and carrots?") and lists_several("A, B or C?")
    assert not lists_several("Is it safe to plant out in Tromso yet? When does frost end?")
    # a place and its region, and "..., please", list nothing; places with their regions, and names listed, do
    assert not lists_several("Population of Nagoya, Japan in 2010 without the growth rate, please.")
    assert lists_several("Weather in Porto, Portugal and Nagoya, Japan?") and lists_several("Paris, Rome and Oslo?")
    assert lists_several("Tire pressure for a Golf 2021, Civic 2018?")  # a terse list: its items, not a region


def test_a_request_that_asks_several_things_keeps_the_tools_of_each_part():
    from toollab.models.local_parts import EachPart

    def spec(name: str) -> ToolSpec:
        return ToolSpec(name, name, {"type": "object", "properties": {}})

    tools = [spec("weather"), spec("words"), spec("clock")]

    def first_named(request: str, offered: Sequence[ToolSpec]) -> list[ToolSpec]:  # keeps the one it names first
        return [min(offered, key=lambda t: request.find(t.name) % 1000)]

    each = EachPart(first_named)
    assert [t.name for t in each("The weather in Oslo? Then, count the words of 'hi there'.", tools)] == [
        "weather",
        "words",
    ]
    assert [t.name for t in each("The weather and the words in Oslo?", tools)] == ["weather"]  # one part


def test_the_parts_calls_join_into_one_turn_each_call_once():
    from toollab.models.local_parts import joined, with_request

    paris = ToolCall(id="call_0", name="weather", arguments={"city": "Paris"})
    rome = ToolCall(id="call_0", name="weather", arguments={"city": "Rome"})
    turn = joined([
        AssistantMessage(tool_calls=[paris], raw="<a>"),
        AssistantMessage(tool_calls=[rome, paris], raw="<b>"),
    ])  # fmt: skip
    assert [c.args_as_dict()["city"] for c in turn.tool_calls] == ["Paris", "Rome"]
    assert len({c.id for c in turn.tool_calls}) == 2 and turn.raw == "<a>\n<b>" and turn.content is None
    history = [UserMessage(content="first"), AssistantMessage(content="ok"), UserMessage(content="A? Also: B?")]
    assert [m.content for m in with_request(history, "B?")] == ["first", "ok", "B?"]


@pytest.fixture(scope="module")
def steered():
    """The embedded model as shipped (with its adapter) with the default switches, with every switch off, with
    voting, and without `chain`; and the bare weights with the switches on and off (each set of weights loaded once)."""
    from toollab.models.registry import load_model
    from toollab.models.switches import Switches

    return {
        "on": load_model("local", max_new_tokens=96, switches=Switches()),
        "off": load_model("local", max_new_tokens=96, switches=Switches.none()),
        "voting": load_model("local", max_new_tokens=96, switches=Switches(demos=True, vote=True)),
        "bare on": load_model("local", adapter="none", max_new_tokens=96, switches=Switches()),
        "bare off": load_model("local", adapter="none", max_new_tokens=96, switches=Switches.none()),
        "no chain": load_model("local", max_new_tokens=96, switches=Switches(chain=False)),
    }


@pytest.mark.slow
def test_the_chain_steps_expression_holds_every_result_with_the_requests_operator(steered):
    # the lab's sum task, its three populations read: asked for the calculator, SmolLM2 writes "92228" alone, and
    # made to hold every result it writes "92228 + 34588 - 56483"; with the request's operator, the sum. The
    # everyday tasks' "Count the words in '...' and multiply that count by 6": the count times 6
    from toollab.lab.countries.tools import countries_tools
    from toollab.lab.strategies.prompts import REACT

    (calculator,) = [t.spec for t in countries_tools("clear") if t.name == "calculator"]
    countries = {"Poland": "92228", "Portugal": "34588", "Pakistan": "56483"}
    calls = [ToolCall(id=f"c{i}", name="population", arguments={"country": c}) for i, c in enumerate(countries)]
    numbers = zip(calls, countries.values(), strict=True)
    results = [ToolResultMessage(call_id=c.id, name=c.name, content=n) for c, n in numbers]
    messages = [
        SystemMessage(content=REACT),
        UserMessage(content="What is the combined population, in thousands, of Poland, Portugal and Pakistan?"),
        AssistantMessage(tool_calls=calls),
        *results,
    ]
    params = RequestParams([calculator], "calculator", parallel=False)
    plain = asyncio.run(steered["no chain"].request(messages, params)).message.tool_calls[0].args_as_dict()
    chained = asyncio.run(steered["on"].request(messages, params)).message.tool_calls[0].args_as_dict()
    assert plain["expression"] != "92228 + 34588 + 56483", plain
    assert chained == {"expression": "92228 + 34588 + 56483"}, chained
    # the everyday tasks' two steps: without the hint SmolLM2 copies the sentence it counted into the expression
    (arith,) = [t.spec for t in EVERYDAY_TOOLS if t.name == "arith"]
    sentence = "she sold the old blue bicycle to a neighbour last spring"
    counted = ToolCall(id="w", name="word_tally", arguments={"text": sentence})
    messages = [
        UserMessage(content=f"Count the words in '{sentence}' and multiply that count by 6."),
        AssistantMessage(tool_calls=[counted]),
        ToolResultMessage(call_id="w", name="word_tally", content="11"),
    ]
    params = RequestParams([arith], "arith", parallel=False)
    chained = asyncio.run(steered["on"].request(messages, params)).message.tool_calls[0].args_as_dict()
    assert chained == {"expression": "11 * 6"}, chained


@pytest.mark.slow
def test_grounded_arguments_copy_the_request_and_the_turn_stops_before_a_repeat(steered):
    # every switch off, the bare SmolLM2 makes the car up ("Tesla 2022") and writes a second call; grounded, the
    # value is the request's own span, and the turn ends after the one call the request asks for (with the shipped
    # adapter the grounded value is "Model 3", also a span of the request)
    asked = [UserMessage(content="What tire pressure for a Model 3 2022?")]
    params = RequestParams([TIRES], "required")
    off = asyncio.run(steered["bare off"].request(asked, params))
    on = asyncio.run(steered["bare on"].request(asked, params))
    assert off.message.tool_calls[0].args_as_dict() != {"car_model": "Model 3 2022"}, off.raw
    (call,) = on.message.tool_calls
    assert call.args_as_dict() == {"car_model": "Model 3 2022"}, on.raw


@pytest.mark.slow
def test_a_value_does_not_open_or_go_on_with_its_parameters_kind_the_request_writes_in_lowercase(steered):
    # "the Rosewood finish": SmolLM2 wrote {"finish": "Rosewood Finish"}; the kind is the parameter's, the value the
    # rest. A capitalised word stays: it may be part of a name ("Linden Street" for `street`)
    import torch

    from toollab.models.local_steering import PENALTY, Grounding

    tokenizer = steered["on"].load().tokenizer

    def allowed(request: str, text: str, piece: str) -> bool:
        grounding = Grounding(tokenizer, request, "", 3.0, HERMES, "finish")
        logits = torch.zeros(len(tokenizer))
        grounding.bias(logits, [], '<tool_call>\n{"name": "f", "arguments": {' + text)
        (token,) = tokenizer(piece, add_special_tokens=False)["input_ids"][:1]
        return bool(logits[token] > -PENALTY / 2)

    guitar = "Find me a guitar with the Rosewood finish."
    assert not allowed(guitar, '"finish": "Rosewood', " finish") and not allowed(
        guitar, '"finish": "Rosewood', " Finish"
    )
    assert allowed(guitar, '"finish": "Rosewood', '"') and allowed(guitar, '"finish": "', "Rose")
    # nor open with it: "the trail Fern Gully Loop" is the trail "Fern Gully Loop"
    trail = "Three cases: the first has trail Fern Gully Loop."
    assert not allowed(trail, '"trail": "', "trail") and allowed(trail, '"trail": "', "Fern")
    assert allowed("A base of 10 units and a height of 5 units.", '"unit": "', "units")  # the kind is the value
    assert not allowed("The first has language german.", '"language": "', "language")
    assert allowed(guitar, '"model": "Rosewood', " finish")  # another parameter's value may hold the word
    zone = "Convert 3pm New York time zone to London time."
    assert not allowed(zone, '"from_timezone": "New York', " time") and allowed(zone, '"from_timezone": "New', " York")
    assert allowed("When are bins collected on Linden Street?", '"street": "Linden', " Street")


@pytest.mark.slow
def test_a_string_value_opens_with_a_word_and_does_not_close_after_a_separator(steered):
    # the shipped adapter wrote `"end": ">2027-04-11, "` for "from 2027-01-24 to 2027-04-11" (5 of the 7 everyday
    # dev tasks it failed): a value may not open with `>` (or a space, or punctuation) nor close after ", "
    import torch

    from toollab.models.local_steering import PENALTY, Grounding

    tokenizer = steered["on"].load().tokenizer
    grounding = Grounding(tokenizer, "From 2027-01-24 to 2027-04-11?", "", 3.0, HERMES, "finish")

    def allowed(text: str, piece: str) -> bool:
        logits = torch.zeros(len(tokenizer))
        grounding.bias(logits, [], text)
        (token,) = tokenizer(piece, add_special_tokens=False)["input_ids"][:1]
        return bool(logits[token] > -PENALTY / 2)

    start = '<tool_call>\n{"name": "days", "arguments": {"end": '
    assert allowed(start, '"') and not allowed(start, '">') and not allowed(start, '",')
    # the quote opens alone: with a token holding the quote and more (`"+`, `"(`...) SmolLM2 opened dates it
    # wanted to write bare as `"+2027-10-27}} 2027-...` and never closed them (15 of 34 test-split task failures)
    assert allowed(start, ' "') and not allowed(start, '"+') and not allowed(start, '"/') and not allowed(start, ' "$')
    assert allowed(start, ' "(')  # an expression's bracket: `make demo`'s "(5.0 + 3.0) * 2.0" opens with it
    assert allowed(start + '"', "2027") and not allowed(start + '"', ">") and not allowed(start + '"', " 2027")
    assert allowed(start + '"2027-04-11', '"') and not allowed(start + '"2027-04-11, ', '"')
    assert allowed(start + '"2027-04-11", "start": 5, ', '"')  # outside a string: a key may open
    assert allowed(start + '"/', "2027") and not allowed(start + '"/', ">")  # no markup the request lacks
    assert not allowed(start, '"/>')
    quoting = Grounding(tokenizer, "Is 3 > 2?", "", 3.0, HERMES, "finish")
    logits = torch.zeros(len(tokenizer))
    quoting.bias(logits, [], start + '"3 ')
    assert logits[tokenizer(">", add_special_tokens=False)["input_ids"][0]] > -PENALTY / 2


def test_number_lists_are_the_requests_lists_of_numbers_in_brackets_flat_or_nested():
    from toollab.models.local_steering import number_lists

    assert number_lists("the median of [7, 3, 9.5] and of [[1, 2], [3, 4]]") == [
        "[7, 3, 9.5]", "[7,3,9.5]", "[[1, 2], [3, 4]]", "[[1,2],[3,4]]", "[1, 2]", "[1,2]", "[3, 4]", "[3,4]",
    ]  # fmt: skip
    assert number_lists("pick [a, b], [1, [2]] or []") == []


def test_an_array_that_copies_a_list_of_the_request_goes_on_as_it_does_and_closes_at_its_end(steered):
    # SmolLM2 wrote [7, 3, 9, 1] for "[7, 3, 9] and [2, 8, 6, 1]", and closed a list whose numbers come again
    # ("[1, 2, 2, 3, 3, 3, 4, 4, 4, 4]") where the loop guard barred its next number
    import torch

    from toollab.models.local_steering import PENALTY, Grounding

    tokenizer = steered["on"].load().tokenizer
    grounding = Grounding(tokenizer, "Median of [7, 3, 9] and [1, 2, 2, 2, 2, 2, 3]?", "", 3.0, HERMES, "finish")

    def allowed(text: str, piece: str) -> bool:
        logits = torch.zeros(len(tokenizer))
        grounding.bias(logits, [], '<tool_call>\n{"name": "median", "arguments": {"values": ' + text)
        (token,) = tokenizer(piece, add_special_tokens=False)["input_ids"][:1]
        return bool(logits[token] > -PENALTY / 2)

    assert allowed("[", "1") and allowed("[", "7") and allowed("[", "5")  # a list is chosen by its first number
    assert allowed("[7, 3, 9", "]") and not allowed("[7, 3, 9", ",")
    assert grounding.copying  # the loop guards stand aside
    assert allowed("[1, 2, 2, 2, 2", ",") and not allowed("[1, 2, 2, 2, 2", "]")
    assert allowed("[5, 6", ",") and allowed("[5, 6", "]") and not grounding.copying  # a list of its own
    loose = Grounding(tokenizer, "Integrate [2, 0, -1] from 0 to 3.", "", 3.0, HERMES, "finish")
    logits = torch.zeros(len(tokenizer))
    loose.bias(logits, [], '<tool_call>\n{"name": "integral", "arguments": {"bounds": [0, 3')
    assert logits[tokenizer(",", add_special_tokens=False)["input_ids"][0]] < -PENALTY / 2  # no number left for it


def test_an_arrays_string_items_copy_as_values_do_names_open_capitalised_and_a_whole_list_ends(steered):
    # SmolLM2 wrote "oatments" for "oats" (an array's item had none of a value's copying), "spring-picnic" for "the
    # Spring Picnic" (opened in lowercase, its copy left the source's tokens), and ["Lisbon", "Porto", "Faro", "Lisbon"]
    from functools import partial

    import torch

    from toollab.models.local_mentions import array_items_left
    from toollab.models.local_steering import PENALTY, Grounding

    tokenizer = steered["on"].load().tokenizer
    request = "Price oats and honey for the Spring Picnic, and compare Lisbon, Porto and Faro."
    left = partial(array_items_left, request=request)
    free = frozenset({"event", "items", "cities"})  # free text; a choice of an enum is spelled as the enum spells it
    grounding = Grounding(tokenizer, request, "", 3.0, HERMES, "finish", array_left=left, free=free)
    start = '<tool_call>\n{"name": "shop", "arguments": {'

    def logit(text: str, piece: str) -> float:
        logits = torch.zeros(len(tokenizer))
        grounding.bias(logits, [], start + text)
        return float(logits[tokenizer(piece, add_special_tokens=False)["input_ids"][0]])

    assert logit('"items": ["oat', "s") > logit('"items": ["oat', "ments") + 3.0
    assert logit('"event": "', "spring") < -PENALTY / 2 < logit('"event": "', "Spring")
    assert logit('"season": "', "spring") > -PENALTY / 2  # not free text: an enum's "spring" stays
    naming = torch.zeros(len(tokenizer))  # a call's name is no value: "spring_sale" stays open to the grammar
    grounding.bias(naming, [], '<tool_call>\n{"name": "')
    assert naming[tokenizer("spring", add_special_tokens=False)["input_ids"][0]] > -PENALTY / 2
    assert logit('"items": ["', "spring") < -PENALTY / 2 and logit('"items": ["', "oat") > -PENALTY / 2
    assert logit('"cities": ["Lisbon", "Porto"', ",") > -PENALTY / 2
    assert logit('"cities": ["Lisbon", "Porto", "Faro"', ",") < -PENALTY / 2
    assert logit('"cities": ["Lisbon", "Porto", "Faro"', "]") > -PENALTY / 2
    assert logit('"items": ["oat', '"') < -PENALTY / 2  # an item stops at a word's end, not inside it
    assert logit('"cities": ["Lisbon", "', "Porto") > logit('"cities": ["Lisbon", "', "Faro") + 3.0  # the next item


def test_an_arrays_string_item_ends_where_a_list_of_the_request_ends_it(steered):
    # held-out songs "Ember and Northbound" were written as one item (a name goes on through "and"), "Persuasion and
    # Small Gods: plan the meetings" too, and "The Lanterns in Daejeon" ran a last item on into the clause after it
    from functools import partial

    import torch

    from toollab.models.local_mentions import array_items_left, ends_item
    from toollab.models.local_steering import PENALTY, Grounding

    tokenizer = steered["on"].load().tokenizer
    start = '<tool_call>\n{"name": "plan", "arguments": {"festival": "Daejeon", "titles": ['

    def closes(request: str, held: str) -> bool:
        grounding = Grounding(
            tokenizer, request, "", 3.0, HERMES, "finish",
            item_end=partial(ends_item, request=request), array_left=partial(array_items_left, request=request),
        )  # fmt: skip
        logits = torch.zeros(len(tokenizer))
        grounding.bias(logits, [], start + held)
        return float(logits[grounding.closing].max()) > PENALTY / 2

    songs = "How long would a mixtape of Ember and Northbound run?"
    assert closes(songs, '"Ember') and closes(songs, '"Ember", "Northbound')
    bands = "Check set times for Neon Fields and The Lanterns in Daejeon."
    assert (
        not closes(bands, '"Neon') and closes(bands, '"Neon Fields') and closes(bands, '"Neon Fields", "The Lanterns')
    )
    books = "Plan our reading of Silent Harbour and North of Nowhere."  # a name's small word is not its end
    assert not closes(books, '"Silent Harbour", "North') and closes(books, '"Silent Harbour", "North of Nowhere')
    packed = "I'm off to Oslo and have packed raincoat, gloves and wool hat."
    assert not closes(packed, '"raincoat", "gloves", "wool') and closes(packed, '"raincoat", "gloves", "wool hat')


@pytest.mark.slow
def test_a_later_call_of_a_tool_takes_the_next_item_of_the_list(steered):
    # SmolLM2 writes `{"` as one token after `"arguments":`, so a call's opening is seen wherever the text goes on
    # from it (it was looked for only at the end of the text, and the next-value steering never ran)
    from functools import partial

    import torch

    from toollab.models.local_mentions import ends_item, listed_next
    from toollab.models.local_steering import PENALTY, Grounding

    tokenizer = steered["on"].load().tokenizer
    asked = "What position are Harbor City FC, Old Town Athletic and Riverside Rovers in?"
    listed = partial(listed_next, request=asked)
    grounding = Grounding(tokenizer, asked, "", 3.0, HERMES, "finish", listed)
    first = ToolCall(name="table_position", arguments={"team": "Riverside Rovers"})
    text = written(first) + '\n<tool_call>\n{"name": "table_position", "arguments": {"'
    grounding.update(text)
    logits = torch.zeros(len(tokenizer))
    grounding.bias(logits, [], text + 'team": "')

    def first_token(word: str) -> int:
        return tokenizer(word, add_special_tokens=False)["input_ids"][0]

    assert logits[first_token("Riverside")] < 0 < logits[first_token("Harbor")]  # spent, and the next items
    assert logits[first_token("Harbor")] > logits[first_token("City")]
    # a value that has written a whole item ends there (its closing quote), unless its parameter takes a list
    ends = partial(ends_item, request=asked)
    for lists, ended in ((frozenset(), True), (frozenset({"team"}), False)):
        grounding = Grounding(tokenizer, asked, "", 3.0, HERMES, "finish", listed, item_end=ends, lists=lists)
        logits = torch.zeros(len(tokenizer))
        opened = '<tool_call>\n{"name": "table_position", "arguments": {"team": "Old Town Athletic'
        grounding.bias(logits, [], opened)
        assert (float(logits[grounding.closing].max()) > PENALTY / 2) is ended
    table = ToolSpec("table_position", "League table position of a team.", {
        "type": "object", "properties": {"team": {"type": "string", "description": "Team name."}}, "required": ["team"]
    })  # fmt: skip
    reply = asyncio.run(steered["on"].request([UserMessage(content=asked)], RequestParams([table], "required")))
    teams = [c.args_as_dict()["team"] for c in reply.message.tool_calls]
    assert sorted(teams) == ["Harbor City FC", "Old Town Athletic", "Riverside Rovers"], reply.raw  # listed off: 2


@pytest.mark.slow
def test_a_call_after_a_lists_first_goes_on_with_its_tool_and_its_pins_hold_past_a_spaced_colon(steered):
    # dev items: the second call of "$18,500 over thirty and fifteen years" took the loan's other tool, and a flag
    # written `"include_donor_count" : true` (a space before the colon) escaped the pin that holds it false
    from functools import partial

    import torch

    from toollab.models.local_mentions import listed_next, pinned_next
    from toollab.models.local_steering import NAME_BIAS, PENALTY, Grounding

    tokenizer = steered["on"].load().tokenizer
    asked = "Monthly payment for borrowing $18,500 over thirty and fifteen years, without insurance?"
    listed, pins = partial(listed_next, request=asked), partial(pinned_next, request=asked)
    grounding = Grounding(tokenizer, asked, "", 3.0, HERMES, "finish", listed, pins=pins)
    first = ToolCall(name="loan_monthly_payment", arguments={"principal": 18500, "years": 30, "insured": False})
    text = written(first) + '\n<tool_call>\n{"name": "loan'
    logits = torch.zeros(len(tokenizer))
    grounding.bias(logits, [], text)

    def token(word: str) -> int:
        return tokenizer(word, add_special_tokens=False)["input_ids"][0]

    assert logits[token("_")] >= NAME_BIAS * 3.0  # "_" goes on towards both names
    grounding.bias(logits := torch.zeros(len(tokenizer)), [], text + "_")
    assert logits[token("month")] >= NAME_BIAS * 3.0 > logits[token("total")]
    text += '_monthly_payment", "arguments": {"principal": 18500, "years": 15, "insured" :'
    grounding.update(text)
    grounding.bias(logits := torch.zeros(len(tokenizer)), [], text)
    assert logits[token(" true")] < -PENALTY / 2 < logits[token(" false")]


@pytest.mark.slow
def test_a_list_item_another_value_writes_too_still_gets_its_call(steered):
    # a dev item: "5" of "5 and 20 years" counted as called because the rate held 5.0, and the second call, years 5,
    # was cut as adding nothing; given a second loan tool, SmolLM2 wrote its second call with that one
    def loan(name: str, description: str) -> ToolSpec:
        return ToolSpec(name, description, {
            "type": "object",
            "properties": {"amount": {"type": "number", "description": "Amount borrowed, in dollars."},
                           "rate": {"type": "number", "description": "Yearly interest in percent."},
                           "years": {"type": "integer", "description": "Length of the loan in years."}},
            "required": ["amount", "rate", "years"],
        })  # fmt: skip

    tools = [
        loan("total_interest", "Total interest paid over the life of a fixed-rate loan."),
        loan("monthly_payment", "Monthly payment of a fixed-rate loan."),
    ]  # short: two calls in 96 tokens
    asked = "How much interest do I pay in total on $675 borrowed for 5 and 20 years at 5.0%?"
    reply = asyncio.run(steered["on"].request([UserMessage(content=asked)], RequestParams(tools, "required")))
    calls = sorted((c.name, c.args_as_dict()["years"]) for c in reply.message.tool_calls)
    assert calls == [("total_interest", 5), ("total_interest", 20)], reply.raw


@pytest.mark.slow
def test_a_lists_later_calls_take_the_items_left_and_repeat_the_other_values(steered):
    # dev-set items: the second call took the principal from the list ("principal": 15), and stopped short of the
    # list's item ("Blue Lake")
    loan = ToolSpec("loan_total_interest", "Total interest paid over the life of a fixed-rate loan.", {
        "type": "object",
        "properties": {"principal": {"type": "number", "description": "Amount borrowed."},
                       "years": {"type": "integer", "description": "Term in years."}},
        "required": ["principal", "years"],
    })  # fmt: skip
    asked = "How much interest do I pay in total on $18,500 borrowed for 20 and 15 years?"
    reply = asyncio.run(steered["on"].request([UserMessage(content=asked)], RequestParams([loan], "required")))
    terms = [(c.args_as_dict()["principal"], c.args_as_dict()["years"]) for c in reply.message.tool_calls]
    assert terms == [(18500, 20), (18500, 15)], reply.raw
    grade = ToolSpec("trail_grade", "How difficult a hiking trail is.", {
        "type": "object", "properties": {"trail": {"type": "string", "description": "Trail name."}},
        "required": ["trail"],
    })  # fmt: skip
    asked = "How difficult is Eagle Ridge and Blue Lake Trail?"
    reply = asyncio.run(steered["on"].request([UserMessage(content=asked)], RequestParams([grade], "required")))
    trails = [c.args_as_dict()["trail"] for c in reply.message.tool_calls]
    assert trails == ["Eagle Ridge", "Blue Lake Trail"], reply.raw  # unpinned: "Blue Lake"


def test_a_parameter_that_takes_a_fraction_takes_the_requests_percentages_as_fractions():
    from toollab.models.local_mentions import mentioned_required, said_fractions

    decimal = {"type": "float", "description": "Yearly yield as a decimal (0.05 for 5%)."}
    assert said_fractions(decimal, "$250,000 at 8% for 20 years, then at 6.25 percent.") == [0.08, 0.0625]
    assert said_fractions(decimal, "8% now, a 0.3 share later") == [0.08, 0.3]  # one written as a fraction too
    assert said_fractions(decimal, "$250,000 for 20 years.") == []  # no percentage: the grammar is left alone
    chance = {"type": "number", "description": "The probability of success on each trial."}
    assert said_fractions(chance, "A player makes 60% of shots.") == [0.6]
    assert said_fractions({"type": "float", "description": "Interest rate in percentage."}, "at 5%") == []
    assert said_fractions({"type": "integer", "description": "Share, as a decimal."}, "at 5%") == []
    spec = ToolSpec("grow", "Future value.", {"type": "object", "properties": {
        "amount": {"type": "number", "description": "Amount."}, "annual_yield": decimal,
    }, "required": ["amount", "annual_yield"]})  # fmt: skip
    shown = mentioned_required(spec, "$1,000 at 8% a year?")
    assert shown.parameters["properties"]["annual_yield"]["enum"] == [0.08]
    left = mentioned_required(spec, "$1,000 at 8% a year?", fractions=False)
    assert "enum" not in left.parameters["properties"]["annual_yield"]


def test_a_value_that_has_written_a_whole_item_of_a_list_ends_there():
    from toollab.models.local_mentions import ends_item, list_parameters

    trails = "How difficult are Eagle Ridge, Summit Path, Blue Lake Trail and Fern Gully Loop?"
    assert ends_item("Eagle Ridge", trails) and ends_item("Fern Gully Loop", trails)
    assert not ends_item("Eagle", trails) and not ends_item("Blue Lake", trails)  # inside an item
    assert not ends_item("Eagle Ridge, Summit Path", trails)  # past it: not this rule's to mend
    assert ends_item("Eagle Ridge", "How difficult is Eagle Ridge and Blue Lake Trail?")
    assert not ends_item("Smith", "Find the law firm 'Smith and Jones' in Boston.")  # a quoted name is one value
    capital = "Driving distance between New York City and Washington D.C."
    assert ends_item("New York City", capital) and not ends_item("Washington D", capital)  # an abbreviation goes on
    assert not ends_item("Paris", "What is the weather in Paris?")  # in no list
    spec = ToolSpec("cook", "Cook.", {"type": "object", "properties": {
        "ingredients": {"type": "string", "description": "A comma separated list of ingredients."},
        "dish": {"type": "string", "description": "The dish."},
    }})  # fmt: skip
    assert list_parameters([spec]) == frozenset({"ingredients"})


@pytest.mark.slow
def test_an_optional_parameter_the_request_names_is_written(steered):
    # a dev-set function: without `named_optionals` the shipped adapter stops after the required trail name
    climb = ToolSpec(
        "trail_climb",
        "Total climb of a trail.",
        {
            "type": "object",
            "properties": {
                "trail": {"type": "string", "description": "Trail name."},
                "unit": {"type": "string", "description": "Unit of the answer.", "enum": ["meters", "feet"]},
            },
            "required": ["trail"],
        },
    )
    asked = [UserMessage(content="What's the elevation gain of Fern Gully Loop in feet?")]
    params = RequestParams([climb], "required")
    model = steered["on"]
    (call,) = asyncio.run(model.request(asked, params)).message.tool_calls
    assert call.args_as_dict() == {"trail": "Fern Gully Loop", "unit": "feet"}, call
    model.named_optionals = False
    try:
        (call,) = asyncio.run(model.request(asked, params)).message.tool_calls
    finally:
        model.named_optionals = True
    assert "unit" not in call.args_as_dict(), call


@pytest.mark.slow
def test_a_grouped_number_is_copied_whole_and_a_named_flag_takes_the_value_said(steered):
    # a dev-set function: the copy of "$240,000" stopped at its comma (`"principal": 240`), and the flag the
    # request asks for was written false
    from toollab.eval.bfcl.schema import tool_set
    from toollab.eval.synth.generate import families, function_doc

    (loan,) = [fn for f in families("dev") for fn in f.functions if fn.name == "loan_monthly_payment"]
    (spec,) = tool_set([function_doc(loan)], keep_dots=False).specs
    params = RequestParams([spec], "required")
    for flag, said in ((True, "including insurance"), (False, "without insurance")):
        asked = [UserMessage(content=f"Monthly payment for borrowing $240,000 over 20 years at 4.2%, {said}?")]
        (call,) = asyncio.run(steered["on"].request(asked, params)).message.tool_calls
        arguments = call.args_as_dict()
        assert arguments["principal"] == 240000 and arguments["include_insurance"] is flag, arguments
    # where another number starts with the same digit, the model's wish for the comma says which one it copies
    asked = [UserMessage(content="Monthly payment for borrowing $1,250,000 over 15 years at 5.0%?")]
    (call,) = asyncio.run(steered["on"].request(asked, params)).message.tool_calls
    assert call.args_as_dict() == {"principal": 1250000, "annual_rate": 5.0, "years": 15}, call
    # once the whole number is written it ends there (SmolLM2 went on to 6750000, then to 675000.5), unless a
    # longer number of the request starts with its digits
    import torch

    from toollab.models.local_steering import PENALTY, Grounding

    tokenizer = steered["on"].load().tokenizer

    def barred(request: str, written: str, piece: str) -> bool:
        logits = torch.zeros(len(tokenizer))
        Grounding(tokenizer, request, "", 3.0, HERMES, "finish").bias(
            logits, [], '<tool_call>\n{"name": "f", "arguments": {"principal": ' + written
        )
        return bool(logits[tokenizer(piece, add_special_tokens=False)["input_ids"][0]] < -PENALTY / 2)

    loan = "Borrowing $675,000 over 20 years."
    assert barred(loan, "675000", "0") and barred(loan, "675000", ".") and not barred(loan, "675000", ",")
    assert not barred(loan, "6750", "0")  # the copy goes on (forced there)
    assert not barred("$675,000 or 6750000 dollars", "675000", "0")
    # so does a number written without separators, but for its decimal point (SmolLM2 wrote 500000 for "5 km")
    hospital = "Find a hospital within 5 km of Denver, or 5.5 miles, or 50 minutes away."
    assert barred("Find a hospital within 5 km of Denver.", "5", "0")
    assert not barred("Find a hospital within 5 km of Denver.", "5", ".")
    assert not barred(hospital, "5", "0") and barred(hospital, "50", "0")  # 50 and 5.5 start with 5
    assert not barred("Find a hospital within 5 km of Denver.", "4", "0")  # no number of the request: free
    assert barred("Within 5.0 km.", "5", "0") and not barred("Within 5.0 km.", "5", ".")
    # where the request's numbers that start so are told apart by the words beside them, the one the parameter's name
    # cues decides: "$10,000 ... for 10, 20 and 30 years" (SmolLM2 wrote years 10000, and 36000 for "thirty years")

    def pushed(request: str, key: str, written: str) -> dict[str, float]:
        logits = torch.zeros(len(tokenizer))
        Grounding(tokenizer, request, "", 3.0, HERMES, "finish").bias(
            logits, [], '<tool_call>\n{"name": "f", "arguments": {"' + key + '": ' + written
        )
        return {p: float(logits[tokenizer(p, add_special_tokens=False)["input_ids"][0]]) for p in "0123"}

    grow = "What will $10,000 grow to at 5% a year for 10, 20 and 30 years?"
    assert pushed(grow, "years", "10")["0"] < -PENALTY / 2  # the years' 10 ends: no 10000
    assert pushed(grow, "amount", "10")["0"] > -PENALTY / 2  # the amount may go on (its name cues no number)
    thirty = "The monthly payment on a $675,000 and 36,000 loan at 3.5% over thirty years?"
    assert pushed(thirty, "years", "3")["0"] > PENALTY / 2  # 30, said in words, not 36000 nor 3.5
    opens = pushed("Payment on $18,500 at 5.0 and 6.75% over fifteen years?", "years", "")
    assert opens["1"] > max(opens["0"], opens["2"], opens["3"])  # a value opens with a cued number's first digit


def test_a_date_parameter_takes_the_requests_dates_in_the_format_its_description_asks():
    from toollab.models.local_dates import date_format, dates_in, written_as_asked
    from toollab.models.local_mentions import listed_with, mentioned_required

    assert date_format("Format: yyyy-mm-dd.") == "%Y-%m-%d"
    assert date_format("The starting date of the stay in format MM-DD-YYYY.") == "%m-%d-%Y"
    assert date_format("Appointment date, format MM/DD/YYYY.") == "%m/%d/%Y"
    assert date_format("The date of the booking.") is None and date_format("mm-mm-yyyy") is None
    asked = "Prices at closing March.11, 2022, on 10th December 2022 and the 2nd of May 2027, due on the 14th"
    assert [d.isoformat() for d in dates_in(asked)] == ["2022-03-11", "2022-12-10", "2027-05-02"]
    assert dates_in("February 30, 2027, or 03/04/2027") == []  # no such day; numeric dates other than ISO's
    stock = ToolSpec(
        "stock_price",
        "Closing price.",
        {
            "type": "object",
            "properties": {
                "company": {"type": "string"},
                "date": {"type": "string", "description": "Date of the price. Format: yyyy-mm-dd."},
                "until": {"type": "string", "description": "Last day, yyyy-mm-dd."},
            },
            "required": ["company", "date"],
        },
    )
    grammar = mentioned_required(stock, "Amazon at closing March.11, 2022 and 14 March 2022", optionals=False)
    assert grammar.parameters["properties"]["date"]["enum"] == ["2022-03-11", "2022-03-14"]
    assert grammar.parameters["required"] == ["company", "date"]  # "until" is offered the dates, not required
    assert mentioned_required(stock, "Amazon at closing March.11, 2022", dates=False, optionals=False) is stock
    assert mentioned_required(stock, "Amazon at closing today") is stock
    # the request the calls are steered and judged by writes the dates so, and their list is a list again
    written = written_as_asked("Amazon on February 29th, 2028 and 9 September 2027?", [stock])
    assert written == "Amazon on 2028-02-29 and 2027-09-09?"
    assert listed_with("2028-02-29", written) == ["2027-09-09"]


def test_a_list_of_enum_choices_holds_only_the_choices_the_request_names():
    from toollab.models.local_mentions import mentioned_required, named_items

    def choices(*enum: str) -> dict:
        return {"type": "array", "items": {"type": "string", "enum": list(enum)}}

    amenities = choices("Tennis Court", "Picnic Area", "Playground", "Running Track")
    assert named_items(amenities, "Find the nearest park with a tennis court in London.") == ["Tennis Court"]
    features = choices("Camping", "Scenic View", "Trails", "Picnic Areas")
    assert named_items(features, "a park that allows camping and has scenic views") == ["Camping", "Scenic View"]
    facilities = choices("Wi-Fi", "Reading Room", "Fiction", "Children Section")
    assert named_items(facilities, "a library with English fiction section and free Wi-Fi.") == ["Wi-Fi", "Fiction"]
    assert named_items(facilities, "a library with fiction") == ["Fiction"]  # "with fiction" is not "wi fi"
    cuisine = choices("Seafood", "Italian", "Indian")
    assert named_items(cuisine, "I want a seafood restaurant in Seattle") == ["Seafood"]  # "in" is not "Indian"
    assert named_items(cuisine, "a restaurant in Seattle") == [] and named_items({"type": "array"}, "x") == []
    park = ToolSpec(
        "park_find",
        "Find a park.",
        {
            "type": "object",
            "properties": {"city": {"type": "string"}, "amenities": {**amenities, "description": "Amenities."}},
            "required": ["city"],
        },
    )
    grammar = mentioned_required(park, "A park with a tennis court in Leeds", optionals=False).parameters
    assert grammar["properties"]["amenities"]["items"] == {"type": "string", "enum": ["Tennis Court"]}
    assert grammar["properties"]["amenities"]["minItems"] == grammar["properties"]["amenities"]["maxItems"] == 1
    assert grammar["required"] == ["city"] and park.parameters["properties"]["amenities"] == {
        **amenities, "description": "Amenities."
    }  # fmt: skip
    assert mentioned_required(park, "A park with a tennis court in Leeds", optionals=False, items=False) is park
    # an optional list of choices the request names none of is left out of the grammar (SmolLM2 filled it)
    grammar = mentioned_required(park, "A park in Leeds").parameters
    assert list(grammar["properties"]) == ["city"] and grammar["required"] == ["city"]
    asked = mentioned_required(park, "A park in Leeds with good amenities").parameters  # named by its own name
    assert grammar is not asked and "amenities" in asked["properties"] and "amenities" in asked["required"]
    # ... and so are an optional string of an enum and an optional flag ("driving": "highway" was made up)
    interval = ToolSpec(
        "service_interval",
        "Kilometers between oil changes.",
        {
            "type": "object",
            "properties": {
                "car_model": {"type": "string"},
                "driving": {"type": "string", "enum": ["city", "highway"], "default": "city"},
                "warranty_check": {"type": "boolean", "default": False},
            },
            "required": ["car_model"],
        },
    )
    assert list(mentioned_required(interval, "How often does a Golf 2021 need an oil change?").parameters[
        "properties"]) == ["car_model"]  # fmt: skip
    said = mentioned_required(interval, "Oil change for a Golf 2021 on the highway, with a warranty check?").parameters
    assert said["properties"]["driving"]["enum"] == ["highway"] and said["required"] == [
        "car_model",
        "driving",
        "warranty_check",
    ]


def test_a_choice_the_request_names_is_the_choice():
    from toollab.models.local_mentions import mentioned_required, named_choice

    outcome = {"type": "string", "enum": ["win", "loss", "draw"], "description": "Your result."}
    # SmolLM2 wrote "draw" for "after a loss against a 1600"
    assert named_choice(outcome, "What's my new rating at 1500 after a loss against a 1600?") == ["loss"]
    assert named_choice(outcome, "after a win or a draw") == ["win", "draw"]  # in the enum's order
    assert named_choice(outcome, "What's my new rating?") == []  # names none: any
    assert named_choice({"type": "integer", "enum": [1, 2]}, "1 or 2") == []  # strings only
    elo = ToolSpec(
        "elo_update",
        "New rating after a game.",
        {"type": "object", "properties": {"outcome": outcome}, "required": ["outcome"]},
    )
    grammar = mentioned_required(elo, "What if I lose? Or after a loss?").parameters
    assert grammar["properties"]["outcome"]["enum"] == ["loss"] and elo.parameters["properties"]["outcome"] == outcome
    assert mentioned_required(elo, "after a loss", items=False) is elo


def test_a_required_value_the_request_never_gave_is_unfounded():
    from toollab.models.local_mentions import unfounded

    profit = ToolSpec(
        "calculate_profit",
        "Profit of a business.",
        {
            "type": "object",
            "properties": {
                "total_revenue": {"type": "number"},
                "total_cost": {"type": "number"},
                "tax_rate": {"type": "number"},
                "currency": {"type": "string", "enum": ["USD", "EUR"]},
                "detailed": {"type": "boolean"},
            },
            "required": ["total_revenue", "total_cost", "tax_rate", "currency", "detailed"],
        },
    )

    def call(**arguments: object) -> ToolCall:
        return ToolCall(id="1", name="calculate_profit", arguments=arguments)

    given = {"total_revenue": 15000, "total_cost": 22000.0, "currency": "EUR", "detailed": True}
    asked = "The rate of return of a business with $15,000 total revenue and $22000 total cost?"
    assert unfounded([call(**given, tax_rate=0.2)], [profit], asked) == ["calculate_profit.tax_rate"]
    assert unfounded([call(**given, tax_rate=0.2)], [profit], asked + " Taxes are 0.2.") == []
    assert unfounded([call(**given)], [profit], asked) == ["calculate_profit.tax_rate"]  # left out
    assert unfounded([call(**given, tax_rate=0.2)], [profit], asked + " Taxes are 20%.") == []  # a percentage
    # a text counts as given when the request holds it or every word of it of three letters or more
    hotel = ToolSpec(
        "book", "Book.", {"type": "object", "properties": {"hotel": {"type": "string"}}, "required": ["hotel"]}
    )
    booked = ToolCall(id="2", name="book", arguments={"hotel": "Hilton Chicago"})
    assert unfounded([booked], [hotel], "a room at the Hilton in Chicago") == []
    assert unfounded([booked], [hotel], "a room in Chicago") == ["book.hotel"]
    country = ToolCall(id="3", name="book", arguments={"hotel": "Germany"})
    assert unfounded([country], [hotel], "key events of German history") == []  # by its stem
    assert unfounded([country], [hotel], "key events of Gerry's history") == ["book.hotel"]


def test_numbers_said_in_words_or_with_a_magnitude_are_given_in_digits():
    from toollab.models.local_mentions import unfounded
    from toollab.models.local_numbers import said_numbers

    assert said_numbers("A room for two nights for twenty-five people, the top five of them.") == ("2", "25", "5")
    assert said_numbers("Revenue of $2 million, then 1.267 billion and $1.2M.") == ("2000000", "1267000000", "1200000")
    assert said_numbers("Two hundred and one dalmatians") == ("201",)
    # a list said in words is read one number at a time as well (text2num reads "thirty, twenty and five" as 30, 25)
    assert said_numbers("Over thirty, twenty and five years.") == ("30", "25", "20", "5")
    assert said_numbers("Radius 5 km, $1,250,000, on the 2nd of May, a one-way ticket.") == ()  # digits are written
    assert said_numbers("\ud800 two \x00 nights") == ("2",)  # a lone surrogate or a control character is read past
    nights = ToolSpec("book", "Book.", {
        "type": "object", "properties": {"nights": {"type": "integer"}}, "required": ["nights"]
    })  # fmt: skip
    booked = [ToolCall(id="1", name="book", arguments={"nights": 2})]
    campaign = ToolSpec("progress", "Progress.", {
        "type": "object", "properties": {"campaign": {"type": "string"}}, "required": ["campaign"]
    })  # fmt: skip
    joined = [ToolCall(id="1", name="progress", arguments={"campaign": "MealsOnWheels"})]
    assert unfounded(joined, [campaign], "How close is the Meals on Wheels campaign?") == []  # words joined: given
    town = [ToolCall(id="1", name="progress", arguments={"campaign": "275,000"})]  # a number is not a text's words
    assert unfounded(town, [campaign], "A town of 275,000 people?") == ["progress.campaign"]
    assert unfounded(booked, [nights], "A single room for two nights.") == []  # turned down before
    assert unfounded(booked, [nights], "A single room for three nights.") == ["book.nights"]


@pytest.mark.slow
def test_arithmetic_said_in_words_calls_the_calculator_with_digits(steered):
    # the gate answered "What is twelve times three?" in words ("elve times three is twelve times three."): the
    # arithmetic check counted no number; called, grounding copied "twelve * 3", which the calculator refuses
    from toollab.models.switches import GATE

    asked = [UserMessage(content="What is twelve times three?")]
    reply = asyncio.run(steered["on"].request(asked, RequestParams(SPECS, "auto", gate=GATE)))
    assert [(c.name, c.args_as_dict()) for c in reply.message.tool_calls] == [("arith", {"expression": "12 * 3"})]


@pytest.mark.slow
def test_a_near_miss_that_needs_a_value_the_request_never_gave_is_answered_instead(steered):
    # a near miss: a city's density, offered its population in a census year; the gate lets it call and SmolLM2
    # makes a year up (2010). (It used to be a dev-set item, a town of 1,350,000 people, whose city SmolLM2 wrote
    # "town of 1,350,000": caught only because the value kept its separators; on an AMD EPYC it writes them without,
    # a phrase the request holds, with the year 88 of "88.0 square kilometers")
    from toollab.eval.bfcl.schema import tool_set
    from toollab.eval.synth.generate import families, function_doc
    from toollab.models.switches import GATE

    (population,) = [fn for f in families("dev") for fn in f.functions if fn.name == "city_population"]
    (spec,) = tool_set([function_doc(population)], keep_dots=False).specs
    asked = [UserMessage(content="What is the population density of Lisbon?")]
    reply = asyncio.run(steered["on"].request(asked, RequestParams([spec], "auto", gate=GATE)))
    gate = reply.metadata["gate"]
    assert gate["score"] >= GATE.threshold and "city_population.year" in gate["unfounded"], gate
    assert not reply.message.tool_calls and reply.message.content, reply.raw
    model = steered["on"]
    model.founded = False
    try:
        called = asyncio.run(model.request(asked, RequestParams([spec], "auto", gate=GATE)))
    finally:
        model.founded = True
    assert called.message.tool_calls, called.raw


@pytest.mark.slow
def test_dates_said_in_words_are_written_as_the_parameter_asks(steered):
    # a dev-set function: SmolLM2 copied "February 29th, 2028", and its second call of a list was cut as a repeat
    from toollab.eval.bfcl.schema import tool_set
    from toollab.eval.synth.generate import families, function_doc

    (prices,) = [fn for f in families("dev") for fn in f.functions if fn.name == "concert_ticket_prices"]
    (spec,) = tool_set([function_doc(prices)], keep_dots=False).specs
    asked = [UserMessage(content="Ticket prices for Lumen Choir, February 29th, 2028 and 9 September 2027?")]
    model = steered["on"]
    model.max_new_tokens = 160  # two calls
    try:
        reply = asyncio.run(model.request(asked, RequestParams([spec], "required")))
    finally:
        model.max_new_tokens = 96
    dates = [c.args_as_dict()["date"] for c in reply.message.tool_calls]
    assert dates == ["29-02-2028", "09-09-2027"], reply.raw
    # a value that reaches a date ends there: the date is the date parameter's ("... Old Town on the 2nd of May 2027")
    (ferry,) = [fn for f in families("dev") for fn in f.functions if fn.name == "ferry_sailings"]
    (spec,) = tool_set([function_doc(ferry)], keep_dots=False).specs
    asked = [UserMessage(content="Which ferries sail Harborfront to Old Town on the 2nd of May 2027?")]
    (call,) = asyncio.run(steered["on"].request(asked, RequestParams([spec], "required"))).message.tool_calls
    assert call.args_as_dict() == {"route": "Harborfront to Old Town", "date": "2027-05-02"}, call


@pytest.mark.slow
def test_a_place_value_keeps_its_region_where_the_description_asks_for_it(steered):
    # "The city and state": SmolLM2 wrote "Denver", then a second call for "Colorado"
    hospitals = ToolSpec(
        "hospital_locate",
        "Locate nearby hospitals.",
        {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. Denver, CO"},
                "radius": {"type": "integer", "description": "Radius in km."},
            },
            "required": ["location", "radius"],
        },
    )
    asked = [
        UserMessage(content="Find a hospital within 5 km radius around Boise, Idaho with a pediatrics department.")
    ]
    (call,) = asyncio.run(steered["on"].request(asked, RequestParams([hospitals], "required"))).message.tool_calls
    assert call.args_as_dict()["location"] in ("Boise, Idaho", "Boise, ID"), call
    # places listed with their regions: each call takes a place with its region (a region followed by another
    # place had read as the next item of a list, and the value stopped at "Porto")
    asked = [UserMessage(content="Hospitals within 5 km of Porto, Portugal and Bergen, Norway?")]
    calls = asyncio.run(steered["on"].request(asked, RequestParams([hospitals], "required"))).message.tool_calls
    assert sorted(c.args_as_dict()["location"] for c in calls) == ["Bergen, Norway", "Porto, Portugal"]


@pytest.mark.slow
def test_the_default_agent_calls_for_a_fitting_request_and_answers_from_the_result(steered):
    from toollab import Agent

    result = Agent(steered["on"], EVERYDAY_TOOLS, max_steps=4).run_sync("What is the weather like in Lima?")
    assert result.status == "completed", result
    called = [r for r in result.tool_results if r.name == "weather_now"]
    assert called and not called[0].is_error, result.tool_results
    assert called[0].content in (result.answer or ""), result.answer  # the answer is the result, not made up
    assert "<tool_response>" not in (result.answer or "")


@pytest.mark.slow
def test_a_voting_turn_with_demonstrations_decodes_five_candidates_the_same_way_each_time(steered):
    asked = [UserMessage(content="What tire pressure for a Model 3 2022?")]
    params = RequestParams([TIRES], "required")
    model = steered["voting"]
    assert "<tool_call>" in model.prompt(asked, [TIRES]).split("Model 3 2022")[0]  # a demonstration came first
    first = asyncio.run(model.request(asked, params))
    again = asyncio.run(model.request(asked, params))
    votes = first.metadata["votes"]
    assert votes["candidates"] == 5 and 1 <= votes["agreeing"] <= 5, votes
    assert first.raw == again.raw and first.metadata["votes"] == again.metadata["votes"]  # seeded by the prompt
    (call,) = first.message.tool_calls
    assert call.name == TIRES.name and call.parse_error is None
    one = len(model.load().tokenizer(first.raw)["input_ids"])
    assert first.usage.output_tokens > 2 * one  # every candidate's tokens are counted


def test_a_request_that_states_its_cases_with_ordinals_splits_into_one_case_a_part():
    from toollab.models.local_parts import request_parts

    circles = (
        "What is the total circumference of three circles, where the first circle has a radius of 5cm, the second "
        "circle has a radius of 10cm, and the third circle has a radius of 15cm?"
    )
    parts = request_parts(circles)
    stem = "What is the total circumference of three circles, where"
    assert [p.request for p in parts] == [
        f"{stem} the first circle has a radius of 5cm?",
        f"{stem} the second circle has a radius of 10cm?",
        f"{stem} the third circle has a radius of 15cm?",
    ]
    assert not any(p.several for p in parts)  # a case is one call, though "and" joins its values
    trips = (
        "I have two trips. The first goes from Lisbon to Porto and back. The second from Bergen to Oslo. "
        "How long is each?"
    )
    assert [p.request for p in request_parts(trips)] == [
        "I have two trips. The first goes from Lisbon to Porto and back. How long is each?",
        "I have two trips. The second from Bergen to Oslo. How long is each?",
    ]  # a closing sentence about them all goes with every case; one that is not stays with the last
    numbered = request_parts("Two things, please. First: How far apart do beans and carrots go? Second, is it warm?")
    assert [(p.request, p.several) for p in numbered] == [
        ("How far apart do beans and carrots go?", True),  # a list's marker is dropped, and a sentence that
        ("Is it warm?", False),  # only announces the asks: shown "I have two questions.", SmolLM2 made two calls
    ]
    for whole in (
        "Find the first 10 prime numbers.",  # one ordinal
        "Thanks, this is my 2nd question today.",
        "First, add 2 and 3. Second, multiply 4 by 5. Then tell me the first result.",  # an ordinal again
        "The second and the first.",  # out of order
        "First, 2. Second, 3.",  # a case with nothing to ask
    ):
        assert [p.request for p in request_parts(whole)] == [whole], whole


def test_a_request_that_numbers_its_asks_where_sentences_open_splits_at_the_numbers():
    from toollab.models.local_parts import request_parts

    stem, tail = '"Could you help me with a few tasks?', 'Could you do these for me?"'
    asked = (
        f"{stem} First, I need the greatest common divisor of 48 and 36. Secondly, who won Riverside Rovers vs "
        "Old Town Athletic? Lastly, I'm working on a music project. The first note is 440 Hz and the tempo is 100 "
        f"beats per minute. {tail}"
    )
    assert [p.request for p in request_parts(asked)] == [
        f"{stem} I need the greatest common divisor of 48 and 36. {tail}",
        f"{stem} Who won Riverside Rovers vs Old Town Athletic? {tail}",
        f"{stem} I'm working on a music project. The first note is 440 Hz and the tempo is 100 beats per minute. "
        f"{tail}",
    ]  # "Lastly" does not split the request alone, and its case keeps all its sentences and its "first" note
    for whole in (
        "Secondly, add 2 and 3. Thirdly, add 4 and 5.",  # no first
        "First, add 2 and 3. Thirdly, add 4 and 5.",  # out of order
        "First, add 2 and 3. Second, multiply 4 by 5. Then tell me the first result.",  # leans on a result
    ):
        assert [p.request for p in request_parts(whole)] == [whole], whole


@pytest.mark.slow
def test_a_request_of_several_parts_gets_a_call_for_each_part(steered):
    # a dev-set item: decoded whole, the shipped adapter writes one call (for the third question); part by part,
    # one call for each question, in the request's order
    score = ToolSpec("final_score", "Score of the last match between two teams.", {
        "type": "object",
        "properties": {"home": {"type": "string", "description": "Home team."},
                       "away": {"type": "string", "description": "Away team."}},
        "required": ["home", "away"],
    })  # fmt: skip
    parts = [
        "What was the score of Old Town Athletic against Harbor City FC?",
        "Who won Harbor City FC vs Northfield United?",
        "What was the score of Riverside Rovers against Old Town Athletic?",
    ]
    asked = [UserMessage(content=" Also: ".join(parts))]
    model, was = steered["on"], steered["on"].decompose
    try:
        model.decompose = True
        reply = asyncio.run(model.request(asked, RequestParams([score], "required")))
        model.decompose = False
        whole = asyncio.run(model.request(asked, RequestParams([score], "required")))
    finally:
        model.decompose = was
    # which team of "A vs B" the model calls home is its own reading, and flips with the CPU's rounding (on an AMD
    # EPYC it swaps the second pair; where the test was written it did not): the parts are what this test asks
    teams = [{c.args_as_dict()["home"], c.args_as_dict()["away"]} for c in reply.message.tool_calls]
    assert teams == [
        {"Old Town Athletic", "Harbor City FC"},
        {"Harbor City FC", "Northfield United"},
        {"Riverside Rovers", "Old Town Athletic"},
    ], reply.raw
    assert reply.metadata["parts"] == parts and len({c.id for c in reply.message.tool_calls}) == 3
    assert len(whole.message.tool_calls) < 3 and "parts" not in whole.metadata, whole.raw


@pytest.mark.slow
def test_a_copy_goes_on_letter_by_letter_where_the_tokens_split_the_words_differently(steered):
    # the request holds ` Summit` as one token; a value opens without the space, with `S`, which no source token
    # follows: SmolLM2 went on with `uit` and wrote "Suitcase Path" (5 items of the dev set's first 30 a category)
    import torch

    from toollab.models.local_steering import PENALTY, Grounding, _vocabulary

    asked = "What's the elevation gain of Summit Path in meters?"
    tokenizer = steered["on"].load().tokenizer
    grounding = Grounding(tokenizer, asked, "", 3.0, HERMES, "finish")
    text = '<tool_call>\n{"name": "trail_climb", "arguments": {"trail": "S'
    logits = torch.zeros(len(tokenizer))
    grounding.bias(logits, tokenizer(text, add_special_tokens=False)["input_ids"], text)
    pieces = _vocabulary(tokenizer)
    assert logits[pieces["umm"]] > logits[pieces["um"]] > logits[pieces["u"]] > 0 == logits[pieces["uit"]]
    logits = torch.zeros(len(tokenizer))
    grounding.bias(logits, [], text[:-1] + "Suitcase")  # the source holds no word that starts so: nothing to go on
    assert logits[pieces["um"]] == 0
    # only the rest of a word: at a word's end the value may stop (BFCL's "Gold" ran on to "Gold price per ounce")
    assert grounding._next_letters("Summit") == {} and grounding._next_letters("Summit ") == {}
    assert {tokenizer.decode([t]) for t in grounding._next_letters("Su")} == {"m", "mm"}
    climb = ToolSpec("trail_climb", "Total climb of a trail.", {
        "type": "object",
        "properties": {"trail": {"type": "string", "description": "Trail name."},
                       "unit": {"type": "string", "description": "Unit of the answer.", "enum": ["meters", "feet"]}},
        "required": ["trail"],
    })  # fmt: skip
    reply = asyncio.run(steered["on"].request([UserMessage(content=asked)], RequestParams([climb], "required")))
    assert reply.message.tool_calls[0].args_as_dict()["trail"] == "Summit Path", reply.raw
    # a copy does not join the source's words with a capital: SmolLM2 wrote "MealOnWheels" for "Meals on Wheels"
    meals = Grounding(tokenizer, "How close is the Meals on Wheels campaign to its goal? Ask iPhone users.", "", 3.0,
                      HERMES, "finish")  # fmt: skip
    opened = '<tool_call>\n{"name": "campaign_progress", "arguments": {"campaign": "'
    # at a word's end the next may join it: "QuebecCity" (barred, SmolLM2 closed the value at "Quebec")
    cases = (("Meal", True, True), ("Meals", False, False), ("i", False, False), ("X", False, False))
    for value, capital, skip in cases:
        logits = torch.zeros(len(tokenizer))
        meals.bias(logits, [], opened + value)
        assert bool(logits[pieces["On"]] < -PENALTY / 2) is capital, value
        for piece in (" on", "on"):  # "Meal on Wheels" and "MealonWheels" skip the end of "Meals"
            assert bool(logits[pieces[piece]] < -PENALTY / 2) is skip, value
        assert logits[pieces["s"]] > -PENALTY / 2
        closing = tokenizer('"', add_special_tokens=False)["input_ids"][0]
        assert bool(logits[closing] < -PENALTY / 2) is (value == "Meal"), value  # inside a name: no "Meal"
    # at a word's end inside a name of capitalised words or numbers, the name goes on or the value closes:
    # SmolLM2 wrote "Model 2022" for "Model 3 2022" and "Riverside Riverside Rovers"
    names = Grounding(tokenizer, "Tires for my Model 3 2022? And where are Riverside Rovers?", "", 3.0, HERMES, "x")
    first = {w: tokenizer(w, add_special_tokens=False)["input_ids"][0] for w in ("3", "2", " Riverside", " Rovers")}
    logits = torch.zeros(len(tokenizer))
    names.bias(logits, [], opened + "Model ")
    assert logits[first["2"]] < -PENALTY / 2 < logits[first["3"]]
    logits = torch.zeros(len(tokenizer))
    names.bias(logits, [], opened + "Riverside")
    assert logits[first[" Riverside"]] < -PENALTY / 2 < logits[first[" Rovers"]]
    assert logits[tokenizer('"', add_special_tokens=False)["input_ids"][0]] < -PENALTY / 2  # nor does it close
    joined = tokenizer("Rovers", add_special_tokens=False)["input_ids"][0]  # "RiversideRovers": SmolLM2 wrote
    assert joined != first[" Rovers"] and logits[joined] < -PENALTY / 2  # "Blue LakeTrail", "BritishMuseum"
    closing = tokenizer('"', add_special_tokens=False)["input_ids"][0]
    for source, value, allowed, closes in (
        ("Book Spoke & Chain for Corolla 2019 owners.", "Spoke", " &", False),
        ("Book Spoke & Chain for Corolla 2019 owners.", "Corolla", " 2019", False),
        ("Book Spoke & Chain for Spoke riders.", "Spoke", " &", True),  # "Spoke riders": Spoke may end there
    ):
        logits = torch.zeros(len(tokenizer))
        Grounding(tokenizer, source, "", 3.0, HERMES, "x").bias(logits, [], opened + value)
        token = tokenizer(allowed, add_special_tokens=False)["input_ids"][0]
        assert logits[token] > -PENALTY / 2, value
        assert bool(logits[closing] > -PENALTY / 2) is closes, (source, value)
    # a free string value does not open with another parameter's choice: `language` is not "beginner", a `level`
    course = Grounding(tokenizer, "When does the beginner german course meet?", "", 3.0, HERMES, "x",
                       others=frozenset({("language", "beginner"), ("language", "advanced")}))  # fmt: skip
    beginner = tokenizer("beginner", add_special_tokens=False)["input_ids"][0]
    logits = torch.zeros(len(tokenizer))
    course.bias(logits, [], '<tool_call>\n{"name": "class_timetable", "arguments": {"language": "')
    assert logits[beginner] < -PENALTY / 2
    logits = torch.zeros(len(tokenizer))
    course.bias(logits, [], '<tool_call>\n{"name": "class_timetable", "arguments": {"level": "')
    assert logits[beginner] > -PENALTY / 2
    # outside a name of capitalised words, only the skip is barred: the word may end otherwise ("Portugal")
    portuguese = Grounding(tokenizer, "The Portuguese anthem's title?", "", 3.0, HERMES, "finish")
    logits = torch.zeros(len(tokenizer))
    portuguese.bias(logits, [], '<tool_call>\n{"name": "national_anthem", "arguments": {"country": "Portug')
    assert logits[pieces["al"]] > -PENALTY / 2 and logits[pieces[" an"]] < -PENALTY / 2
    # nor may it close before a plural's ending: SmolLM2 wrote "radish" for "radishes"
    radishes = Grounding(tokenizer, "How far apart should I plant radishes?", "", 3.0, HERMES, "finish")
    logits = torch.zeros(len(tokenizer))
    radishes.bias(logits, [], '<tool_call>\n{"name": "row_spacing", "arguments": {"vegetable": "radish')
    assert logits[tokenizer('"', add_special_tokens=False)["input_ids"][0]] < -PENALTY / 2 < logits[pieces["es"]]
    # ... nor go on with a comma: "cucumber, squash, beans" was one vegetable
    listed = Grounding(tokenizer, "Spacing for cucumbers, squash and beans?", "", 3.0, HERMES, "finish")
    logits = torch.zeros(len(tokenizer))
    listed.bias(logits, [], '<tool_call>\n{"name": "row_spacing", "arguments": {"vegetable": "cucumber')
    assert logits[tokenizer(",", add_special_tokens=False)["input_ids"][0]] < -PENALTY / 2 < logits[pieces["s"]]
    # ... and what goes on with the word itself is never a skip, though it opens as the next word does
    spanish = Grounding(tokenizer, "The first has language spanish and level beginner.", "", 3.0, HERMES, "finish")
    logits = torch.zeros(len(tokenizer))
    spanish.bias(logits, [], '<tool_call>\n{"name": "class_timetable", "arguments": {"language": "sp')
    assert logits[pieces["anish"]] > -PENALTY / 2 and logits[pieces[" and"]] < -PENALTY / 2
    from toollab.eval.bfcl.schema import tool_set
    from toollab.eval.synth.generate import families, function_doc

    (campaign,) = [fn for f in families("dev") for fn in f.functions if fn.name == "campaign_progress"]
    (spec,) = tool_set([function_doc(campaign)], keep_dots=False).specs
    reply = asyncio.run(steered["on"].request(
        [UserMessage(content="How close is the Meals on Wheels campaign to its $2,000,000 goal?")],
        RequestParams([spec], "required"),
    ))  # fmt: skip
    assert reply.message.tool_calls[0].args_as_dict()["campaign"] == "Meals on Wheels", reply.raw
    # cases side by side are one part each (`local_cases`): SmolLM2 wrote one call for both before
    (invest,) = [fn for f in families("dev") for fn in f.functions if fn.name == "investment_future_value"]
    (spec,) = tool_set([function_doc(invest)], keep_dots=False).specs
    asked = "What will $250,000 be worth after 30 years at 5% and after 20 years at 4%?"
    reply = asyncio.run(steered["on"].request([UserMessage(content=asked)], RequestParams([spec], "required")))
    calls = [c.args_as_dict() for c in reply.message.tool_calls]
    assert sorted((c["years"], c["annual_yield"]) for c in calls) == [(20, 0.04), (30, 0.05)], reply.raw
    # "respectively" pairs the lists' k-th items, one part each: the pairs were crossed before
    (density,) = [fn for f in families("dev") for fn in f.functions if fn.name == "population_density"]
    (spec,) = tool_set([function_doc(density)], keep_dots=False).specs
    asked = "What is the density of towns of 275,000, 48,200 and 9,800 people over 12.5, 310 and 88 km², respectively?"
    reply = asyncio.run(steered["on"].request([UserMessage(content=asked)], RequestParams([spec], "required")))
    calls = [c.args_as_dict() for c in reply.message.tool_calls]
    assert sorted((c["population"], c["area_km2"]) for c in calls) == [(9800, 88), (48200, 310), (275000, 12.5)]


def test_a_free_string_parameter_is_told_the_choices_of_its_tools_other_parameters():
    from toollab.models.local_mentions import others_choices

    course = ToolSpec("class_timetable", "When a course meets.", {
        "type": "object",
        "properties": {"language": {"type": "string"}, "level": {"type": "string", "enum": ["beginner", "Advanced"]},
                       "extras": {"type": "array", "items": {"type": "string", "enum": ["late night"]}}},
    })  # fmt: skip
    assert others_choices([course]) == {("language", "beginner"), ("language", "advanced")}  # one word, lowercased


def test_a_part_that_says_a_tools_name_in_full_gets_that_tool():
    from toollab.models.local_parts import best_tool

    def spec(name: str, description: str) -> ToolSpec:
        return ToolSpec(name, description, {"type": "object", "properties": {}})

    loans = [
        spec("loan_total_interest", "Total interest paid over the life of a loan."),
        spec("loan_monthly_payment", "Monthly payment of a loan, with or without insurance."),
    ]
    asked = "What is the monthly payment on a $1,250,000 loan at 5.0% over 10 years?"
    assert [t.name for t in best_tool(asked, loans)] == ["loan_monthly_payment"]
    assert [t.name for t in best_tool("How much interest do I pay in total on a loan?", loans)] == [
        "loan_total_interest"
    ]


def test_a_pronoun_for_a_name_its_clause_gives_does_not_lean_on_the_part_before():
    from toollab.models.local_parts import leans_back, request_parts

    assert not leans_back("how close is the Library Renewal campaign to its $48,500 goal?")
    assert not leans_back("is it safe to plant out in Porto yet?")  # the "it" of a question about a case
    for back in ("convert it to Fahrenheit.", "fetch it in genbank format.", "tell me the first result.", "its area?"):
        assert leans_back(back), back
    asked = "If I give $40 and my employer matches 50%, what is the total? Next, how close is Winter Coats to its goal?"
    assert [p.request for p in request_parts(asked)] == [
        "If I give $40 and my employer matches 50%, what is the total?",
        "How close is Winter Coats to its goal?",
    ]


def _tool(name: str, description: str, **parameters: str) -> ToolSpec:
    properties = {p: {"type": "string", "description": d} for p, d in parameters.items()}
    return ToolSpec(name, description, {"type": "object", "properties": properties, "required": list(properties)})


TRAVEL = [
    _tool("flight_book", "Book a flight between two cities with an airline.", origin="From", to="To", line="Airline"),
    _tool("hotel_book", "Book a hotel room in a city for a number of nights.", city="City", nights="Nights"),
    _tool("unit_convert", "Convert a temperature from Celsius to Fahrenheit.", value="Degrees Celsius"),
    _tool("city_weather", "Current weather and temperature of a city.", city="City"),
]


def test_a_sentence_that_asks_for_different_tools_splits_into_a_part_for_each():
    from toollab.models.local_parts import EachPart, Part, by_tools, tool_parts
    from toollab.retrieval import TopTools

    def split(request: str, tools: Sequence[ToolSpec] = TRAVEL) -> list[tuple[str, str | None]]:
        parts = by_tools([Part(request, False)], tools, 0.2883)
        return [(p.request, p.tool_of) for p in parts]

    booked = "Book a flight from Seattle to Boston with American Airlines and book a hotel in Boston for 4 nights."
    assert [r for r, _ in split(booked)] == [
        "Book a flight from Seattle to Boston with American Airlines.",
        "Book a hotel in Boston for 4 nights.",
    ]
    both = EachPart(TopTools(1, signal="dense"), floor=0.2883)  # each part keeps its own tool, not the best one's
    assert [t.name for t in both(booked, TRAVEL)] == ["flight_book", "hotel_book"]
    assert len(EachPart(TopTools(1, signal="dense"))(booked, TRAVEL)) == 1  # whole, the request keeps one
    # a sentence that only tells goes with the ask after it; a question after a condition is the condition's
    told = "I fly to Oslo on Friday with Norse Air. What is the weather in Oslo, and book me a hotel there for a night?"
    assert split(told)[0][0] == "I fly to Oslo on Friday with Norse Air. What is the weather in Oslo?"
    # a step on an earlier result is the chain's (after the result comes back), not a part: the request stays whole
    # an ask that gives no value of its own is shown with what came before it, and its own tool
    # ", and" before an article joins an ask for another tool: SmolLM2 made only the frost calls of it
    anthems = [
        _tool("national_anthem", "The national anthem of a country.", country="The country."),
        _tool("last_frost_estimate", "Estimate the last spring frost date for a city.", city="The city."),
    ]
    asked = "I want the national anthems of Chile and Peru, and the last frost dates for Cusco and Tallinn."
    assert split(asked, anthems) == [
        ("I want the national anthems of Chile and Peru.", "I want the national anthems of Chile and Peru"),
        ("The last frost dates for Cusco and Tallinn.", "The last frost dates for Cusco and Tallinn."),
    ]
    # so does ", and also" (SmolLM2 made only the density call of "the density of ..., and also population of ...")
    also = "Book a flight from Oslo to Rome, and also a hotel in Rome for 3 nights."
    assert [r for r, _ in split(also)] == ["Book a flight from Oslo to Rome.", "A hotel in Rome for 3 nights."]
    weather = "Book a hotel in Oslo for 2 nights. What will the weather be like?"
    assert split(weather) == [("Book a hotel in Oslo for 2 nights.", "Book a hotel in Oslo for 2 nights."),
                              (weather, "What will the weather be like?")]  # fmt: skip
    chained = "What is the weather in Oslo and convert the result to Fahrenheit?"
    assert split(chained) == [(chained, None)]
    # so does a bare "and" before an article; a first ask that names nothing is about what the last one is about
    # (SmolLM2 made one call of each)
    both_asks = "What's the weather and the price of a hotel room in Oslo?"
    hotel = [TRAVEL[1], TRAVEL[3]]
    assert [r for r, _ in split(both_asks, hotel)] == [
        "What's the weather in Oslo?",
        "The price of a hotel room in Oslo?",
    ]
    # ... and so does a bare "and" before a word of a tool's name
    bare = "Book a flight from Oslo to Rome and hotels in Rome for 2 nights."
    assert [r for r, _ in split(bare)] == ["Book a flight from Oslo to Rome.", "Hotels in Rome for 2 nights."]
    named = "Book a hotel in Oslo for 2 nights and the weather in Rome."
    assert [r for r, _ in split(named, hotel)] == ["Book a hotel in Oslo for 2 nights.", "The weather in Rome."]
    # one computation written in steps is one ask, though its steps' words fit different tools ("subtract" fits add)
    from toollab.tools import add, calculator, multiply

    steps = "Multiply 6 by 7, then subtract 2."
    assert split(steps, [calculator.spec, add.spec, multiply.spec]) == [(steps, None)]
    # one tool asked for, or one tool offered: nothing to split
    assert split("Book a flight from Oslo to Rome and book a flight from Rome to Paris.")[0][1] is None
    assert len(tool_parts(Part(booked, False), TRAVEL[:1], 0.2883)) == 1
    assert split(booked, TRAVEL[:1]) == [(booked, None)]


def test_two_lists_in_two_parameters_are_called_in_every_pairing_unless_paired_in_order():
    from toollab.models.local_mentions import crossed_next, pinned_next

    asked = "Find the winning percentage of Lakers and Bulls in NBA seasons 2018 and 2020."

    def call(team: str, season: int | float) -> ToolCall:
        return ToolCall(name="winning", arguments={"team": team, "season": season})

    # the first call takes an item of each list; the second the items left (`listed`); then the pairs left
    assert pinned_next([call("Lakers", 2018)], asked) == {"team": ['"Bulls"'], "season": ['"2020"', "2020"]}
    made = [call("Lakers", 2018), call("Bulls", 2020)]
    assert crossed_next(made, asked) == {"team": "Lakers", "season": "2020"}
    assert pinned_next(made, asked) == {"team": ['"Lakers"'], "season": ['"2020"', "2020"]}
    assert crossed_next([*made, call("Lakers", 2020)], asked) == {"team": "Bulls", "season": "2018"}
    assert crossed_next([*made, call("Lakers", 2020), call("Bulls", 2018.0)], asked) == {}
    assert crossed_next(made, asked.replace(".", ", respectively.")) == {}  # paired in order: two calls
    # one list, or more pairs than a turn's calls go up to: nothing to pair
    assert crossed_next([call("Lakers", 2018)], "The Lakers and Bulls in 2018?") == {}
    many = "Lakers, Bulls and Heat in 2018 and 2020?"
    assert crossed_next([call("Lakers", 2018)], many) == {}
    # a pair left is no padding, though each of its values was called before (`extra_call_cut` keeps it)
    from toollab.models.local_mentions import fills_pair

    crossed = written(*made, call("Bulls", 2018))
    assert extra_call_cut(crossed, HERMES, dedupe=True, request=asked) == written(*made)
    assert extra_call_cut(crossed, HERMES, dedupe=True, request=asked, fills_pair=fills_pair) is None
    again = written(*made, call("Bulls", 2020))  # a pair called already stays cut
    assert extra_call_cut(again, HERMES, dedupe=True, request=asked, fills_pair=fills_pair) == written(*made)


def test_a_pairs_names_go_to_the_parameters_in_the_order_the_request_writes_them():
    from toollab.models.local_mentions import in_written_order

    score = ToolSpec(
        "final_score",
        "Score of the last match between two teams.",
        {"type": "object", "properties": {"home": {"type": "string"}, "away": {"type": "string"}}},
    )
    swapped = ToolCall(id="a", name="final_score", arguments={"home": "Northfield United", "away": "Harbor City FC"})
    (fixed,) = in_written_order([swapped], [score], "Who won Harbor City FC vs Northfield United?")
    assert fixed.arguments == {"home": "Harbor City FC", "away": "Northfield United"}
    # as written, or with no pair in the request, the call stays as it is
    assert in_written_order([swapped], [score], "Who won Northfield United vs Harbor City FC?") == [swapped]
    assert in_written_order([swapped], [score], "Who won between Harbor City FC and Northfield United?") == [swapped]
    # a range's two numbers: the first to the number parameter listed first
    area = ToolSpec("area", "Area under a curve.", {"type": "object", "properties": {"lower": {}, "upper": {}}})
    upside = ToolCall(id="b", name="area", arguments={"lower": 1250.0, "upper": 2.5})
    (ranged,) = in_written_order([upside], [area], "Integrate it from 2.5 to 1,250.0.")
    assert ranged.arguments == {"lower": 2.5, "upper": 1250.0}
    assert in_written_order([upside], [area], "Integrate it between 1250 and 2.5.") == [upside]
    # one end taken twice: both ends, as the schema's type (SmolLM2 wrote lower 8.0 and upper 8.0 for 0.8 to 8.0)
    twice = ToolCall(id="c", name="area", arguments={"lower": 8.0, "upper": 8.0})
    assert in_written_order([twice], [area], "Integrate it from 0.8 to 8.0.")[0].arguments == {
        "lower": 0.8,
        "upper": 8.0,
    }
    counts = ToolCall(id="d", name="area", arguments={"lower": 5, "upper": 5})
    assert in_written_order([counts], [area], "Count from 2 to 5.")[0].arguments == {"lower": 2, "upper": 5}
    # an end two ranges share, or a range of one number: which is meant is not known
    assert in_written_order([twice], [area], "Integrate from 0.8 to 8.0, then between 1 and 8.0.") == [twice]
    assert in_written_order([counts], [area], "From 5 to 5.") == [counts]


def test_a_list_a_text_parameter_took_an_item_of_goes_whole_to_the_array_and_the_text_takes_the_name_outside():
    from toollab.models.local_mentions import lists_kept_whole

    def tool(name: str, text: str, array: str) -> ToolSpec:
        listed = {"type": "array", "items": {"type": "string"}}
        return ToolSpec(name, "", {"type": "object", "properties": {text: {"type": "string"}, array: listed}})

    def kept(spec: ToolSpec, arguments: dict[str, object], request: str) -> dict[str, object]:
        return lists_kept_whole([ToolCall(id="a", name=spec.name, arguments=arguments)], [spec], request)[0].arguments

    clashes, basket = tool("set_times", "festival", "bands"), tool("basket_cost", "store", "products")
    asked = "Check set times for Neon Fields and The Lanterns in Daejeon."  # what SmolLM2 wrote:
    wrote = {"festival": "Neon Fields", "bands": ["The Lanterns in Daejeon"]}
    assert kept(clashes, wrote, asked) == {"festival": "Daejeon", "bands": ["Neon Fields", "The Lanterns"]}
    asked = "What would apples, rice and bottled water cost at The Green Fork?"
    wrote = {"store": "apples", "products": ["apples", "rice", "bottled water"]}  # its own items stay whole
    assert kept(basket, wrote, asked) == {"store": "The Green Fork", "products": ["apples", "rice", "bottled water"]}
    # right already; no single name outside the list; the array holding something else: left as they were
    right = {"store": "The Green Fork", "products": ["apples", "rice", "bottled water"]}
    assert kept(basket, right, asked) == right
    two = "Price tofu and garlic at Casa Lume or at Sakura Bar."
    assert kept(basket, {"store": "tofu", "products": ["garlic"]}, two) == {"store": "tofu", "products": ["garlic"]}
    other = {"festival": "Oslo", "bands": ["The Lanterns"]}
    assert kept(clashes, other, "Do The Lanterns play in Oslo and Bergen?") == other


def test_a_number_two_parameters_took_once_written_leaves_the_later_the_number_no_parameter_holds():
    from toollab.models.local_mentions import numbers_apart

    density = ToolSpec("density", "", {"type": "object", "properties": {"population": {}, "area_km2": {}}})

    def apart(arguments: dict[str, object], request: str) -> dict[str, object]:
        return numbers_apart([ToolCall(id="a", name="density", arguments=arguments)], [density], request)[0].arguments

    # what SmolLM2 wrote on an AMD EPYC for a part of a "respectively" request
    asked = "What is the density of towns of 9,800 people over 88 km²?"
    assert apart({"population": 9800, "area_km2": 9800}, asked) == {"population": 9800, "area_km2": 88}
    # written twice, or more than one number left: which is meant is not known
    assert apart({"population": 5, "area_km2": 5}, "5 people over 5 km²") == {"population": 5, "area_km2": 5}
    both = {"population": 9800, "area_km2": 9800}
    assert apart(both, "9,800 people over 88 or 12 km²") == both


def test_a_number_goes_on_past_its_point_only_as_the_source_writes_it(steered):
    import torch

    from toollab.models.local_steering import PENALTY, Grounding, _vocabulary

    tokenizer = steered["on"].load().tokenizer
    pieces = _vocabulary(tokenizer)
    loan = Grounding(tokenizer, "A $250,000 loan at 3%, 4.25%, and 5% over 30 years?", "", 3.0, HERMES, "finish")
    opened = '<tool_call>\n{"name": "loan", "arguments": {"annual_rate": '
    for written, allowed, barred in (("4.", "2", "5"), ("4.2", "5", "0"), ("3.", "0", "5")):
        logits = torch.zeros(len(tokenizer))
        loan.bias(logits, [], opened + written)
        assert logits[pieces[allowed]] > -PENALTY / 2 > logits[pieces[barred]], written
