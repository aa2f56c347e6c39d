"""Serving the embedded model under concurrent clients: requests/s, output tokens/s and latency p50/p99 at 1, 4
and 16 clients, `toollab serve` against llama.cpp's server (llama-cpp-python, `chatml-function-calling`) on the
same GGUF, one server after the other in one run.

    python benchmarks/serve.py                      # 1, 4, 16 clients; 32 requests per level; both servers
    python benchmarks/serve.py --clients 1 4 --requests 8 --servers toollab

Each server runs in its own process on 127.0.0.1 (OMP_NUM_THREADS=2) and serves the bare GGUF weights (toollab
with `--adapter none`); the clients are httpx in this process. Two workloads: "tools" alternates three prompts
with a weather tool under tool_choice "auto" and "required"; "plain" sends the same prompts without tools. At
most 64 new tokens, temperature 0. A request that fails (an HTTP error, or a server that died: it is restarted
for the next level) counts as an error; llama.cpp's server answers "required" with HTTP 500 and dies on "auto"
here (`benchmarks/serve_conformance.py`), so only the plain workload compares the two.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time

import httpx
from rich.console import Console
from rich.table import Table

from toollab.eval.summary import percentile

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
PROMPTS = ["What is the weather in Oslo?", "Is it raining in Bergen right now?", "Say hello to me."]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def wait_ready(url: str, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            try:
                if (await client.get(f"{url}/models")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.5)
    raise RuntimeError("the server did not come up")


async def level(url: str, clients: int, requests: int, tools: bool) -> dict[str, float]:
    latencies: list[float] = []
    tokens = 0
    errors = 0
    queue = list(range(requests))

    async def client_loop(client: httpx.AsyncClient) -> None:
        nonlocal tokens, errors
        while queue:
            i = queue.pop()
            asked = [{"role": "user", "content": PROMPTS[i % len(PROMPTS)]}]
            body: dict[str, object] = {"model": "local", "max_tokens": 64, "temperature": 0, "messages": asked}
            if tools:
                body |= {"tools": [WEATHER], "tool_choice": "required" if i % 2 else "auto"}
            started = time.perf_counter()
            try:
                response = await client.post(f"{url}/chat/completions", json=body)
            except httpx.TransportError:
                errors += 1
                continue
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                errors += 1
                continue
            tokens += response.json()["usage"]["completion_tokens"]

    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=600) as client:
        await asyncio.gather(*(client_loop(client) for _ in range(clients)))
    wall = time.perf_counter() - started
    done = requests - errors
    return {
        "requests/s": done / wall,
        "output tokens/s": tokens / wall,
        "p50 s": percentile(latencies, 50) or 0.0,
        "p99 s": percentile(latencies, 99) or 0.0,
        "errors": errors,
    }


def command(server: str, port: int) -> list[str]:
    if server == "toollab":
        return [sys.executable, "-m", "toollab", "serve", "--model", "local", "--adapter", "none", "--port",
                str(port), "--max-new-tokens", "64"]  # fmt: skip
    from toollab.models.local_weights import embedded_gguf

    return [sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_gguf()), "--chat_format",
            "chatml-function-calling", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"]  # fmt: skip


def start(server: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = os.environ | {"OMP_NUM_THREADS": "2"}
    process = subprocess.Popen(command(server, port), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    asyncio.run(wait_ready(url))
    return process, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--requests", type=int, default=32, help="requests per level")
    parser.add_argument("--servers", nargs="+", default=["toollab", "llama.cpp"], choices=["toollab", "llama.cpp"])
    args = parser.parse_args()
    table = Table(title=f"the embedded SmolLM2-135M GGUF behind each server, {args.requests} requests per level")
    for column in ("server", "workload", "clients", "requests/s", "output tokens/s", "p50 s", "p99 s", "errors"):
        table.add_column(column, justify="right")
    for server in args.servers:
        workloads = ["tools", "plain"] if server == "toollab" else ["plain", "tools"]
        process, url = start(server)
        try:
            asyncio.run(level(url, 1, 3, tools=False))  # warm-up
            for workload in workloads:
                base = None
                for clients in args.clients:
                    if process.poll() is not None:  # it died: a fresh one for the next level
                        process, url = start(server)
                    r = asyncio.run(level(url, clients, args.requests, tools=workload == "tools"))
                    base = base or r["requests/s"] or None
                    rate = f"{r['requests/s']:.2f}" + (f" ({r['requests/s'] / base:.2f}x)" if base else "")
                    latency = (f"{r['p50 s']:.2f}", f"{r['p99 s']:.2f}")
                    row = (server, workload, str(clients), rate, f"{r['output tokens/s']:.1f}", *latency)
                    table.add_row(*row, str(int(r["errors"])))
        finally:
            process.kill()
            process.wait(timeout=30)
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
