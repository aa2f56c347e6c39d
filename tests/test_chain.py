"""The chain's step (`chain` switch): results that leave the request's arithmetic undone lead to one call of the
offered expression tool, whose result is then the answer."""

from __future__ import annotations

import json

import pytest

from toollab import Agent, tool
from toollab.harness.chain import arithmetic_left, asks_arithmetic, expression_tool, operators, written_expressions
from toollab.harness.messages import AssistantMessage, ToolResultMessage, UserMessage
from toollab.harness.request import CallPolicy, RequestParams
from toollab.harness.result import RunStatus
from toollab.models.local_mentions import ExpressionHint
from toollab.models.scripted import FunctionModel, call
from toollab.models.switches import Switches
from toollab.tools import ToolSpec

POPULATIONS = {"Laos": 27915, "Nigeria": 12665, "Peru": 41394}


@tool(idempotent=True)
def population(country: str) -> int:
    """The population of a country in thousands."""
    return POPULATIONS[country]


@tool(idempotent=True)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    from toollab.tools import calculator as evaluate

    return str(evaluate(expression=expression))


@tool
def word_tally(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


SPECS = [population.spec, calculator.spec, word_tally.spec]
CHAIN = CallPolicy(direct=True, chain=True)


def conversation(request: str, *calls_and_results: tuple[dict, str]) -> list:
    messages: list = [UserMessage(content=request)]
    calls = [call(name, args, f"c{i}") for i, ((name, args), _) in enumerate(calls_and_results)]
    messages.append(AssistantMessage(tool_calls=calls))
    for c, (_, result) in zip(calls, calls_and_results, strict=True):
        messages.append(ToolResultMessage(call_id=c.id, name=c.name, content=result))
    return messages


def test_an_expression_tool_is_one_whose_only_required_parameter_is_the_string_expression():
    assert expression_tool(SPECS) == "calculator"
    assert expression_tool([population.spec, word_tally.spec]) is None
    two = ToolSpec("calc", "x", {"type": "object", "properties": {"expression": {"type": "string"}, "base": {}},
                                 "required": ["expression", "base"]})  # fmt: skip
    assert expression_tool([two]) is None


def test_operators_are_read_from_the_words_of_the_request_not_its_quoted_data():
    assert operators("How many more people live in Laos than in Nigeria?") == "-"
    assert operators("What is the combined population of A, B and C?") == "+"
    assert operators("Count the words in 'add more plus' and multiply that count by 6.") == "*"
    assert operators("What is the capital of Peru?") == ""


def test_a_request_in_steps_leaves_the_operations_of_its_last_step_to_the_calculator():
    # SmolLM2 wrote "42.0 + 3" for this one: + and * were both offered, and "the total" is the step before's result
    assert operators("Add 17 and 25, then multiply the total by 3.") == "*"
    assert operators("Convert 10 GBP to USD, then add 30 to the result.") == "+"
    assert operators("Multiply 3 by 4, then tell me the weather.") == "*"  # no operation in the last step: all
    assert operators("What is the total of 3 and 4?") == "+"  # not a step: the total is what is asked


def test_a_request_that_asks_arithmetic_on_its_own_numbers_fits_an_offered_calculator():
    from toollab.tools import calculator

    tools = [calculator.spec]
    assert asks_arithmetic("How much is 3757 minus 165?", tools)  # MiniLM scored it under the gate's threshold
    assert asks_arithmetic("What is (5.0 + 3.0) * 2.0?", tools)  # written, not named
    assert not asks_arithmetic("How much is 3757 minus 165?", [t for t in tools if False])  # no calculator offered
    assert not asks_arithmetic("How many more people live in Laos than in Chad?", tools)  # no numbers given
    assert not asks_arithmetic("How many days from 2027-01-24 to 2027-04-11?", tools)  # dates are not operands
    assert not asks_arithmetic("Count the words in 'add 2 and 3'.", tools)  # quoted data


def test_arithmetic_is_left_when_the_request_asks_it_and_no_call_did_it():
    differ = "How many more people live in Laos than in Nigeria?"
    two = conversation(differ, (("population", {"country": "Laos"}), "27915"),
                       (("population", {"country": "Nigeria"}), "12665"))  # fmt: skip
    assert arithmetic_left(two, SPECS) == "calculator"
    assert arithmetic_left(two, [population.spec]) is None  # no calculator offered
    fact = conversation("What is the population of Peru?", (("population", {"country": "Peru"}), "41394"))
    assert arithmetic_left(fact, SPECS) is None  # nothing asked beyond the lookup
    # a number of the request that no call took asks for a step ("... by 6"); one a call took does not
    times = "Count the words in 'rain is expected tonight' and then 6 of them."
    counted = conversation(times, (("word_tally", {"text": "rain is expected tonight"}), "4"))
    assert arithmetic_left(counted, SPECS) == "calculator"
    took = conversation("How many words are in 'a b c 6'?", (("word_tally", {"text": "a b c 6"}), "4"))
    assert arithmetic_left(took, SPECS) is None
    # the calculator already ran for this request: no second step
    done = [*two, AssistantMessage(tool_calls=[call("calculator", {"expression": "27915 - 12665"}, "c9")]),
            ToolResultMessage(call_id="c9", name="calculator", content="15250")]  # fmt: skip
    assert arithmetic_left(done, SPECS) is None
    # results without a number leave nothing to compute
    words = conversation("Is Laos more humid than Nigeria?", (("population", {"country": "Laos"}), "humid"))
    assert arithmetic_left(words, SPECS) is None


def _two_lookups_then_the_calculator(seen: list[RequestParams]):
    model = None

    def turn(messages, tools):
        assert model is not None and model.last_params is not None
        seen.append(model.last_params)
        if len(seen) == 1:
            return [call("population", {"country": "Laos"}), call("population", {"country": "Nigeria"})]
        return call("calculator", {"expression": "27915 - 12665"})

    model = FunctionModel(turn)
    return model


def test_the_chain_step_calls_the_calculator_alone_and_its_result_is_the_answer():
    seen: list[RequestParams] = []
    model = _two_lookups_then_the_calculator(seen)
    result = Agent(model, [population, calculator], policy=CHAIN).run_sync(
        "How many more people live in Laos than in Nigeria?"
    )
    assert result.status == RunStatus.COMPLETED and result.answer == "15250"
    assert [p.tool_choice for p in seen] == ["auto", "calculator"]
    assert [t.name for t in seen[1].tools] == ["calculator"] and seen[1].parallel is False
    # without the chain the run ends with the lookups' numbers
    plain = Agent(_two_lookups_then_the_calculator([]), [population, calculator], policy=CallPolicy(direct=True))
    assert plain.run_sync("How many more people live in Laos than in Nigeria?").answer == "27915\n12665"


def test_a_run_killed_before_the_chain_step_resumes_with_it(tmp_path):
    log = tmp_path / "run.jsonl"
    seen: list[RequestParams] = []
    Agent(_two_lookups_then_the_calculator(seen), [population, calculator], policy=CHAIN).run_sync(
        "How many more people live in Laos than in Nigeria?", log=log
    )
    lines = log.read_text().splitlines()
    first_round = next(i for i, line in enumerate(lines) if json.loads(line)["event"] == "round_end")
    log.write_text("\n".join(lines[: first_round + 1]) + "\n")  # killed right after the lookups' round

    def step(messages, tools):
        return call("calculator", {"expression": "27915 - 12665"})

    resumed = FunctionModel(step)
    result = Agent(resumed, [population, calculator], policy=CHAIN).resume_sync(log)
    assert resumed.last_params is not None and resumed.last_params.tool_choice == "calculator"
    assert result.status == RunStatus.COMPLETED and result.answer == "15250"


def test_the_switch_sets_the_policy_and_the_local_models_expression_hint():
    on = Switches.parse("chain=on")
    assert on.policy().chain and on.local_options()["operands"]
    off = Switches.parse("chain=off")
    assert not off.policy().chain and not off.local_options()["operands"]


def test_the_expression_hint_holds_the_results_numbers_until_the_expression_has_them():
    named = RequestParams([calculator.spec], "calculator", parallel=False)
    combined = conversation("What is the combined population of A, B and C?",
                            (("population", {"country": "A"}), "92228"), (("population", {"country": "B"}), "34588"),
                            (("population", {"country": "C"}), "56483"))  # fmt: skip
    hint = ExpressionHint.of(combined, named)
    assert hint is not None and hint.operands == ("92228", "34588", "56483") and hint.operators == "+"
    assert ExpressionHint.of(combined, RequestParams([calculator.spec], "auto")) is None  # not the chain's step
    five = conversation("Sum them.", *((("population", {"country": c}), str(n)) for n, c in enumerate("ABCDE")))
    assert ExpressionHint.of(five, named) is None  # too many numbers to ask for all
    opened = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "'
    assert hint.left("<tool_call>\n{") is None  # not inside the expression yet
    assert hint.left(opened + "92228 + 34588") == ("56483",)
    assert hint.left(opened + "92228 + 34588 + 56483") == ()  # complete: it closes
    assert hint.left(opened + "92228 + 3400 + 285 + 285") == ()  # astray, with more numbers than it should hold


def test_while_a_result_is_missing_the_expression_takes_no_number_from_elsewhere():
    named = RequestParams([calculator.spec], "calculator", parallel=False)
    lookups = (("population", {"country": "17 and 25"}), "42"), (("population", {"country": "x"}), "7")
    added = conversation("Add 17 and 25, then multiply the total by 3.", *lookups)
    hint = ExpressionHint.of(added, named)
    assert hint is not None and hint.numbers == ("42", "7", "3")  # 17 and 25 went into a call already
    opened = '{"name": "calculator", "arguments": {"expression": "'
    assert hint.fits(opened, "4") and hint.fits(opened, "3") and not hint.fits(opened, "1")
    assert hint.fits(opened + "4", "2") and not hint.fits(opened + "4", "1")
    assert hint.fits(opened + "42 *", " 7") and not hint.fits(opened + "42 *", " 4")  # held already


def test_a_date_or_a_time_in_the_request_is_not_a_number_to_compute_with():
    # the model wrote another end date than the request's: a wrong call, not arithmetic left to do
    dates = conversation("How many days are there from 2027-06-10 to 2027-06-24?",
                         (("word_tally", {"text": "2027-06-10 2027-07-06"}), "26"))  # fmt: skip
    assert arithmetic_left(dates, SPECS) is None
    assert arithmetic_left(conversation("What is at 18:45 and 7?", (("word_tally", {"text": "x"}), "1")), SPECS)


def test_the_arithmetic_a_request_writes_out_is_read_when_it_holds_all_the_requests_numbers():
    assert written_expressions("What is (5.0 + 3.0) * 2.0?") == ["(5.0 + 3.0) * 2.0"]
    assert written_expressions("Calculate 3757-165.") == ["3757-165"]
    assert written_expressions("What is 2+2, and what is 3 × 4?") == ["2+2", "3 * 4"]  # as the calculator writes it
    assert written_expressions("Compute ((1+2)*(3+4))/7 please") == ["((1+2)*(3+4))/7"]
    assert written_expressions("What is 15% of (200 + 50)?") == []  # the 15 is asked too
    assert written_expressions("Is 10 - 3 more than 5?") == []
    assert written_expressions("What is 5 + 3) * 2?") == []  # a bracket closed that never opened
    assert written_expressions("How many days from 2024-01-05 to 2024-03-01?") == []  # dates
    assert written_expressions("Count the words in '1 + 1 = 2' please") == []  # quoted data
    # an operation said in a word between numbers in digits, as its operator; not "over", not a count of times
    assert written_expressions("How much is 3757 minus 165?") == ["3757 - 165"]
    assert written_expressions("What is 48 divided by 6 plus 2?") == ["48 / 6 + 2"]
    assert written_expressions("What is 12 times 3?") == ["12 * 3"]
    assert written_expressions("What is 20 over 5?") == [] and written_expressions("I ran 3 times in 20 days") == []


@pytest.mark.parametrize(
    ("request_", "written"),
    [
        ("What is 15% of 200?", "15 / 100 * 200"),
        ("How much is 5 percent of 120?", "5 / 100 * 120"),
        ("What is the sum of 4, 5 and 6?", "4 + 5 + 6"),  # SmolLM2 added 4 and 5 and multiplied 4 by 6: 33.0
        ("What is the total of 12, 40 and 7?", "12 + 40 + 7"),
        ("What is the product of 2, 3 and 4?", "2 * 3 * 4"),
        ("What is the mean of 3, 4, 5 and 6?", "(3 + 4 + 5 + 6) / 4"),
        ("What is the difference between 1,250 and 300?", "1250 - 300"),
        ("Add 4, 5 and 6 together.", "4 + 5 + 6"),
        ("Subtract 9 from 120.", "120 - 9"),
        ("Divide 100 by 4, then add 5 to the result.", "(100 / 4) + 5"),  # SmolLM2 added 100 and 5: 109.0
        ("Add 17 and 25, then multiply the total by 3.", "(17 + 25) * 3"),
        ("Multiply 3 by 4, then add 5, then divide the result by 2.", "((3 * 4) + 5) / 2"),
        ("Divide 100 by 4. Then add 5.", "(100 / 4) + 5"),
        ("What is half of 90?", "90 / 2"),
        ("What is the sum of 4, 5 and 6 times 2?", "(4 + 5 + 6) * 2"),  # what is said next applies to all of it
        ("What is 20% of 150 plus 10?", "(20 / 100 * 150) + 10"),
        ("What is 12 squared?", "12 * 12"),
        # numbers listed in brackets: the default agent added 12 and 7, then 12 and 30, and answered 61.0
        ("What is the sum of [12, 7, 30, 1]?", "12 + 7 + 30 + 1"),
        ("What is the average of [3, 4.5, 6]?", "(3 + 4.5 + 6) / 3"),
        ("Add up the numbers [1,250, 3].", "1 + 250 + 3"),  # in brackets a comma parts items
        ("Multiply together [2, 3, 4].", "2 * 3 * 4"),  # it multiplied 2 by 3, 3 by 4, then 6 by 12: 72.0
        ("Multiply 2, 3 and 4.", "2 * 3 * 4"),
        ("What is the sum of the numbers 12, 7 and 30?", "12 + 7 + 30"),
    ],
)
def test_arithmetic_said_in_words_is_written_out(request_: str, written: str) -> None:
    assert written_expressions(request_) == [written]
    assert asks_arithmetic(request_, [calculator.spec])  # "15% of 200" names no operation the gate reads


def test_the_steps_of_one_computation_are_one_part_and_other_asks_split_off() -> None:
    from toollab.models.local_parts import request_parts

    # "Subtract 2." alone had no number to subtract from: the default agent answered 42 and 4.0
    assert [p.request for p in request_parts("Multiply 6 by 7, then subtract 2.")] == [
        "Multiply 6 by 7, then subtract 2."
    ]
    assert [p.request for p in request_parts("What is 2 + 3. Then what is the weather in Oslo?")] == [
        "What is 2 + 3.",
        "What is the weather in Oslo?",
    ]
    assert len(request_parts("What is 2 + 3? Also, what is 4 * 5?")) == 2  # two computations


@pytest.mark.parametrize(
    "request_",
    [
        "Convert 120 USD to EUR, then add 7 to the result.",  # the 120 is a call's, not arithmetic's
        "In 2024, divide 100 by 4, then add 5.",  # a number outside the arithmetic
        "The bill is 80. What is a 15% tip?",  # not a phrasing read: left to the model
        "I have 3 apples and 4 pears; add them up.",
        "Count the words in 'the sum of 4, 5 and 6'.",  # quoted data
        "What is 10% of the sum of 100 and 50?",  # a percentage of a sum: not read, so the 10 is outside
        "What is the sum of [1, 2] and [3, 4]?",  # two lists: the second is not read, so its numbers are outside
        "What is the sum of [[1, 2], [3, 4]]?",  # a list of lists
        "What is the sum of [12, -7]?",  # a negative item: not read
    ],
)
def test_worded_arithmetic_that_leaves_a_number_out_or_is_not_read_is_not_written(request_: str) -> None:
    assert written_expressions(request_) == []


def test_written_arithmetic_goes_to_the_calculator_alone_with_what_it_writes_as_its_expression():
    from toollab.models.local_mentions import mentioned_required
    from toollab.models.local_parts import EachPart, best_tool, written_arithmetic

    adder = ToolSpec("add", "Add two numbers.", {"type": "object", "properties": {
        "a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]})  # fmt: skip
    tools = [adder, calculator.spec, population.spec]
    assert [t.name for t in written_arithmetic("What is 144 / 12 + 7?", tools)] == ["calculator"]
    assert written_arithmetic("What is 144 / 12 + 7?", [adder]) == []  # no calculator offered
    assert written_arithmetic("How many people live in Laos?", tools) == []
    assert [t.name for t in EachPart(lambda r, t: [t[0]])("What is 144 / 12 + 7?", tools)] == ["calculator"]
    both = "What is the population of Laos? Also: what is 2 + 3?"
    assert [t.name for t in EachPart(lambda r, t: [t[2]])(both, tools)] == ["calculator", "population"]
    assert [t.name for t in best_tool("What is 144 / 12 + 7?", tools)] == ["calculator"]
    assert [t.name for t in written_arithmetic("What is twelve times three?", tools)] == ["calculator"]  # in words
    shown = mentioned_required(calculator.spec, "What is (5.0 + 3.0) * 2.0?", expressions=True)
    assert shown.parameters["properties"]["expression"]["enum"] == ["(5.0 + 3.0) * 2.0"]
    assert calculator.spec.parameters["properties"]["expression"].get("enum") is None  # the tool is unchanged
    said = mentioned_required(calculator.spec, "What is twelve times three?", expressions=True)
    assert said.parameters["properties"]["expression"]["enum"] == ["12 * 3"]
    assert mentioned_required(calculator.spec, "What is (5.0 + 3.0) * 2.0?") is calculator.spec  # off by default
    assert mentioned_required(adder, "What is (5.0 + 3.0) * 2.0?", expressions=True) is adder
