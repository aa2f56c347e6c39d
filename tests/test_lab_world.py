"""The countries world: its facts, search, tools, tasks and answer checking, and the plan-first protocol."""

from __future__ import annotations

import asyncio

import pytest

from toollab.harness import Dispatcher
from toollab.lab import Tamper, countries_tools, generate_tasks, is_correct
from toollab.lab.countries.data import COUNTRIES, POPULATION_MAX, POPULATION_MIN, country
from toollab.lab.countries.judging import COMPUTED_WRONG, REMEMBERED_WRONG, UNEXPLAINED, error_kind
from toollab.lab.countries.search import default_index
from toollab.lab.countries.tasks import KINDS, STEPS, read_question
from toollab.lab.strategies.plans import Step, parse_plan, render_plan
from toollab.lab.strategies.solvers import run_plan
from toollab.models import call
from toollab.tools import Tool


def dispatch(tools, name, **arguments):
    return asyncio.run(Dispatcher(tools).dispatch(call(name, id="c1", **arguments)))


def test_sixty_countries_with_distinct_names_capitals_and_ranks():
    assert len(COUNTRIES) == 60
    assert len({c.name for c in COUNTRIES}) == len({c.capital for c in COUNTRIES}) == 60
    assert sorted(c.rank for c in COUNTRIES) == list(range(1, 61))
    assert all(POPULATION_MIN <= c.population <= POPULATION_MAX for c in COUNTRIES)
    assert country(" france ").population == country("France").population  # derived from the name only


def test_search_finds_every_country_from_its_capital_first():
    index = default_index()
    for c in COUNTRIES:
        assert index.top(f"capital {c.capital}", 1)[0].title.startswith(f"{c.name}:"), c.capital
    assert "No documents match" in index.search("the of and")


def test_tools_answer_and_errors_say_what_is_allowed():
    tools = countries_tools("clear")
    assert dispatch(tools, "lookup", country="peru", relation="capital").content == "Lima"
    assert dispatch(tools, "population", country="Peru").content == str(country("Peru").population)
    assert dispatch(tools, "calculator", expression="1200 + 3400").content == "4600"
    assert "Peru: geography" in dispatch(tools, "search", query="capital Lima").content.splitlines()[0]
    typo = dispatch(tools, "population", country="Frnace")
    assert typo.is_error and "Did you mean 'France'?" in typo.content
    wrong = dispatch(tools, "lookup", country="Peru", relation="population")  # the schema's enum refuses it
    assert wrong.is_error and wrong.error_kind == "invalid_arguments" and '"capital"' in wrong.content
    vague = dispatch(countries_tools("vague"), "lookup", country="Peru", relation="population")
    assert vague.is_error and "call the population tool" in vague.content  # no enum: the tool itself says it


def test_description_styles_differ_as_documented():
    vague, clear, example = (countries_tools(s) for s in ("vague", "clear", "example"))
    assert not any("description" in p for t in vague for p in t.parameters["properties"].values())
    lookup = {t.name: t for t in clear}["lookup"]
    assert lookup.parameters["properties"]["relation"]["enum"] == ["capital", "language", "export", "leader"]
    assert all("Example:" in t.description for t in example)
    assert [t.name for t in countries_tools(calculator=False)] == ["lookup", "population", "search"]
    with pytest.raises(ValueError, match="descriptions must be one of"):
        countries_tools("verbose")


def test_tamper_shifts_a_share_of_countries_quietly_and_records_them():
    tamper = Tamper(rate=0.5, shift=0.3, seed=3)
    tools = countries_tools(tamper=tamper)
    for c in COUNTRIES:
        dispatch(tools, "population", country=c.name)
    shifted = [(name, value) for name, value, tampered in tamper.served if tampered]
    assert 15 < len(shifted) < 45
    for name, value in shifted:
        assert abs(value / country(name).population - 1) == pytest.approx(0.3, abs=0.001)
    assert all(value == country(name).population for name, value, tampered in tamper.served if not tampered)


