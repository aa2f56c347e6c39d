"""The simulated model and the lab's experiments: each runs, and its headline comparison comes out in the
direction its mechanism predicts. Two seeds each, so that no direction rests on one lucky draw."""

from __future__ import annotations

import asyncio
import json

import pytest
from provider_server import ProviderServer, openai_call, openai_reply

from toollab.formats import from_openai
from toollab.harness import Agent, RunStatus
from toollab.harness.messages import ToolResultMessage
from toollab.harness.request import RequestParams
from toollab.lab import EXPERIMENTS, Knobs, Settings, SimulatedModel, countries_tools, generate_tasks, react
from toollab.lab.experiments.errors import BareErrors
from toollab.lab.simulated.model import mistake_rate
from toollab.lab.strategies.solvers import plan_first, self_critique, single_stage
from toollab.models import OpenAIModel
from toollab.tools import ToolSpec

N = 60
SEEDS = (0, 1)


def experiment(name, seed, tmp_path=None, **knobs):
    model = SimulatedModel(Knobs(**knobs), seed=seed)
    out = tmp_path / name if tmp_path is not None else None
    return asyncio.run(EXPERIMENTS[name](Settings(model, n=N, seed=seed, out=out))).headline


@pytest.mark.parametrize("format", ["hermes", "pythonic", "mistral", "llama3_json", "text"])
def test_the_simulated_model_speaks_each_wire_format_through_the_harness(format):
    model = SimulatedModel(Knobs(clear_mistake=0.0), seed=0, format=format)
    for task in generate_tasks(4, seed=0):
        outcome = asyncio.run(react(model, task, countries_tools()))
        assert outcome.correct, (format, task.question, outcome.calls)
        assert all(not c.is_error for c in outcome.calls)
        assert outcome.tool_calls == task.steps


def test_runs_are_exactly_reproducible_and_seeds_differ():
    def answers(seed):
        model = SimulatedModel(seed=seed)
        return [asyncio.run(single_stage(model, t)).answer for t in generate_tasks(20, seed=0)]

    assert answers(0) == answers(0)
    assert answers(0) != answers(1)


def test_mistakes_follow_what_the_descriptions_give():
    knobs = Knobs()
    specs = {style: [t.spec for t in countries_tools(style)] for style in ("vague", "clear", "example")}
    assert mistake_rate(specs["vague"], knobs) == pytest.approx(knobs.vague_mistake)
    assert mistake_rate(specs["clear"], knobs) == pytest.approx(knobs.clear_mistake)
    assert mistake_rate(specs["example"], knobs) == pytest.approx(knobs.clear_mistake / 2)


def test_knobs_are_checked():
    with pytest.raises(ValueError, match="arithmetic_error"):
        Knobs(arithmetic_error=1.5)


def test_remembering_falls_with_popularity():
    model = SimulatedModel(seed=0)
    tasks = [t for t in generate_tasks(400, seed=0) if t.kind == "fact"]
    from toollab.lab.countries.data import country

    famous = [t for t in tasks if country(t.countries[0]).rank <= 20]
    obscure = [t for t in tasks if country(t.countries[0]).rank > 40]
    right = {
        label: sum(asyncio.run(single_stage(model, t)).correct for t in group) / len(group)
        for label, group in (("famous", famous), ("obscure", obscure))
    }
    assert right["famous"] > right["obscure"] + 0.25


def test_bare_errors_change_only_what_the_model_sees():
    seen = []

    class Spy:
        name = "spy"

        async def request(self, messages, params):
            seen.append([m.content for m in messages if isinstance(m, ToolResultMessage)])
            return await SimulatedModel(Knobs(vague_mistake=1.0, fix_bare=1.0), seed=0).request(messages, params)

    task = next(t for t in generate_tasks(8, seed=0) if t.kind == "fact")
    run = asyncio.run(Agent(BareErrors(Spy()), countries_tools("vague"), max_steps=4).run(task.question))
    errors = [m for m in run.messages if isinstance(m, ToolResultMessage) and m.is_error]
    assert errors and all(m.content != "error" for m in errors)  # the run's own history keeps the real text
    assert ["error"] in seen  # while the model saw only the bare word


