"""The event log and resuming a run whose process was killed (a real child process, killed with SIGKILL)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import assert_history_consistent, results_by_id

from toollab import (
    Agent,
    EventLog,
    FunctionModel,
    RunStatus,
    ScriptedModel,
    ToolCall,
    UserMessage,
    add,
    call,
    read_events,
    tool,
)
from toollab.harness import errors
from toollab.harness.events import RunEnded, RunResumed, RunStarted, ToolCalled, ToolReturned

CHILD = textwrap.dedent(
    """
    import sys, time
    from toollab import Agent, FunctionModel, ScriptedModel, add, call, tool

    @tool
    def send_email(to: str) -> str:
        "Sends an email (not idempotent)."
        time.sleep(3600)

    @tool(idempotent=True)
    def read_inbox() -> str:
        "Reads the inbox (safe to repeat)."
        time.sleep(3600)

    scenario, log = sys.argv[1], sys.argv[2]
    if scenario == "tools":
        model = ScriptedModel([[call("add", a=1, b=2), call("send_email", to="a@b.c"), call("read_inbox")]])
        Agent(model, [add, send_email, read_inbox]).run_sync("do it", log=log)
    elif scenario == "model":
        def model(messages, tools):
            if len(messages) > 2:
                time.sleep(3600)
            return call("add", a=2, b=2)
        Agent(FunctionModel(model), [add]).run_sync("do it", log=log)
    elif scenario == "final":
        def model(messages, tools):
            if not tools:
                time.sleep(3600)
            return call("add", a=2, b=2)
        Agent(FunctionModel(model), [add], max_steps=1).run_sync("do it", log=log)
    """
)


def run_and_kill(tmp_path: Path, scenario: str, ready) -> Path:
    """Start the child, wait until its log satisfies `ready`, then SIGKILL it."""
    script, log = tmp_path / "child.py", tmp_path / "run.jsonl"
    script.write_text(CHILD)
    child = subprocess.Popen([sys.executable, str(script), scenario, str(log)])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and ready(read_events(log)):
                break
            assert child.poll() is None, "the child ended before it could be killed"
            time.sleep(0.05)
        else:
            pytest.fail("the child never reached the point to kill it")
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    return log


def names(recorded):
    return [e.event for e in recorded]


def test_log_records_every_step(tmp_path):
    log = tmp_path / "run.jsonl"
    seen = []
    model = ScriptedModel([[call("add", a=1, b=2), call("nope")], call("finish", answer="3")])
    result = Agent(model, [add], on_event=seen.append).run_sync("1+2?", log=log)
    recorded = read_events(log)
    assert recorded == seen  # the callback sees exactly what the log holds
    on_disk = [json.loads(line) for line in log.read_text().splitlines()]
    assert on_disk == [e.model_dump(mode="json") for e in seen]
    order = names(recorded)
    assert order[:3] == ["run_start", "model_request", "model_response"]
    # the two calls of round 1 run concurrently: their events interleave, each call before its result
    assert sorted(order[3:7]) == ["tool_call", "tool_call", "tool_result", "tool_result"]
    assert order[3] == "tool_call"
    assert order[7:] == [
        "round_end",
        "model_request",
        "model_response",
        "tool_call",
        "tool_result",
        "round_end",
        "run_end",
    ]
    assert {e.run_id for e in recorded} == {result.run_id}
    assert all(isinstance(e.ts, float) for e in recorded)
    start, end = recorded[0], recorded[-1]
    assert isinstance(start, RunStarted) and isinstance(end, RunEnded)
    assert start.messages == [UserMessage(content="1+2?")]
    assert [t["name"] for t in start.tools] == ["add", "finish"]
    assert end.status == RunStatus.COMPLETED and end.answer == "3"
    returned = [e for e in recorded if isinstance(e, ToolReturned)]
    assert {e.result.error_kind for e in returned} == {None, errors.UNKNOWN_TOOL}
    assert all(e.seconds >= 0 for e in returned)


def test_read_events_skips_a_torn_last_line_only(tmp_path):
    log = tmp_path / "run.jsonl"
    Agent(ScriptedModel(["hi"]), []).run_sync("x", log=log)
    with log.open("a") as f:
        f.write('{"event": "model_req')
    assert names(read_events(log))[-1] == "run_end"
    lines = log.read_text().splitlines()
    log.write_text("\n".join([lines[0], "garbage", *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match=":2: not a JSON line"):
        read_events(log)
    log.write_text("\n".join([lines[0], '{"event": "tool_call"}', *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match=":2: not a toollab event"):
        read_events(log)


def test_event_log_refuses_writes_after_close(tmp_path):
    log = EventLog(tmp_path / "a" / "b.jsonl")
    log(RunResumed(messages=1, steps=0))
    log.close()
    with pytest.raises(ValueError, match="closed"):
        log(RunResumed(messages=1, steps=0))


def test_resume_after_a_kill_during_tool_calls(tmp_path):
    def both_slow_calls_started(recorded):
        started = {e.call.name for e in recorded if isinstance(e, ToolCalled)}
        finished = {e.result.name for e in recorded if isinstance(e, ToolReturned)}
        return {"send_email", "read_inbox"} <= started and "add" in finished

    log = run_and_kill(tmp_path, "tools", both_slow_calls_started)
    runs = {"send_email": 0, "read_inbox": 0}

    @tool
    def send_email(to: str) -> str:
        """Sends an email."""
        runs["send_email"] += 1
        return "sent"

    @tool(idempotent=True)
    def read_inbox() -> str:
        """Reads the inbox."""
        runs["read_inbox"] += 1
        return "3 new messages"

    def model(messages, tools):
        assert_history_consistent(messages)
        return call("finish", answer="inbox read")

    result = Agent(FunctionModel(model), [add, send_email, read_inbox]).resume_sync(log)
    assert result.status == RunStatus.COMPLETED and result.answer == "inbox read"
    assert runs == {"send_email": 0, "read_inbox": 1}
    by_name = {r.name: r for r in result.tool_results}
    assert by_name["add"].content == "3.0"  # from the log, not run again
    assert by_name["send_email"].error_kind == errors.INTERRUPTED
    assert "interrupted" in by_name["send_email"].content
    assert by_name["read_inbox"].content == "3 new messages"
    assert_history_consistent(result.messages)
    recorded = read_events(log)
    assert names(recorded).count("run_start") == 1 and "run_resumed" in names(recorded)
    assert names(recorded)[-1] == "run_end" and [r.kind for r in result.rounds] == ["tools", "tools"]

    # a finished run resumes to its stored result without asking the model
    again = Agent(ScriptedModel([]), [add, send_email, read_inbox]).resume_sync(log)
    assert (again.status, again.answer, len(again.messages)) == (result.status, result.answer, len(result.messages))
    assert results_by_id(again.messages).keys() == results_by_id(result.messages).keys()


def test_resume_after_a_kill_while_waiting_for_the_model(tmp_path):
    log = run_and_kill(tmp_path, "model", lambda r: names(r).count("model_request") == 2)
    with log.open("a") as f:
        f.write('{"event": "model_resp')  # as if the process died while writing a line
    result = Agent(ScriptedModel(["4"]), [add]).resume_sync(log)
    assert result.status == RunStatus.COMPLETED and result.answer == "4"
    assert [m.role for m in result.messages] == ["user", "assistant", "tool", "assistant"]
    assert [r.kind for r in result.rounds] == ["tools", "answer"]
    assert names(read_events(log))[-2:] == ["round_end", "run_end"]  # the torn line was cut, not buried


def test_resume_after_a_kill_during_the_final_request(tmp_path):
    log = run_and_kill(
        tmp_path, "final", lambda r: any(e.event == "message" for e in r) and names(r)[-1] == "model_request"
    )
    seen = []

    def model(messages, tools):
        seen.append(tools)
        return "final answer"

    result = Agent(FunctionModel(model), [add], max_steps=1).resume_sync(log)
    assert result.status == RunStatus.MAX_STEPS and result.answer == "final answer"
    assert seen == [[]]  # asked once, without tools, and the request for an answer was not repeated
    assert sum(m.role == "user" for m in result.messages) == 2


def test_resume_refuses_files_that_are_not_logs(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(RunResumed(messages=1, steps=0).model_dump_json() + "\n")
    with pytest.raises(ValueError, match="no run_start"):
        Agent(ScriptedModel([])).resume_sync(path)
    with pytest.raises(FileNotFoundError):
        Agent(ScriptedModel([])).resume_sync(tmp_path / "missing.jsonl")
    assert not (tmp_path / "missing.jsonl").exists()


# ---- logs written before events were typed (tests/data, by toollab at 0ce5985) -----------------------------------

DATA = Path(__file__).parent / "data"
OLD_LOGS = ["finish", "max-steps"]


@pytest.mark.parametrize("name", OLD_LOGS)
def test_logs_written_before_typed_events_still_read_and_resume_to_their_result(tmp_path, name):
    log = tmp_path / "run.jsonl"
    shutil.copy(DATA / f"events-0ce5985-{name}.jsonl", log)
    recorded = read_events(log)
    on_disk = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e.model_dump(mode="json") for e in recorded] == on_disk  # every field read, none invented
    expected = json.loads((DATA / "events-0ce5985-results.json").read_text())[name]
    resumed = Agent(ScriptedModel([]), [add]).resume_sync(log)
    assert resumed.to_dict() == expected
    assert log.read_bytes() == (DATA / f"events-0ce5985-{name}.jsonl").read_bytes()  # a finished run is left alone


@pytest.mark.parametrize("cut", ["tool_call", "round_end"])
def test_an_old_log_cut_mid_run_resumes(tmp_path, cut):
    """The same log as if the process had died after its first tool call, or right after its first round."""
    lines = (DATA / "events-0ce5985-finish.jsonl").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if json.loads(line)["event"] == cut)
    log = tmp_path / "run.jsonl"
    log.write_text("\n".join(lines[: first + 1]) + "\n")
    result = Agent(ScriptedModel([call("finish", answer="resumed")]), [add]).resume_sync(log)
    assert result.status == RunStatus.COMPLETED and result.answer == "resumed"
    assert_history_consistent(result.messages)
    assert [m.name for m in result.tool_results][:3] == ["add", "lookup", "nope"]


def test_a_run_writes_the_same_lines_as_before_events_were_typed(tmp_path):
    """The first fixture's run again: every line as 0ce5985 wrote it, but for times and the run's id."""
    log = tmp_path / "run.jsonl"

    @tool(idempotent=True)
    def lookup(city: str) -> str:
        """Look a city up."""
        return f"{city}: 12 degrees"

    model = ScriptedModel(
        [
            [call("add", a=1, b=2), call("lookup", city="Oslo"), call("nope", x=1)],
            [
                ToolCall(name="add", arguments='{"a": 1,'),
                ToolCall(name="", arguments="<tool_call>{", parse_error="invalid JSON"),
            ],
            call("finish", answer="3 and 12 degrees"),
        ]
    )
    Agent(model, [add, lookup]).run_sync("Add 1 and 2, and the weather in Oslo?", log=log)

    def comparable(path):
        out = []
        for line in path.read_text().splitlines():
            record = json.loads(line)
            for key in ("ts", "run_id", "seconds", "duration_seconds"):
                record.pop(key, None)
            if record["event"] == "run_start":  # the finish action's wording has changed since
                record["tools"] = [t for t in record["tools"] if t["name"] != "finish"]
            if "round" in record and isinstance(record["round"], dict):
                record["round"] = {k: v for k, v in record["round"].items() if not k.endswith("seconds")}
            out.append(record)
        return sorted(out, key=json.dumps)  # concurrent calls may finish in another order

    old = comparable(DATA / "events-0ce5985-finish.jsonl")
    new = comparable(log)
    # one wording changed since: arguments that are not JSON are now "not valid JSON (...)" in both places
    assert [e["event"] for e in new] == [e["event"] for e in old] and len(new) == len(old)
    differing = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert all(a["event"] == "tool_result" and a["result"]["error_kind"] == "invalid_json" for a, _ in differing)


def test_a_log_cut_between_the_last_round_and_the_end_ends_without_asking_the_model(tmp_path):
    lines = (DATA / "events-0ce5985-finish.jsonl").read_text().splitlines()
    log = tmp_path / "run.jsonl"
    log.write_text("\n".join(lines[:-1]) + "\n")  # the run_end line never written
    result = Agent(ScriptedModel([]), [add]).resume_sync(log)
    assert result.status == RunStatus.COMPLETED and result.answer == "3 and 12 degrees"
    assert names(read_events(log))[-2:] == ["run_resumed", "run_end"]


def test_results_logged_out_of_call_order_are_put_back_in_call_order(tmp_path):
    """The second call of three finished before the process died; the first and third never did."""
    events = [json.loads(line) for line in (DATA / "events-0ce5985-finish.jsonl").read_text().splitlines()]
    first_response = next(i for i, e in enumerate(events) if e["event"] == "model_response")
    calls = [e for e in events if e["event"] == "tool_call"][:3]
    lookup = next(e for e in events if e["event"] == "tool_result" and e["result"]["name"] == "lookup")
    log = tmp_path / "run.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in [*events[: first_response + 1], *calls, lookup]))
    result = Agent(ScriptedModel([call("finish", answer="ok")]), [add]).resume_sync(log)
    assert_history_consistent(result.messages)
    kinds = [(m.name, m.error_kind) for m in result.tool_results[:3]]
    assert kinds == [("add", errors.INTERRUPTED), ("lookup", None), ("nope", errors.INTERRUPTED)]