def test_tasks_are_seeded_balanced_and_their_answers_follow_from_the_world():
    tasks = generate_tasks(40, seed=5)
    assert tasks == generate_tasks(40, seed=5) and tasks != generate_tasks(40, seed=6)
    assert [t.kind for t in tasks[:4]] == list(KINDS)
    for t in tasks:
        assert read_question(t.question) is not None
        pops = [country(n).population for n in t.countries]
        if t.kind == "difference":
            assert int(t.answer) == pops[0] - pops[1] > 0
        elif t.kind == "sum":
            assert int(t.answer) == sum(pops)
        assert t.steps == STEPS[t.kind]
    with pytest.raises(ValueError, match="task kinds"):
        generate_tasks(3, kinds=("poetry",))


def test_read_question_inverts_every_template():
    kind, names, relation = read_question("What language is spoken in the country whose capital is Buenos Aires?")
    assert (kind, names, relation) == ("capital_language", ("Buenos Aires",), "")
    assert read_question("What language is spoken in Peru?") == ("fact", ("Peru",), "language")
    assert read_question("Task: How many more people, in thousands, live in A than in B?\nmore") is not None
    assert read_question("Tell me a joke.") is None


def test_answers_are_checked_on_the_final_part():
    task = next(t for t in generate_tasks(8, seed=1) if t.kind == "sum")
    total = int(task.answer)
    assert is_correct(task, f"Fact: population of X = 5\nAnswer: {total:,}")
    assert not is_correct(task, f"Answer: {total + 1}")
    assert not is_correct(task, None)
    fact = next(t for t in generate_tasks(20, seed=1) if t.kind == "fact" and t.relation == "capital")
    assert is_correct(fact, f"The capital is {fact.answer}.")
    assert not is_correct(fact, f"The capital is {fact.answer}ville.")


def test_single_stage_errors_are_split_by_the_facts_stated():
    task = next(t for t in generate_tasks(8, seed=2) if t.kind == "difference")
    a, b = (country(n) for n in task.countries)
    facts = f"Fact: population of {a.name} = {a.population}\nFact: population of {b.name} = {b.population}\n"
    assert error_kind(task, facts + f"Answer: {task.answer}") is None
    assert error_kind(task, facts + f"Answer: {int(task.answer) + 10}") == COMPUTED_WRONG
    wrong = f"Fact: population of {a.name} = {a.population + 7}\nFact: population of {b.name} = {b.population}\n"
    assert error_kind(task, wrong + f"Answer: {int(task.answer) + 7}") == REMEMBERED_WRONG
    assert error_kind(task, "Answer: 12") == UNEXPLAINED


def test_plans_parse_and_render_round_trip():
    text = 'Plan: find A.\n#E1 = population[{"country": "Peru"}]\nnoise\n#E2 = calculator[{"expression": "#E1 + 1"}]'
    steps = parse_plan(text)
    assert [(s.number, s.tool, s.plan, s.refs) for s in steps] == [
        (1, "population", "find A.", set()),
        (2, "calculator", "", {1}),
    ]
    assert parse_plan(render_plan(steps)) == steps


def test_plan_steps_run_concurrently_and_references_are_substituted():
    barrier = asyncio.Barrier(2)  # both independent steps must be running at once to pass it

    async def wait(args):
        async with asyncio.timeout(5):
            await barrier.wait()
        return args["n"]

    tools = [Tool.from_schema("wait", "w", {"type": "object", "properties": {"n": {"type": "integer"}}}, wait)]
    tools += countries_tools()
    steps = [
        Step(1, "wait", '{"n": 20}'),
        Step(2, "wait", '{"n": 22}'),
        Step(3, "calculator", '{"expression": "#E1 + #E2"}'),
        Step(4, "lookup", '{"country": "#E9", "relation": "capital"}'),  # a step that does not exist
        Step(5, "calculator", "not json"),
        Step(6, "calculator", '{"expression": "#E5 * 2"}'),  # depends on a failed step
    ]
    evidence = asyncio.run(run_plan(steps, tools))
    assert [e.result for e in evidence[:3]] == ["20", "22", "42"]
    assert evidence[3].is_error and "#E9" in evidence[3].result
    assert evidence[4].is_error and "not JSON" in evidence[4].result
    assert evidence[5].is_error and "#E5" in evidence[5].result


def test_a_plan_that_refers_forward_or_in_a_cycle_cannot_run():
    steps = [Step(1, "calculator", '{"expression": "#E2"}'), Step(2, "calculator", '{"expression": "#E1"}')]
    evidence = asyncio.run(run_plan(steps, countries_tools()))
    assert all(e.is_error and "never ran" in e.result for e in evidence)