def test_every_strategy_records_its_cost():
    model = SimulatedModel(seed=0)
    task = next(t for t in generate_tasks(8, seed=0) if t.kind == "sum")
    tools = countries_tools()
    outcomes = {
        "single": asyncio.run(single_stage(model, task)),
        "react": asyncio.run(react(model, task, tools)),
        "plan": asyncio.run(plan_first(model, task, tools)),
        "critique": asyncio.run(self_critique(model, task)),
        "critic": asyncio.run(self_critique(model, task, tools)),
    }
    assert outcomes["single"].model_calls == 1 and outcomes["single"].tool_calls == 0
    assert outcomes["plan"].model_calls == 2 and outcomes["plan"].tool_calls == 4
    assert outcomes["react"].model_calls >= 5  # four calls, then finish
    assert outcomes["critique"].model_calls == 2
    assert "draft_correct" in outcomes["critic"].extra
    for o in outcomes.values():
        assert o.input_tokens > 0 and o.output_tokens > 0 and o.seconds > 0
        assert len(o.input_per_call) == o.model_calls
        json.dumps(o.to_dict())


@pytest.mark.parametrize("seed", SEEDS)
def test_protocol_resends_the_whole_history(seed, tmp_path):
    h = experiment("protocol", seed, tmp_path)
    assert h["input grows every round"] == 1.0
    assert h["rounds"] >= 5
    assert h["input tokens sent"] > 4 * h["first round input tokens"]
    assert (tmp_path / "protocol" / "wire.txt").read_text().count("<tool_call>") >= 5


@pytest.mark.parametrize("seed", SEEDS)
def test_stages_tools_beat_memory_on_long_tasks_and_the_calculator_matters(seed, tmp_path):
    h = experiment("stages", seed, tmp_path)
    assert h["multi-step accuracy multi-stage"] > h["multi-step accuracy single-stage"] + 0.3
    assert h["arithmetic accuracy multi-stage"] > h["arithmetic accuracy multi-stage, no calculator"]
    assert h["model calls multi-stage"] > h["model calls single-stage"]
    assert h["single-stage remembered wrong"] > h["single-stage computed wrong"] > 0
    assert (tmp_path / "stages" / "accuracy_by_steps.png").stat().st_size > 1000
    lines = (tmp_path / "stages" / "outcomes.jsonl").read_text().splitlines()
    assert len(lines) == 3 * N


@pytest.mark.parametrize("seed", SEEDS)
def test_clear_descriptions_cost_tokens_and_save_mistakes(seed):
    h = experiment("descriptions", seed)
    assert h["accuracy clear"] > h["accuracy vague"]
    assert h["bad call share vague"] > h["bad call share clear"] >= h["bad call share example"]
    assert h["wrong tool per task vague"] > h["wrong tool per task clear"]
    assert h["prompt tokens vague"] < h["prompt tokens clear"] < h["prompt tokens example"]


@pytest.mark.parametrize("seed", SEEDS)
def test_specific_error_messages_prevent_loops(seed):
    h = experiment("errors", seed)
    assert h["looped bare 'error'"] > h["looped specific messages"]
    assert h["recovered specific messages"] > h["recovered bare 'error'"]
    assert h["tool calls bare 'error'"] > h["tool calls specific messages"]


@pytest.mark.parametrize("seed", SEEDS)
def test_planning_saves_rounds_when_steps_are_independent_and_loses_when_they_are_not(seed):
    h = experiment("planning", seed)
    react_, plan = "step by step (ReAct)", "plan first (ReWOO)"
    assert h[f"independent model calls {plan}"] == 2 < h[f"independent model calls {react_}"]
    assert h[f"independent tokens {plan}"] < h[f"independent tokens {react_}"]
    assert h[f"dependent accuracy {react_}"] > h[f"dependent accuracy {plan}"] + 0.15


