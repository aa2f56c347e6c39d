"""Progress and log reports from a running tool: events of the run in-process, and the client's notifications
over MCP (a real fastmcp client and server, in memory)."""

from __future__ import annotations

import asyncio
import json

from conftest import results_by_id

from toollab.harness import Agent, Dispatcher, ToolCall, read_events
from toollab.harness.events import ToolReported
from toollab.harness.messages import ToolResultMessage
from toollab.interfaces.mcp.server import mcp_server
from toollab.models.scripted import ScriptedModel, call
from toollab.tools import Elicited, Image, call_context, tool


@tool
async def crawl(pages: int) -> str:
    """Crawls some pages."""
    await call_context.log(f"starting {pages} pages", "notice")
    for done in range(1, pages + 1):
        await call_context.report_progress(done, pages, f"page {done}")
    return f"crawled {pages}"


@tool
async def shout() -> str:
    """Logs at a level that does not exist."""
    await call_context.log("hey", "loud")
    return "never"


def test_a_tools_reports_are_events_of_the_run_between_its_call_and_its_result(tmp_path):
    log = tmp_path / "run.jsonl"
    agent = Agent(ScriptedModel([call("crawl", pages=3), call("finish", answer="done")]), [crawl])
    assert agent.run_sync("go", log=log).answer == "done"
    events = read_events(log)
    names = [e.event for e in events]
    first = names.index("tool_call")
    assert names[first : first + 6] == ["tool_call", *["tool_report"] * 4, "tool_result"]
    reports = [e for e in events if isinstance(e, ToolReported)]
    assert (reports[0].kind, reports[0].level, reports[0].message) == ("log", "notice", "starting 3 pages")
    assert [(r.done, r.total, r.message) for r in reports[1:]] == [(1, 3, "page 1"), (2, 3, "page 2"), (3, 3, "page 3")]
    assert {r.call_id for r in reports} == {events[first].call.id}


async def test_nobody_listening_costs_nothing_and_a_bad_level_is_the_tools_error():
    dispatcher = Dispatcher([crawl, shout])
    assert (await dispatcher.dispatch(ToolCall(id="a", name="crawl", arguments={"pages": 2}))).content == "crawled 2"
    bad = await dispatcher.dispatch(ToolCall(id="b", name="shout"))
    assert bad.is_error and "log level 'loud' is not one of debug, info" in bad.content


def test_over_mcp_the_client_gets_progress_and_log_notifications():
    from fastmcp import Client

    progress, logs = [], []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    async def on_log(message):
        logs.append((message.level, message.data))

    async def main():
        async with Client(mcp_server([crawl]), progress_handler=on_progress, log_handler=on_log) as client:
            return await client.call_tool("crawl", {"pages": 3})

    result = asyncio.run(main())
    assert result.content[0].text == "crawled 3"
    assert progress == [(1, 3, "page 1"), (2, 3, "page 2"), (3, 3, "page 3")]
    assert logs and logs[0][0] == "notice" and "starting 3 pages" in str(logs[0][1])


@tool
async def book(city: str) -> str:
    """Books a trip, asking the user for dates and a model for a tagline."""
    reply = await call_context.elicit(
        f"When do you travel to {city}?",
        {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]},
    )
    if not reply.accepted:
        return f"not booked ({reply.action})"
    tagline = await call_context.sample(f"A tagline for {city}", max_tokens=20)
    return f"booked {city} on {reply.content['date']}: {tagline}"


def test_in_process_a_tool_asks_the_agents_ask_and_samples_the_agents_model(tmp_path):
    asked = []

    def ask(message, schema):
        asked.append((message, schema["required"]))
        return Elicited(action="accept", content={"date": "May 3"})

    # the scripted model answers the run's turns and, in between, the tool's sampling request
    script = ScriptedModel([call("book", city="Lyon"), "Lyon, by the river", call("finish", answer="ok")])
    log = tmp_path / "run.jsonl"
    run = Agent(script, [book], ask=ask).run_sync("Book Lyon.", log=log)
    assert run.answer == "ok"
    (result,) = [r for r in results_by_id(run.messages).values() if r.name == "book"]
    assert result.content == "booked Lyon on May 3: Lyon, by the river"
    assert asked == [("When do you travel to Lyon?", ["date"])]
    reports = [e for e in read_events(log) if isinstance(e, ToolReported)]
    assert [(r.kind, r.action) for r in reports] == [("ask", "accept"), ("sample", None)]


def test_a_question_nobody_can_answer_is_the_tools_error_and_a_decline_is_the_tools_to_handle():
    run = Agent(ScriptedModel([call("book", city="Oslo"), call("finish", answer="x")]), [book]).run_sync("go")
    result = next(m for m in run.messages if isinstance(m, ToolResultMessage))
    assert result.is_error and "nobody to ask" not in result.content and "cannot ask" in result.content

    declined = Agent(
        ScriptedModel([call("book", city="Oslo"), call("finish", answer="x")]),
        [book],
        ask=lambda message, schema: Elicited(action="decline"),
    ).run_sync("go")
    assert next(m for m in declined.messages if isinstance(m, ToolResultMessage)).content == "not booked (decline)"


@tool
def chart() -> list:
    """Draws a chart."""
    return ["the chart:", Image(data=b"\x89PNG-bytes", mime_type="image/png")]


def test_content_parts_are_kept_on_the_result_described_for_text_models_and_logged(tmp_path):
    log = tmp_path / "run.jsonl"
    run = Agent(ScriptedModel([call("chart"), call("finish", answer="drawn")]), [chart]).run_sync("go", log=log)
    result = next(m for m in run.messages if isinstance(m, ToolResultMessage))
    assert result.content == "the chart:\n[image: image/png, 10 bytes]"
    assert [p.type for p in result.parts] == ["text", "image"] and result.parts[1].data == b"\x89PNG-bytes"
    logged = next(e for e in read_events(log) if e.event == "tool_result").result
    assert logged.parts == result.parts  # bytes go through the JSONL log as base64


def test_over_mcp_a_toollab_client_gets_the_parts_a_toollab_server_sent():
    import sys

    from toollab.interfaces.mcp import MCPServer

    fixture = "tests/fixtures/mcp_conformance_server.py:SERVED"

    async def go():
        async with MCPServer([sys.executable, "-m", "toollab", "mcp", "serve", fixture]) as server:
            return await server.call("test_multiple_content_types", {})

    parts = asyncio.run(go())
    assert [p.type for p in parts] == ["text", "image", "resource"]
    assert parts[1].data.startswith(b"\x89PNG") and parts[2].uri == "test://mixed-content-resource"
    assert json.loads(parts[2].text) == {"test": "data", "value": 123}
