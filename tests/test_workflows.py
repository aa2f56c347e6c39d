"""Workflow patterns: chain, route, parallel, orchestrator-workers, evaluator-optimizer, with the agent loop's
events, partial failures reported, step caps, and resume after a real kill."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import time

import pytest

from toollab.harness import Agent, ModelError, RunStatus, read_events
from toollab.harness.events import ModelResponded, StepFailed
from toollab.models.scripted import FunctionModel, ScriptedModel, call
from toollab.tools import tool
from toollab.workflows import (
    AgentStep,
    Chain,
    Check,
    EvaluatorOptimizer,
    OrchestratorWorkers,
    Parallel,
    Prompt,
    Route,
    TokensPerMinute,
    Workflow,
    agent_tool,
)


def last_user(messages) -> str:
    return messages[-1].content


def echo(prefix: str) -> FunctionModel:
    """A model that answers `prefix` + what it was asked."""
    return FunctionModel(lambda messages, tools: f"{prefix}{last_user(messages)}")


def test_a_chain_passes_each_output_on_and_names_every_step_in_its_events():
    events = []
    flow = Workflow(
        Chain(
            [Prompt(echo("a:"), name="first"), Check(lambda t: None), Prompt(echo("b:"), "<{input}>", name="second")]
        ),
        on_event=events.append,
    )
    result = flow.run_sync("x")
    assert result.status == RunStatus.COMPLETED and result.answer == "b:<a:x>"
    steps = [e.step for e in events if isinstance(e, ModelResponded)]
    assert steps == ["chain/first", "chain/second"]
    assert events[0].event == "run_start" and events[-1].event == "run_end"
    assert {e.run_id for e in events} == {result.run_id}


def test_a_gate_stops_the_chain_and_says_why():
    later = echo("never:")
    flow = Workflow(Chain([Prompt(echo(""), name="draft"), Check(lambda t: "too short" if len(t) < 5 else None),
                           Prompt(later, name="polish")]))  # fmt: skip
    result = flow.run_sync("abc")
    assert result.status == RunStatus.STOPPED and result.answer is None
    assert "too short" in result.error and later.last_params is None


def test_a_route_sends_the_input_to_the_branch_the_classifier_names():
    branches = {"billing": Prompt(echo("billing:")), "technical": Prompt(echo("tech:"))}
    classify = Prompt(FunctionModel(lambda m, t: "This is a Technical question."), name="classify")
    result = Workflow(Route(classify, branches)).run_sync("my router is down")
    assert result.answer == "tech:my router is down"

    lost = Prompt(FunctionModel(lambda m, t: "sales"), name="classify")
    failed = Workflow(Route(lost, branches)).run_sync("q")
    assert failed.status == RunStatus.MODEL_ERROR and "not one of: billing, technical" in failed.error
    assert Workflow(Route(lost, branches, default="billing")).run_sync("q").answer == "billing:q"


class Pages:
    """Three pages that take a while; `failing` ones raise. Counts how many run at once."""

    def __init__(self, seconds: dict[str, float], failing: frozenset[str] | set[str] = frozenset()):
        self.seconds, self.failing = seconds, failing
        self.now = self.most = 0

    def model(self, name: str) -> FunctionModel:
        async def read(messages, tools):
            self.now += 1
            self.most = max(self.most, self.now)
            try:
                await asyncio.sleep(self.seconds[name])
                if name in self.failing:
                    raise ModelError(f"{name} timed out", source="provider")
                return {"content": f"summary of {name}", "usage": {"input_tokens": 600, "output_tokens": 400}}
            finally:
                self.now -= 1

        return FunctionModel(read)


def test_parallel_runs_branches_at_once_and_never_hides_a_failed_one():
    pages = Pages({"page 1": 0.05, "page 2": 0.1, "page 3": 0.1}, failing={"page 2"})
    seen = []
    aggregate = Prompt(FunctionModel(lambda m, t: seen.append(last_user(m)) or "report"), name="aggregate")
    flow = Workflow(Parallel({p: Prompt(pages.model(p), name="read") for p in pages.seconds}, aggregate))
    result = flow.run_sync("summarise the site")
    assert pages.most == 3  # all at once
    assert result.status == RunStatus.PARTIAL and result.answer == "report"
    assert [(f.step, f.error) for f in result.failures] == [("parallel/page 2/read", "page 2 timed out")]
    told = seen[0]
    assert "2 of 3 branches answered." in told and "Failed: page 2: page 2 timed out" in told
    assert "## page 1\nsummary of page 1" in told and "## page 2" not in told


def test_parallel_fails_when_every_branch_fails():
    pages = Pages({"a": 0.0, "b": 0.0}, failing={"a", "b"})
    result = Workflow(Parallel({p: Prompt(pages.model(p)) for p in "ab"})).run_sync("x")
    assert result.status == RunStatus.MODEL_ERROR and "every branch failed" in result.error


def test_a_tokens_per_minute_budget_sets_the_concurrency():
    pages = Pages({f"p{i}": 0.02 for i in range(6)})
    budget = TokensPerMinute(2000, window=0.05)  # two requests of about 1,000 tokens fit at once
    flow = Workflow(Parallel({p: Prompt(pages.model(p)) for p in pages.seconds}, tokens_per_minute=budget,
                             estimate=1000))  # fmt: skip
    result = flow.run_sync("x")
    assert result.status == RunStatus.COMPLETED and result.answer.startswith("6 of 6 branches answered.")
    assert pages.most == 2 and budget.most_in_flight == 2
    assert result.usage.total_tokens == 6000
    assert flow.run_sync("again").status == RunStatus.COMPLETED  # a budget outlives one event loop


async def test_a_budget_lets_a_request_larger_than_itself_run_alone():
    budget = TokensPerMinute(100)
    await asyncio.wait_for(budget.acquire(500), timeout=1)
    budget.release(500, 0)


def test_orchestrator_hands_subtasks_to_agent_workers_and_caps_them():
    @tool
    def lookup(city: str) -> str:
        """Looks up a city's population."""
        return {"Oslo": "709,000", "Bergen": "291,000"}.get(city, "unknown")

    def worker_model(messages, tools):
        if messages[-1].role == "tool":
            return call("finish", answer=f"{messages[-1].content} people")
        city = last_user(messages).split()[-1]
        return call("lookup", city=city)

    worker = AgentStep(Agent(FunctionModel(worker_model), [lookup]), name="researcher")
    plan = Prompt(FunctionModel(lambda m, t: "1. population of Oslo\n2. population of Bergen\n3. population of X"),
                  name="plan")  # fmt: skip
    told = []
    synthesise = Prompt(FunctionModel(lambda m, t: told.append(last_user(m)) or "Oslo is larger"), name="write")
    result = Workflow(OrchestratorWorkers(plan, worker, synthesise, max_workers=2)).run_sync("Which is larger?")
    assert result.status == RunStatus.COMPLETED and result.answer == "Oslo is larger"
    assert "## subtask 1\n709,000 people" in told[0] and "## subtask 2\n291,000 people" in told[0]
    assert "The plan had 3 subtasks; the first 2 ran" in told[0]
    delegated = [c.arguments["task"] for c in result.tool_calls]
    assert delegated == ["population of Oslo", "population of Bergen"]


