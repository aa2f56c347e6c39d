"""The context budget: long runs stay under it, a call is never sent without its result, and every request is
one the providers accept (checked on the wire against real HTTP servers speaking their formats)."""

from __future__ import annotations

import itertools
import json

import pytest
from conftest import assert_history_consistent
from provider_server import ProviderServer, Reply, openai_call, openai_reply

from toollab.harness import Agent, ContextBudget, RunStatus, read_events
from toollab.harness.context import SUMMARY_HEAD
from toollab.harness.events import ContextTrimmed
from toollab.harness.messages import AssistantMessage, SystemMessage, ToolCall, ToolResultMessage, UserMessage
from toollab.models.anthropic import AnthropicModel
from toollab.models.http import RetryPolicy
from toollab.models.openai_compatible import OpenAIModel
from toollab.models.scripted import FunctionModel, call
from toollab.tools import tool

FAST = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02)


@tool
def fetch(page: int) -> str:
    """Fetches one page of a long report."""
    return f"page {page}: " + "lorem ipsum dolor sit amet " * 20


def history(rounds: int) -> list:
    messages: list = [SystemMessage(content="Be brief."), UserMessage(content="Read the report.")]
    for i in range(rounds):
        calls = [ToolCall(id=f"c{i}a", name="fetch", arguments={"page": i}),
                 ToolCall(id=f"c{i}b", name="fetch", arguments={"page": i + 100})]  # fmt: skip
        messages.append(AssistantMessage(tool_calls=calls))
        messages += [ToolResultMessage(call_id=c.id, name="fetch", content=fetch(c.arguments["page"])) for c in calls]
    return messages


def test_a_history_under_the_budget_is_sent_whole():
    messages = history(2)
    fitted = ContextBudget(10_000).fit(messages)
    assert fitted.messages == messages and fitted.dropped == 0 and fitted.summary is None


def test_old_exchanges_are_left_out_whole_and_summarised():
    messages = history(30)
    budget = ContextBudget(1500, keep_recent=2)
    fitted = budget.fit(messages)
    assert fitted.tokens <= 1500 and fitted.dropped > 0
    assert_history_consistent(fitted.messages)
    sent = fitted.messages
    assert isinstance(sent[0], SystemMessage) and sent[1].content.startswith("Read the report.\n\n" + SUMMARY_HEAD)
    assert "you called fetch" in sent[1].content and '{"page": 0}' in sent[1].content
    assert sent[-3:] == messages[-3:]  # the latest exchange as it was
    assert len(messages) == 2 + 30 * 3  # the history itself is untouched


def test_a_result_too_large_for_the_budget_is_cut_and_says_so():
    messages = [UserMessage(content="go"), AssistantMessage(tool_calls=[ToolCall(id="a", name="fetch")]),
                ToolResultMessage(call_id="a", name="fetch", content="x" * 40_000)]  # fmt: skip
    fitted = ContextBudget(2000, keep_recent=1).fit(messages)
    assert fitted.tokens <= 2000
    assert "characters cut to fit the context budget" in fitted.messages[-1].content


def test_a_long_run_stays_under_budget_and_keeps_every_message_in_its_history(tmp_path):
    sizes = []
    budget = ContextBudget(2000, keep_recent=3)

    def model(messages, tools):
        assert_history_consistent(messages)
        sizes.append(budget.size(messages))
        done = sum(isinstance(m, ToolResultMessage) for m in messages)
        if len(sizes) > 150:
            return call("finish", answer="read it all")
        return [call("fetch", page=done), call("fetch", page=done + 1)]

    log = tmp_path / "run.jsonl"
    agent = Agent(FunctionModel(model), [fetch], max_steps=200, context_budget=budget)
    result = agent.run_sync("Read the report.", log=log)
    assert result.status == RunStatus.COMPLETED and sum(r.name == "fetch" for r in result.tool_results) == 300
    assert_history_consistent(result.messages)
    assert max(sizes) <= 2000 and len(sizes) == 151
    trimmed = [e for e in read_events(log) if isinstance(e, ContextTrimmed)]
    assert trimmed and all(e.tokens <= 2000 for e in trimmed) and trimmed[-1].summary.startswith(SUMMARY_HEAD)


def anthropic_problems(body: dict) -> list[str]:
    """What the Messages API refuses in a request's history."""
    problems, messages = [], body["messages"]
    if messages[0]["role"] != "user":
        problems.append("the first message is not the user's")
    for before, after in itertools.pairwise(messages):
        if before["role"] == after["role"]:
            problems.append(f"two {after['role']} messages in a row")
    for i, m in enumerate(messages):
        blocks = m["content"] if isinstance(m["content"], list) else []
        uses = [b["id"] for b in blocks if b["type"] == "tool_use"]
        if uses:
            nxt = messages[i + 1]["content"] if i + 1 < len(messages) else []
            answered = [b["tool_use_id"] for b in nxt if isinstance(b, dict) and b.get("type") == "tool_result"]
            if answered[: len(uses)] != uses:
                problems.append(f"tool_use {uses} not answered first in the next message")
        for b in blocks:
            if b["type"] == "tool_result":
                prior = messages[i - 1]["content"] if i else []
                ids = [x["id"] for x in prior if isinstance(x, dict) and x.get("type") == "tool_use"]
                if b["tool_use_id"] not in ids:
                    problems.append(f"tool_result {b['tool_use_id']} without its tool_use just before")
    return problems


def openai_problems(body: dict) -> list[str]:
    problems, open_ids = [], set()
    for m in body["messages"]:
        if m["role"] == "tool":
            if m["tool_call_id"] not in open_ids:
                problems.append(f"tool message {m['tool_call_id']} without its call")
            open_ids.discard(m["tool_call_id"])
            continue
        if open_ids:
            problems.append(f"calls {sorted(open_ids)} left without results")
        open_ids = {c["id"] for c in m.get("tool_calls") or []}
    return problems


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_every_request_of_a_trimmed_run_is_one_the_provider_accepts(provider):
    rounds, problems = 40, []

    def reply(body: dict) -> Reply:
        n = len(problems)
        problems.extend(anthropic_problems(body) if provider == "anthropic" else openai_problems(body))
        assert len(problems) == n, problems
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        step = reply.count = getattr(reply, "count", 0) + 1  # type: ignore[attr-defined]
        if step > rounds:
            if provider == "anthropic":
                return Reply({"content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn",
                              "usage": {"input_tokens": 1, "output_tokens": 1}})  # fmt: skip
            return openai_reply("done")
        ids = [f"t{step}a", f"t{step}b"]
        if provider == "anthropic":
            uses = [{"type": "tool_use", "id": i, "name": "fetch", "input": {"page": turn}} for i in ids]
            return Reply({"content": uses, "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}})
        return openai_reply(None, [openai_call(i, "fetch", json.dumps({"page": turn})) for i in ids])

    with ProviderServer([reply] * (rounds + 1)) as server:
        if provider == "anthropic":
            model = AnthropicModel("claude-test", base_url=server.url, api_key="k", retry=FAST)
        else:
            model = OpenAIModel("m", base_url=server.url, api_key="k", retry=FAST)
        agent = Agent(model, [fetch], system_prompt="Be brief.", max_steps=100, use_finish=False,
                      context_budget=ContextBudget(1200, keep_recent=2))  # fmt: skip
        result = agent.run_sync("Read the report.")
    assert result.status == RunStatus.COMPLETED and result.answer == "done" and problems == []
    sent = [len(r.body["messages"]) for r in server.requests]
    assert max(sent) < 12 and len(result.messages) == 2 + rounds * 3 + 1
