"""`tools/call` over MCP (streamable HTTP on 127.0.0.1): `toollab mcp serve` against a bare fastmcp server with
the same no-op tool, and the same tool called in-process.

    python benchmarks/mcp_load.py                          # 1, 10 and 100 concurrent clients, 5 s each
    python benchmarks/mcp_load.py --clients 1 10 --seconds 10 --rounds 3

Both servers run in their own process, with a bearer token and Host/Origin checks, as in production; the bare one
is fastmcp's own `FastMCP` with the tool registered by `@server.tool` (what toollab's wrapper must not be slower
than). Each client has its own MCP session (the same client code for both servers) and calls in a loop until the
time is up; calls per second count completed calls over the measured time, latency is per call. The servers
take turns within each level, `--rounds` times, each going first in every other round, so that drift of the
shared machine hits both alike; the table gives the median round, and each server's own CPU time per call
(from /proc; the median round's), which depends less on how the clients are scheduled than calls/s does. The
in-process row runs the same number of loops through toollab's Dispatcher. Clients and server share the
machine's two cores, so the figures bound what one machine does end to end, not what a server alone could take.
Errors are counted and expected to be zero.
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


def serve_bare(port: int) -> None:
    """The bare fastmcp server: the same tool, token check and Host protection, no toollab in the path."""
    from fastmcp import FastMCP

    from toollab.interfaces.mcp.server import allowed_hosts, token_verifier

    server = FastMCP("bare", auth=token_verifier(KEY))

    @server.tool
    def noop() -> str:
        """Do nothing and say so."""
        return "ok"

    server.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        show_banner=False,
        host_origin_protection=True,
        allowed_hosts=allowed_hosts("127.0.0.1"),
        log_level="warning",
    )


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


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(command: list[str], port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        command, env={**os.environ, "MCP_API_KEY": KEY}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    asyncio.run(over_mcp(f"http://127.0.0.1:{port}/mcp", 1, 1.0))  # warm-up: imports, first session
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured time per level and server")
    parser.add_argument("--rounds", type=int, default=3, help="turns of both servers per level (median shown)")
    parser.add_argument("--serve-bare", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bare is not None:
        serve_bare(args.serve_bare)
        return
    here = Path(__file__).resolve()
    ports = {"toollab mcp serve": free_port(), "bare fastmcp": free_port()}
    toollab_port, bare_port = ports.values()
    # the server's own CPU time per call: less noisy than calls/s, which also depends on how the clients fare
    serve = [sys.executable, "-m", "toollab", "mcp", "serve", f"{here}:TOOLS", "--transport", "http"]
    servers = [
        start([*serve, "--port", str(toollab_port)], toollab_port),
        start([sys.executable, str(here), "--serve-bare", str(bare_port)], bare_port),
    ]
    try:
        table = Table(title=f"tools/call on a no-op tool, {args.seconds:g} s per level, median of {args.rounds} rounds")
        columns = ("clients", "path", "calls/s", "p50 ms", "p99 ms", "server CPU µs/call", "errors", "toollab / bare")
        for column in columns:
            table.add_column(column, justify="right")
        pids = dict(zip(ports, (s.pid for s in servers), strict=True))
        for clients in args.clients:
            measured: dict[str, list[tuple[float, list[float], int, float]]] = {n: [] for n in (*ports, "in-process")}
            for round_ in range(args.rounds):
                order = list(ports.items()) if round_ % 2 == 0 else list(ports.items())[::-1]  # first goes second
                for name, port in order:
                    before = cpu_seconds(pids[name])
                    latencies, errors, elapsed = asyncio.run(
                        over_mcp(f"http://127.0.0.1:{port}/mcp", clients, args.seconds)
                    )
                    per_call = (cpu_seconds(pids[name]) - before) / max(1, len(latencies))
                    measured[name].append((len(latencies) / elapsed, latencies, errors, per_call))
            latencies, errors, elapsed = asyncio.run(in_process(clients, args.seconds))
            measured["in-process"].append((len(latencies) / elapsed, latencies, errors, float("nan")))
            rows = {name: sorted(runs, key=lambda r: r[0])[len(runs) // 2] for name, runs in measured.items()}
            cpu = {name: sorted(r[3] for r in runs)[len(runs) // 2] for name, runs in measured.items()}
            ratio = rows["toollab mcp serve"][0] / rows["bare fastmcp"][0]
            cpu_ratio = cpu["toollab mcp serve"] / cpu["bare fastmcp"]
            for name, (rate, latencies, _, _) in rows.items():
                table.add_row(
                    str(clients),
                    name,
                    f"{rate:,.0f}",
                    f"{1000 * percentile(latencies, 50):.2f}",
                    f"{1000 * percentile(latencies, 99):.2f}",
                    "" if name == "in-process" else f"{1e6 * cpu[name]:,.0f}",
                    str(sum(r[2] for r in measured[name])),
                    f"{ratio:.2f}x calls/s, {cpu_ratio:.2f}x CPU" if name == "toollab mcp serve" else "",
                )
        Console(width=120).print(table)
    finally:
        for server in servers:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