@pytest.mark.parametrize("seed", SEEDS)
def test_critique_with_tools_fixes_more_than_it_breaks_and_without_them_does_not(seed):
    h = experiment("critique", seed)
    tools, alone = "critique with tools (CRITIC)", "self-critique, no tools"
    assert h[f"net {tools}"] > h[f"net {alone}"]
    assert h[f"fixed {tools}"] > h[f"fixed {alone}"]
    assert h[f"broken {alone}"] > h[f"broken {tools}"]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_sanity_check_catches_more_tampering_than_it_rejects_correct_results(seed):
    h = experiment("tamper", seed)
    assert h["caught at 0.2"] > h["rejected correct at 0.2"] + 0.3
    caught = [h[f"caught at {t}"] for t in (0.05, 0.1, 0.2, 0.3, 0.5)]
    rejected = [h[f"rejected correct at {t}"] for t in (0.05, 0.1, 0.2, 0.3, 0.5)]
    assert caught == sorted(caught, reverse=True) and rejected == sorted(rejected, reverse=True)
    assert h["accuracy untampered"] > h["accuracy tampered"]


@pytest.mark.parametrize("seed", SEEDS)
def test_code_actions_take_fewer_turns_and_make_the_same_calls_from_inside(seed):
    h = experiment("codeact", seed)
    json_, code = "JSON calls (ReAct)", "code actions"
    for described in ("clear", "vague"):
        assert h[f"model calls {code}, {described}"] < h[f"model calls {json_}, {described}"] - 0.5
        assert h[f"tokens {code}, {described}"] < h[f"tokens {json_}, {described}"]
    # the same model, the same mistakes and fixes: what changes is how many turns the calls take
    assert abs(h[f"accuracy {code}, clear"] - h[f"accuracy {json_}, clear"]) <= 0.05
    assert h[f"accuracy {code}, vague"] < h[f"accuracy {code}, clear"]
    # the phone task: five prices compared; one program loops over them, JSON calls take a turn each
    assert h[f"phone task model calls {code}, clear"] < h[f"phone task model calls {json_}, clear"] - 2
    assert h[f"phone task accuracy {code}, clear"] == h[f"phone task accuracy {json_}, clear"] == 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_flagging_cuts_obeying_a_planted_instruction_and_the_gate_stops_the_money(seed):
    h = experiment("injection", seed)
    assert h["obeyed no defence"] > 0.3 and h["sent no defence"] == h["obeyed no defence"]
    assert h["obeyed flagged as data"] < h["obeyed no defence"] - 0.25  # the note is read
    assert h["sent approval gate"] == h["sent flagged and gate"] == 0.0 < h["obeyed approval gate"]
    assert h["accuracy flagged as data"] >= 0.9  # flagged results still give their data


def test_a_planted_instruction_is_never_obeyed_when_the_model_does_not_fall_for_it():
    h = experiment("injection", 0, follow_injection=0.0, follow_flagged=0.0)
    assert all(h[f"obeyed {c}"] == 0.0 for c in ("no defence", "flagged as data", "approval gate"))


def test_a_mechanism_switched_off_removes_its_effect():
    """With perfect mental arithmetic the calculator stops mattering: the test above measures the mechanism."""
    h = experiment("stages", 0, arithmetic_error=0.0)
    assert h["arithmetic accuracy multi-stage, no calculator"] == h["arithmetic accuracy multi-stage"]