def test_an_agent_exposed_as_a_tool_answers_another_agent():
    worker = Agent(ScriptedModel([call("finish", answer="42")]))
    boss = Agent(ScriptedModel([call("ask_worker", task="compute"), call("finish", answer="the worker says 42")]),
                 [agent_tool(worker, "ask_worker", "Hands a task to the worker agent.")])  # fmt: skip
    result = boss.run_sync("go")
    assert result.answer == "the worker says 42" and result.tool_results[0].content == "42"


def test_evaluator_optimizer_revises_until_accepted_and_reports_a_capped_loop():
    drafts = iter(["draft one", "draft two", "draft three"])
    generate = Prompt(FunctionModel(lambda m, t: next(drafts)), name="write")
    verdicts = iter(["Too vague: name the city.", "ACCEPT"])
    evaluate = Prompt(FunctionModel(lambda m, t: next(verdicts)), name="review")
    result = Workflow(EvaluatorOptimizer(generate, evaluate)).run_sync("task")
    assert result.status == RunStatus.COMPLETED and result.answer == "draft two"

    never = Prompt(FunctionModel(lambda m, t: "REJECT: still wrong"), name="review")
    writes = []
    generate = Prompt(FunctionModel(lambda m, t: writes.append(last_user(m)) or f"draft {len(writes)}"), name="write")
    capped = Workflow(EvaluatorOptimizer(generate, never, max_rounds=2)).run_sync("task")
    assert capped.status == RunStatus.MAX_STEPS and capped.answer == "draft 2"
    assert "A reviewer's critique:\nREJECT: still wrong" in writes[1]


