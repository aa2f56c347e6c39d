"""One multi-turn BFCL item: the agent loop, turn by turn, against BFCL's own executable environments.

Each user turn runs the harness's agent loop until the model answers without a call (up to BFCL's limit of 20
steps a turn). Calls run in BFCL's environment classes (a file system, a trading bot, ...), one at a time and in
order, since they share state. BFCL's multi-turn checker then compares the state and results turn by turn.
"""

from __future__ import annotations

import time
from typing import Any

from toollab.eval import layers
from toollab.eval.bfcl.calls import ReadCalls, call_string, operations, read_calls
from toollab.eval.bfcl.checker import Verdict, check_multi_turn, execute, failure
from toollab.eval.bfcl.data import Item
from toollab.eval.bfcl.schema import tool_set
from toollab.eval.bfcl.single_turn import failed, to_messages
from toollab.eval.records import ItemRecord, Layers, RecordHead
from toollab.harness import Agent, AssistantMessage, Message, Model, RunStatus, ToolResultMessage, Usage, errors
from toollab.harness.request import CallPolicy
from toollab.retrieval import Catalogue
from toollab.tools import Tool

MAX_STEPS_PER_TURN = 20  # BFCL's MAXIMUM_STEP_LIMIT
# Result kinds of calls whose tool function was entered (a tool error or timeout still ran it).
_RAN = {None, errors.TOOL_ERROR, errors.TIMEOUT}


def environment_tools(item: Item, run_name: str) -> tuple[list[Tool], Any]:
    specs = tool_set(item.functions, keep_dots=True, python_note=False)

    def runner(name: str) -> Any:
        def run(arguments: dict[str, Any]) -> str:
            return execute([call_string(name, arguments)], item.entry, run_name)[0]

        return run

    # exclusive: the calls of one turn share the environment, so they run one at a time, in the order written.
    # validate=False: as in BFCL, the environment judges the arguments (its ground truth itself passes a string
    # where a schema says integer, and the environment accepts it).
    tools = [
        Tool.from_schema(
            s.name, s.description, s.parameters, runner(specs.bfcl_name(s.name)), exclusive=True, validate=False
        )
        for s in specs.specs
    ]
    return tools, specs


async def run_multi_turn(
    item: Item, model: Model, head: RecordHead, policy: CallPolicy, *, run_name: str, tools_per_turn: int | None = None
) -> ItemRecord:
    tools, specs = environment_tools(item, run_name)
    catalogue = Catalogue(tools)  # shows the `tools_per_turn` that fit the request best, or all of them
    agent = Agent(
        model, catalogue, max_steps=MAX_STEPS_PER_TURN, use_finish=False, policy=policy, tools_per_turn=tools_per_turn
    )
    history: list[Message] = []
    steps: list[list[list[str]]] = []  # per turn, per model call, the calls as BFCL strings
    raw: list[str | None] = []
    usage = Usage()
    model_calls = 0
    counts = ReadCalls()
    started = time.perf_counter()
    verdict: Verdict | None = None
    for turn in item.turns:
        history.extend(to_messages(turn))
        first_new = len(history)
        result = await agent.run(history=history)
        turn_steps = []
        ran = {m.call_id for m in history[first_new:] if isinstance(m, ToolResultMessage) and m.error_kind in _RAN}
        for message in history[first_new:]:
            if not isinstance(message, AssistantMessage):
                continue
            raw.append(message.raw if message.raw is not None else (message.content or ""))
            counts.count(read_calls(message.tool_calls, specs))
            # what the harness refused (unknown tool, bad arguments) never reached the environment: the checker
            # must replay exactly what ran
            executed = read_calls([c for c in message.tool_calls if c.id in ran], specs)
            if executed.calls:
                turn_steps.append(executed.strings())
        steps.append(turn_steps)
        model_calls += len(result.rounds)
        usage += result.usage
        if result.status == RunStatus.MODEL_ERROR:
            error, source = result.error or "model error", result.error_source or "provider"
            return failed(head, error, source, time.perf_counter() - started)
        if result.status == RunStatus.MAX_STEPS:  # BFCL force-quits an item whose turn runs past the step limit
            verdict = failure("A turn ran past 20 steps.", "multi_turn:force_quit")
            break
    latency = time.perf_counter() - started
    if verdict is None:
        verdict = check_multi_turn(item.entry, steps, item.answer, run_name)
    called = [_name(c) for turn in steps for step in turn for c in step]
    expected = [_name(c) for turn in item.answer for c in turn]
    return ItemRecord(
        **head,
        transcript=history,
        raw=raw,
        calls=steps,
        valid=verdict.valid,
        error_type=None if verdict.valid else verdict.error_type or "unclear",
        errors=verdict.errors[:1],
        layers=Layers(selection=layers.selection(called, expected), trajectory=layers.trajectory(called, expected)),
        ops=operations(latency, usage, model_calls, counts),
        failure_source=None if verdict.valid else "model",
    )


def _name(call: str) -> str:
    return call.split("(", 1)[0]
