"""`tools/call` over MCP (streamable HTTP on 127.0.0.1) against the same no-op tool called in-process.

    python benchmarks/mcp_load.py                          # 1, 10 and 100 concurrent clients, 5 s each
    python benchmarks/mcp_load.py --clients 1 10 --seconds 10

The server is `toollab mcp serve` in its own process, with a bearer token, as in production. Each client has its
own MCP session and calls in a loop until the time is up; requests per second count completed calls over the
measured time, and latency is per call. The in-process baseline runs the same number of concurrent loops
through toollab's Dispatcher. Clients and server share the machine's two cores, so the figures bound what one
machine does end to end, not what the server alone could take. Errors are counted and expected to be zero.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from toollab import Tool, tool
from toollab.eval.summary import percentile
from toollab.harness import Dispatcher
from toollab.harness.messages import ToolCall
from toollab.interfaces.mcp import MCPServer
from toollab.tools import ToolError

KEY = "bench-key-4b1f0e77"


@tool
def noop() -> str:
    """Do nothing and say so."""
    return "ok"


TOOLS: list[Tool] = [noop]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def loop_calls(call, until: float, latencies: list[float]) -> int:
    errors = 0
    while time.perf_counter() < until:
        started = time.perf_counter()
        try:
            await call()
        except ToolError:
            errors += 1
            continue
        latencies.append(time.perf_counter() - started)
    return errors


async def over_mcp(url: str, clients: int, seconds: float) -> tuple[list[float], int, float]:
    servers = [MCPServer(url, token=KEY) for _ in range(clients)]
    await asyncio.gather(*(s.connect() for s in servers))  # sessions open before the clock starts
    latencies: list[float] = []
    started = time.perf_counter()
    until = started + seconds
    errors = await asyncio.gather(*(loop_calls(lambda s=s: s.call("noop", {}), until, latencies) for s in servers))
    elapsed = time.perf_counter() - started
    await asyncio.gather(*(s.close() for s in servers))
    return latencies, sum(errors), elapsed


async def in_process(clients: int, seconds: float) -> tuple[list[float], int, float]:
    dispatcher = Dispatcher(TOOLS)

    async def one() -> None:
        result = await dispatcher.dispatch(ToolCall(id="b", name="noop", arguments={}))
        if result.is_error:
            raise ToolError(result.content)

    latencies: list[float] = []
    started = time.perf_counter()
    errors = await asyncio.gather(*(loop_calls(one, started + seconds, latencies) for _ in range(clients)))
    return latencies, sum(errors), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured time per level")
    args = parser.parse_args()
    port = free_port()
    here = Path(__file__).resolve()
    server = subprocess.Popen(
        [sys.executable, "-m", "toollab", "mcp", "serve", f"{here}:TOOLS", "--transport", "http", "--port", str(port)],
        env={**os.environ, "MCP_API_KEY": KEY},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        asyncio.run(over_mcp(url, 1, 1.0))  # warm-up: imports, first session
        table = Table(title=f"tools/call on a no-op tool, {args.seconds:g} s per level")
        for column in ("clients", "path", "calls/s", "p50 ms", "p99 ms", "errors", "in-process / MCP calls/s"):
            table.add_column(column, justify="right")
        for clients in args.clients:
            rows = {}
            for label, run in (
                ("MCP over HTTP", over_mcp(url, clients, args.seconds)),
                ("in-process", in_process(clients, args.seconds)),
            ):
                latencies, errors, elapsed = asyncio.run(run)
                rows[label] = (len(latencies) / elapsed, latencies, errors)
            ratio = rows["in-process"][0] / rows["MCP over HTTP"][0] if rows["MCP over HTTP"][0] else float("inf")
            for label, (rate, latencies, errors) in rows.items():
                table.add_row(
                    str(clients),
                    label,
                    f"{rate:,.0f}",
                    f"{1000 * percentile(latencies, 50):.2f}",
                    f"{1000 * percentile(latencies, 99):.2f}",
                    str(errors),
                    f"{ratio:,.0f}x" if label == "MCP over HTTP" else "",
                )
        Console(width=120).print(table)
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
