"""`toollab serve` under concurrent clients: requests/s, output tokens/s and latency p50/p99 at 1, 4 and 16
clients, the embedded model behind it, each client sending tool-calling requests in a loop.

    python benchmarks/serve.py                      # 1, 4, 16 clients; 16 requests per level
    python benchmarks/serve.py --clients 1 4 --requests 8

The server is `toollab serve --model local` in its own process on 127.0.0.1 (OMP_NUM_THREADS=2); the clients are
httpx in this one. Requests alternate between three prompts with a weather tool, tool_choice "auto" and
"required", 64 new tokens at most. This is the baseline before batching (issue 19): the model decodes one request
at a time, so throughput should stay flat while latency grows with the number of clients. The comparison with
llama.cpp's server on the same GGUF is still to come (llama-cpp-python is in the `bench` extra).
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


async def level(url: str, clients: int, requests: int) -> dict[str, float]:
    latencies: list[float] = []
    tokens = 0
    errors = 0
    queue = list(range(requests))

    async def client_loop(client: httpx.AsyncClient) -> None:
        nonlocal tokens, errors
        while queue:
            i = queue.pop()
            body = {"model": "local", "messages": [{"role": "user", "content": PROMPTS[i % len(PROMPTS)]}],
                    "tools": [WEATHER], "tool_choice": "required" if i % 2 else "auto"}  # fmt: skip
            started = time.perf_counter()
            response = await client.post(f"{url}/chat/completions", json=body)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                errors += 1
                continue
            tokens += response.json()["usage"]["completion_tokens"]

    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=600) as client:
        await asyncio.gather(*(client_loop(client) for _ in range(clients)))
    wall = time.perf_counter() - started
    return {
        "requests/s": requests / wall,
        "output tokens/s": tokens / wall,
        "p50 s": percentile(latencies, 50) or 0.0,
        "p99 s": percentile(latencies, 99) or 0.0,
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--requests", type=int, default=16, help="requests per level")
    args = parser.parse_args()
    port = free_port()
    env = os.environ | {"OMP_NUM_THREADS": "2"}
    server = subprocess.Popen(
        [sys.executable, "-m", "toollab", "serve", "--model", "local", "--port", str(port), "--max-new-tokens", "64"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        asyncio.run(wait_ready(url))
        asyncio.run(level(url, 1, 3))  # warm-up: first requests compile grammars
        rows = [(c, asyncio.run(level(url, c, args.requests))) for c in args.clients]
    finally:
        server.terminate()
        server.wait(timeout=30)
    table = Table(title=f"toollab serve, embedded model, {args.requests} requests per level")
    for column in ("clients", "requests/s", "output tokens/s", "p50 s", "p99 s", "errors"):
        table.add_column(column, justify="right")
    base = rows[0][1]["requests/s"]
    for clients, r in rows:
        rate = f"{r['requests/s']:.2f} ({r['requests/s'] / base:.2f}x)"
        latency = (f"{r['p50 s']:.2f}", f"{r['p99 s']:.2f}")
        table.add_row(str(clients), rate, f"{r['output tokens/s']:.1f}", *latency, str(int(r["errors"])))
    Console().print(table)


if __name__ == "__main__":
    main()