def test_an_experiment_runs_the_same_over_http(tmp_path):
    """The simulated model behind a real OpenAI-compatible server on 127.0.0.1: the comparison comes out exactly
    as in-process, so an experiment's `--model openai:...` path is the same harness end to end."""
    simulated = SimulatedModel(seed=2)

    def answer(body):
        tools = [
            ToolSpec(t["function"]["name"], t["function"].get("description", ""), t["function"]["parameters"])
            for t in body.get("tools", [])
        ]
        response = asyncio.run(simulated.request(from_openai(body["messages"]), RequestParams(tools)))
        m = response.message
        calls = [openai_call(f"call_{i}", c.name, json.dumps(c.arguments)) for i, c in enumerate(m.tool_calls)]
        usage = {"prompt_tokens": response.usage.input_tokens, "completion_tokens": response.usage.output_tokens}
        return openai_reply(m.content, calls, usage)

    with ProviderServer([answer] * 2000) as server:
        model = OpenAIModel("sim", base_url=server.url, api_key="sk-test")
        over_http = asyncio.run(EXPERIMENTS["planning"](Settings(model, n=12, seed=2))).headline
    in_process = asyncio.run(EXPERIMENTS["planning"](Settings(SimulatedModel(seed=2), n=12, seed=2))).headline
    assert {k: v for k, v in over_http.items() if "tokens" not in k} == {
        k: v for k, v in in_process.items() if "tokens" not in k
    }
    assert over_http == pytest.approx(in_process)


MODEL_FREE = {"retrieval"}  # compares retrievers; it never sends the model a request
OWN_RECORDS = {"rag"}  # asks the handbook's questions, recorded per strategy in answers.jsonl


# "retriever" trains retrievers and sends no request either; tests/test_retrieval_training.py runs it. "toolformer"
# trains its own small models (and uses SmolLM2 directly); tests/test_toolformer.py runs it on a tiny configuration
SELF_TRAINED = {"retriever", "toolformer"}


@pytest.mark.parametrize("name", [name for name in EXPERIMENTS if name not in SELF_TRAINED])
def test_a_failing_backend_costs_tasks_not_the_experiment(name, tmp_path):
    class Flaky:
        """Every third request raises, the first one included."""

        name = "flaky"

        def __init__(self):
            self.requests = 0
            self.model = SimulatedModel(seed=0)

        async def request(self, messages, params):
            self.requests += 1
            if self.requests % 3 == 1:
                raise RuntimeError("backend bug")
            return await self.model.request(messages, params)

    flaky = Flaky()
    report = asyncio.run(EXPERIMENTS[name](Settings(flaky, n=6, seed=0, out=tmp_path)))
    json.loads((tmp_path / "summary.json").read_text())
    if name in MODEL_FREE:
        assert flaky.requests == 0 and report.tables and not report.outcomes
        return
    if name in OWN_RECORDS:  # questions rather than the countries' tasks: answers.jsonl holds them
        answered = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
        assert report.tables and any(a["status"] == RunStatus.MODEL_ERROR for a in answered)
        return
    assert report.outcomes and report.tables
    assert any(o.status == RunStatus.MODEL_ERROR or not o.correct for o in report.outcomes)


def test_the_sanity_check_records_which_result_was_tampered_under_parallel_calls():
    from toollab import call
    from toollab.harness import Dispatcher
    from toollab.lab import Tamper
    from toollab.lab.countries.data import COUNTRIES
    from toollab.lab.experiments.tamper import sanity_checked

    tamper = Tamper(seed=0)
    flags = [tamper(c) != c.population for c in COUNTRIES]  # which countries this seed tampers
    mixed = [COUNTRIES[flags.index(True)], COUNTRIES[flags.index(False)]]
    tamper.served.clear()
    log = []

    async def slow_estimate(name):
        await asyncio.sleep(0.05 if name == mixed[0].name else 0)  # the first call waits while the second is served
        return 1000

    population = next(t for t in countries_tools(tamper=tamper) if t.name == "population")
    checked = sanity_checked(population, slow_estimate, tamper, log)
    calls = [call("population", {"country": c.name}, f"c{i}") for i, c in enumerate(mixed)]
    asyncio.run(Dispatcher([checked]).dispatch_all(calls))
    assert {e.country: e.tampered for e in log} == {mixed[0].name: True, mixed[1].name: False}
