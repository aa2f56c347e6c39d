"""One single-turn BFCL item: one model request, its calls judged by BFCL's checker and by the layer metrics."""

from __future__ import annotations

import json
import time
from typing import Any

from toollab.eval import layers
from toollab.eval.bfcl.calls import ReadCalls, operations, read_calls
from toollab.eval.bfcl.checker import UNREADABLE, check_ast, check_relevance
from toollab.eval.bfcl.data import Item, judged_by_relevance
from toollab.eval.bfcl.schema import ToolSet, tool_set
from toollab.eval.records import CallRecord, ItemRecord, Layers, RecordHead
from toollab.harness import Message, Model, ModelError, SystemMessage, Usage, UserMessage
from toollab.harness.messages import MESSAGES_ADAPTER, AssistantMessage, last_request
from toollab.harness.request import CallPolicy
from toollab.retrieval.catalogue import best_fits


def to_messages(turn: list[dict[str, Any]]) -> list[Message]:
    out: list[Message] = []
    for m in turn:
        if m["role"] == "system":
            out.append(SystemMessage(content=m["content"]))
        elif m["role"] == "assistant":
            out.append(AssistantMessage(content=m["content"]))
        else:
            out.append(UserMessage(content=m["content"]))
    return out


def prompt_of(model: Model, messages: list[Message], tools: ToolSet) -> str:
    """What the model was shown: the exact prompt text for local models, the messages otherwise."""
    render = getattr(model, "prompt", None)
    if callable(render):
        return str(render(messages, tools.specs))
    return json.dumps(MESSAGES_ADAPTER.dump_python(messages, mode="json"), ensure_ascii=False)


def expected_calls(item: Item) -> list[tuple[str, dict[str, list[Any]]]]:
    """The answer as (name, acceptable values per argument); relevance items have none (or any, for relevance)."""
    if judged_by_relevance(item.category) or not item.answer:
        return []
    return [(name, arguments) for call in item.answer for name, arguments in call.items()]


async def run_single_turn(
    item: Item,
    model: Model,
    head: RecordHead,
    policy: CallPolicy,
    *,
    keep_dots: bool,
    tools_per_turn: int | None = None,
) -> ItemRecord:
    """One request, asked as `policy` asks a turn that answers the user; with `tools_per_turn`, the model sees only
    the tools that fit the request best (the judge still knows them all)."""
    tools = tool_set(item.functions, keep_dots=keep_dots)
    messages = to_messages(item.turns[0])
    if tools_per_turn:
        tools = ToolSet(best_fits(last_request(messages), tools.specs, tools_per_turn), tools.original)
    prompt = prompt_of(model, messages, tools)
    started = time.perf_counter()
    try:
        params = policy.params(tools.specs, after_results=False, request=last_request(messages))
        response = await model.request(messages, params)
    except ModelError as exc:
        return failed(head, str(exc), exc.source, time.perf_counter() - started, prompt=prompt)
    latency = time.perf_counter() - started
    read = read_calls(response.message.tool_calls, tools)
    if judged_by_relevance(item.category):
        verdict = check_relevance(item.category, bool(read.calls))
    elif read.parse_failures:
        verdict = UNREADABLE
    else:
        verdict = check_ast(item.functions, read.bfcl_output, item.answer, item.category)
    expected = expected_calls(item)
    called_names = [name for name, _ in read.calls]
    return ItemRecord(
        **head,
        prompt=prompt,
        raw=[response.raw if response.raw is not None else response.message.content],
        calls=[CallRecord(name=n, arguments=a) for n, a in read.calls],
        valid=verdict.valid,
        error_type=None if verdict.valid else verdict.error_type or "unclear",
        errors=verdict.errors[:5],
        layers=Layers(
            # live_relevance accepts any call, so there is no expected selection to compare with
            selection=None
            if item.category == "live_relevance"
            else layers.selection(called_names, [name for name, _ in expected]),
            arguments=layers.arguments(read.calls, expected) if expected else None,
        ),
        ops=operations(
            latency,
            response.usage,
            1,
            read,
            retries=int(response.metadata.get("retries", 0)),
            stop_reasons=[response.metadata["stop_reason"]] if "stop_reason" in response.metadata else [],
        ),
        failure_source=None if verdict.valid else "model",
    )


def failed(
    head: RecordHead, message: str, source: str, seconds: float, error_type: str = "model_error", prompt: str = ""
) -> ItemRecord:
    """An item whose model request failed: judged wrong, and the failure attributed to its source."""
    return ItemRecord(
        **head,
        prompt=prompt,
        valid=False,
        error_type=f"{error_type}:{source}",
        errors=[message[:500]],
        ops=operations(seconds, Usage(), 1, ReadCalls(), timeouts=1 if error_type == "timeout" else 0),
        failure_source=source,
    )
