"""The strategies: answer directly, step by step (ReAct), plan first (ReWOO), and self-critique without tools or
with them (CRITIC). Each takes a model, a task and the world's tools, and returns an `Outcome`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from toollab.formats.base import tools_jsonl
from toollab.harness import Agent
from toollab.harness.dispatch import Dispatcher
from toollab.harness.events import Event, ToolCalled
from toollab.harness.messages import Message, SystemMessage, ToolCall, UserMessage
from toollab.harness.model import Model
from toollab.harness.request import RequestParams
from toollab.harness.result import RunStatus
from toollab.lab.countries.tasks import Task, is_correct
from toollab.lab.strategies import prompts
from toollab.lab.strategies.base import Meter, Outcome, outcome, run_outcome
from toollab.lab.strategies.plans import Evidence, Step, decode_step_arguments, parse_plan, render_evidence
from toollab.sandbox import Executor
from toollab.tools import Tool

MAX_STEPS = 8


async def _ask(meter: Meter, messages: list[Message]) -> str | None:
    """One request without tools; its text, or None when the model failed."""
    try:
        response = await meter.request(messages, RequestParams())
    except Exception:  # a failed or broken backend costs this task, not the whole experiment
        return None
    messages.append(response.message)
    return response.message.content or response.raw or ""


def _status(answer: str | None) -> RunStatus:
    return RunStatus.COMPLETED if answer is not None else RunStatus.MODEL_ERROR


async def single_stage(model: Model, task: Task, tools: Sequence[Tool] = ()) -> Outcome:
    """Answer from the model's own knowledge in one request."""
    meter = Meter(model)
    answer = await _ask(meter, [SystemMessage(content=prompts.SINGLE), UserMessage(content=task.question)])
    return outcome(task, "single", meter, answer, status=_status(answer))


async def react(model: Model, task: Task, tools: Sequence[Tool], max_steps: int = MAX_STEPS) -> Outcome:
    """Think, act, observe: one model round per call, each seeing every result so far."""
    meter = Meter(model)
    run = await Agent(meter, tools, system_prompt=prompts.REACT, max_steps=max_steps).run(task.question)
    return run_outcome(task, "react", meter, run)


async def code_act(
    model: Model, task: Task, tools: Sequence[Tool], executor: Executor, max_steps: int = MAX_STEPS
) -> Outcome:
    """CodeAct: each turn the model writes a program that calls the tools as functions (run on `executor`);
    `extra` counts the tool calls made from inside the programs."""
    meter = Meter(model)
    inner: list[Event] = []

    def seen(event: Event) -> None:
        if isinstance(event, ToolCalled) and event.parent is not None:
            inner.append(event)

    agent = Agent(meter, tools, system_prompt=prompts.CODE, max_steps=max_steps, code_actions=executor, on_event=seen)
    run = await agent.run(task.question)
    return run_outcome(task, "code", meter, run, tool_calls_inside=len(inner))


async def run_plan(steps: list[Step], tools: Sequence[Tool]) -> list[Evidence]:
    """Run a plan's steps: each as soon as the steps it refers to are done, independent ones concurrently."""
    dispatcher = Dispatcher(tools)
    numbers = {s.number for s in steps}
    evidence: dict[int, Evidence] = {}
    remaining = list(steps)
    while remaining:
        ready = [s for s in remaining if s.refs <= set(evidence) or not s.refs & numbers]
        if not ready:  # a reference to a later step or a cycle: those steps cannot run
            for s in remaining:
                evidence[s.number] = Evidence(s.number, s.tool, s.arguments, "it refers to a step that never ran", True)
            break
        async with asyncio.TaskGroup() as group:
            jobs = {s.number: group.create_task(_run_step(s, evidence, dispatcher)) for s in ready}
        for number, job in jobs.items():
            evidence[number] = job.result()
        remaining = [s for s in remaining if s.number not in evidence]
    return [evidence[s.number] for s in steps]


async def _run_step(step: Step, evidence: dict[int, Evidence], dispatcher: Dispatcher) -> Evidence:
    failed = sorted(n for n in step.refs if n in evidence and evidence[n].is_error)
    if failed:
        return Evidence(step.number, step.tool, step.arguments, f"#E{failed[0]}, which it needs, failed", True)
    arguments = decode_step_arguments(step, {n: e.result for n, e in evidence.items()})
    if isinstance(arguments, str):
        return Evidence(step.number, step.tool, step.arguments, arguments, True)
    result = await dispatcher.dispatch(ToolCall(id=f"E{step.number}", name=step.tool, arguments=arguments))
    return Evidence(step.number, step.tool, arguments, result.content, result.is_error)


async def plan_first(model: Model, task: Task, tools: Sequence[Tool]) -> Outcome:
    """ReWOO: the model writes the whole plan, the executor runs it, one more request answers."""
    meter = Meter(model)
    system = f"{prompts.PLAN}\n{tools_jsonl([t.spec for t in tools])}"
    plan = await _ask(meter, [SystemMessage(content=system), UserMessage(content=task.question)])
    if plan is None:
        return outcome(task, "plan", meter, None, status=RunStatus.MODEL_ERROR)
    steps = parse_plan(plan)
    evidence = await run_plan(steps, tools)
    solver: list[Message] = [
        SystemMessage(content=prompts.SOLVE),
        UserMessage(content=f"{task.question}\n\nThe plan and its evidence:\n{render_evidence(evidence)}"),
    ]
    answer = await _ask(meter, solver)
    calls = [e.as_call() for e in evidence]
    return outcome(
        task,
        "plan",
        meter,
        answer,
        calls=calls,
        status=_status(answer),
        extra={"plan_steps": len(steps)},
    )


async def self_critique(model: Model, task: Task, tools: Sequence[Tool] = (), max_steps: int = MAX_STEPS) -> Outcome:
    """A direct answer, then a check of it: from memory alone when `tools` is empty, with the tools (CRITIC)
    otherwise. `extra` records whether the draft was right, to count answers fixed and broken."""
    meter = Meter(model)
    messages: list[Message] = [SystemMessage(content=prompts.SINGLE), UserMessage(content=task.question)]
    draft = await _ask(meter, messages)
    strategy = "critic" if tools else "critique"
    if draft is None:
        return outcome(task, strategy, meter, None, status=RunStatus.MODEL_ERROR, extra={"draft_correct": False})
    extra = {"draft": draft, "draft_correct": is_correct(task, draft)}
    if not tools:
        messages.append(UserMessage(content=prompts.CRITIQUE))
        answer = await _ask(meter, messages)
        return outcome(task, strategy, meter, answer, status=_status(answer), extra=extra)
    run = await Agent(meter, tools, max_steps=max_steps).run(prompts.CRITIC, history=messages)
    return run_outcome(task, strategy, meter, run, **extra)
