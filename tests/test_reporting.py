"""Progress and log reports from a running tool: events of the run in-process, and the client's notifications
over MCP (a real fastmcp client and server, in memory)."""

from __future__ import annotations

import asyncio

from toollab.harness import Agent, Dispatcher, ToolCall, read_events
from toollab.harness.events import ToolReported
from toollab.interfaces.mcp.server import mcp_server
from toollab.models.scripted import ScriptedModel, call
from toollab.tools import reporting, tool


@tool
async def crawl(pages: int) -> str:
    """Crawls some pages."""
    await reporting.log(f"starting {pages} pages", "notice")
    for done in range(1, pages + 1):
        await reporting.report_progress(done, pages, f"page {done}")
    return f"crawled {pages}"


@tool
async def shout() -> str:
    """Logs at a level that does not exist."""
    await reporting.log("hey", "loud")
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