def test_max_requests_caps_a_whole_workflow_and_step_names_must_be_unique():
    flow = Workflow(Chain([Prompt(echo(""), name=f"s{i}") for i in range(4)]), max_requests=2)
    result = flow.run_sync("x")
    assert result.status == RunStatus.MAX_STEPS and "2 model requests" in result.error
    same = Prompt(echo(""), name="same")
    with pytest.raises(ValueError, match="both named 'chain/same'"):
        Workflow(Chain([same, same])).run_sync("x")


def test_a_failed_step_is_an_event_and_the_run_ends_with_the_error():
    def broken(messages, tools):
        raise RuntimeError("backend bug")

    events = []
    result = Workflow(Chain([Prompt(FunctionModel(broken), name="one")]), on_event=events.append).run_sync("x")
    assert result.status == RunStatus.MODEL_ERROR and result.error_source == "harness"
    failed = [e for e in events if isinstance(e, StepFailed)]
    assert [(f.step, f.error) for f in failed] == [("chain/one", "RuntimeError: backend bug")]


SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from toollab.models.scripted import FunctionModel
    from toollab.workflows import Chain, Prompt, Workflow

    async def slow(messages, tools):
        await asyncio.sleep(3600)  # the process is killed here

    quick = FunctionModel(lambda m, t: m[-1].content + "+")
    steps = [Prompt(quick, name="one"), Prompt(quick, name="two"), Prompt(FunctionModel(slow), name="three")]
    flow = Workflow(Chain(steps))
    flow.run_sync("x", log=sys.argv[1])
    """
)


def test_a_killed_workflow_resumes_without_asking_finished_steps_again(tmp_path):
    log = tmp_path / "flow.jsonl"
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(log)])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and '"step": "chain/three"' in log.read_text():
                break
            time.sleep(0.05)
        else:
            pytest.fail("the workflow never reached its third step")
    finally:
        process.kill()
        process.wait()
    asked = []

    def model(messages, tools):
        asked.append(last_user(messages))
        return last_user(messages) + "!"

    again = Workflow(Chain([Prompt(model_one := FunctionModel(model), name="one"),
                            Prompt(model_one, name="two"), Prompt(model_one, name="three")]))  # fmt: skip
    result = again.resume_sync(log)
    assert result.status == RunStatus.COMPLETED and result.answer == "x++!"
    assert asked == ["x++"]  # only the unfinished step asked
    events = read_events(log)
    assert [e.event for e in events].count("run_start") == 1 and "run_resumed" in [e.event for e in events]
    assert events[-1].event == "run_end"
    assert again.resume_sync(log).answer == "x++!"  # an ended run returns its end
    with pytest.raises(ValueError, match="records the workflow"):
        Agent(ScriptedModel([])).resume_sync(log)


FLOW_FILE = textwrap.dedent(
    """
    from toollab.models.scripted import FunctionModel
    from toollab.workflows import Chain, Parallel, Prompt
    from toollab.harness import ModelError

    def fails(messages, tools):
        raise ModelError("page b is gone")

    pages = Parallel({"a": Prompt(FunctionModel(lambda m, t: "A."), name="read"),
                      "b": Prompt(FunctionModel(fails), name="read")},
                     Prompt(FunctionModel(lambda m, t: "joined: " + m[-1].content.splitlines()[-1]), name="join"))
    """
)


def test_the_cli_runs_a_workflow_file_live_and_as_json(tmp_path):
    from typer.testing import CliRunner

    from toollab.interfaces.cli import app

    path = tmp_path / "flows.py"
    path.write_text(FLOW_FILE)
    shown = CliRunner().invoke(app, ["workflow", "run", f"{path}:pages", "read the pages"])
    assert shown.exit_code == 0, shown.output
    assert "round 1: parallel/a/read" in shown.output and "step failed parallel/b/read: page b is gone" in shown.output
    assert "status partial" in shown.output
    out = CliRunner().invoke(app, ["workflow", "run", f"{path}:pages", "read the pages", "--json"])
    record = json.loads(out.stdout)
    assert record["status"] == "partial" and record["answer"] == "joined: A."
    assert record["failures"] == [{"step": "parallel/b/read", "error": "page b is gone"}]
    wrong = CliRunner().invoke(app, ["workflow", "run", f"{path}:ModelError", "x"])
    assert wrong.exit_code == 2 and "not a toollab Workflow" in wrong.output
