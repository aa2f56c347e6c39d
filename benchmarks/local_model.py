"""The embedded model on this machine: load time, time to first token, decode speed beside llama.cpp, and the
prompt-token cost per round of a 4-round tool-using run (with the key-value cache of the unchanged prefix).

    python benchmarks/local_model.py                  # llama.cpp side by side if llama-cpp-python is installed
    python benchmarks/local_model.py --tokens 256 --repeats 5

Decode speed: greedy, the same prompt and the same GGUF file for every engine, tokens per second after the
first token, median of --repeats runs. llama-cpp-python is optional (`pip install -e '.[bench]'`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from toollab import Agent, AssistantMessage, ToolCall, add, multiply
from toollab.models import local_weights
from toollab.models.local import LocalModel

console = Console(width=130)
PROMPT_MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant. Answer in detail."},
    {
        "role": "user",
        "content": "Explain how a bicycle works, part by part: the frame, the wheels, the chain, "
        "the gears and the brakes. Then explain how to maintain each part.",
    },
]


@dataclass
class Speed:
    engine: str
    ttft_ms: float
    tokens_per_s: float
    tokens: int


def toollab_speed(model: LocalModel, prompt: str, tokens: int, repeats: int) -> Speed:
    ttfts, rates, counts = [], [], []
    for _ in range(repeats):
        model._cache = None  # a cold prompt each time: measure reading it, not the cache
        g = model.generate(prompt, max_new_tokens=tokens)
        ttfts.append(g.first_token_seconds)
        rates.append((g.new_tokens - 1) / g.decode_seconds)
        counts.append(g.new_tokens)
    return Speed(
        f"toollab local ({model.load().weights})",
        statistics.median(ttfts) * 1000,
        statistics.median(rates),
        min(counts),
    )


def hf_generate_speed(model: LocalModel, prompt: str, tokens: int, repeats: int) -> Speed:
    """Plain `generate()`, for reference."""
    import torch

    loaded = model.load()
    ids = loaded.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).input_ids
    rates, counts = [], []
    for _ in range(repeats):
        with torch.inference_mode():
            started = time.perf_counter()
            out = loaded.model.generate(ids, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)
            elapsed = time.perf_counter() - started
        n = out.shape[1] - ids.shape[1]
        rates.append(n / elapsed)
        counts.append(n)
    return Speed(f"transformers generate() ({loaded.weights})", float("nan"), statistics.median(rates), min(counts))


def llama_cpp_speed(prompt: str, tokens: int, repeats: int) -> Speed | None:
    try:
        from llama_cpp import Llama
    except ImportError:
        console.print(
            "[yellow]llama-cpp-python is not installed: no llama.cpp column (pip install -e '.[bench]')[/yellow]"
        )
        return None
    llm = Llama(model_path=str(local_weights.embedded_gguf()), n_ctx=2048, n_threads=2, verbose=False, seed=0)
    ttfts, rates, counts = [], [], []
    for _ in range(repeats):
        llm.reset()
        started = time.perf_counter()
        first, n = None, 0
        for _chunk in llm.create_completion(prompt, max_tokens=tokens, temperature=0.0, stream=True):
            n += 1
            if first is None:
                first = time.perf_counter()
        end = time.perf_counter()
        assert first is not None
        ttfts.append(first - started)
        rates.append((n - 1) / (end - first))
        counts.append(n)
    return Speed("llama.cpp (llama-cpp-python)", statistics.median(ttfts) * 1000, statistics.median(rates), min(counts))


def four_round_run(model: LocalModel) -> list[tuple[int, int, int, float]]:
    """A 4-round tool-using run on the real model. Rounds 1-3 have their calls fixed (the 135M model rarely calls
    tools unconstrained), while the model's own text stays in the history, as the prompts will show it."""
    fixed = iter(
        [
            ToolCall(name="add", arguments={"a": 5, "b": 3}),
            ToolCall(name="multiply", arguments={"a": 8, "b": 2}),
            ToolCall(name="add", arguments={"a": 16, "b": 1}),
        ]
    )
    real = model.request

    async def request(messages, tools):
        response = await real(messages, tools)
        call = next(fixed, None)
        if call is not None:
            response.message = AssistantMessage(tool_calls=[call], raw=response.message.raw)
        return response

    model.request = request  # type: ignore[method-assign]
    model._cache = None
    result = asyncio.run(Agent(model, [add, multiply], max_steps=4).run("What is (5 + 3) * 2 + 1?"))
    return [
        (r.usage.input_tokens, r.usage.cached_input_tokens, r.usage.output_tokens, r.model_seconds)
        for r in result.rounds
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=128, help="tokens to decode per run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    started = time.perf_counter()
    model = LocalModel(max_new_tokens=64)
    loaded = model.load()
    console.print(
        f"load: {time.perf_counter() - started:.1f} s ({loaded.source}, {loaded.weights}, first load in this process)"
    )
    prompt = loaded.tokenizer.apply_chat_template(PROMPT_MESSAGES, add_generation_prompt=True, tokenize=False)
    n_prompt = len(loaded.tokenizer(prompt, add_special_tokens=False)["input_ids"])
    model.generate(prompt, max_new_tokens=8)  # warm-up

    speeds = [
        toollab_speed(model, prompt, args.tokens, args.repeats),
        hf_generate_speed(model, prompt, args.tokens, args.repeats),
    ]
    llama = llama_cpp_speed(prompt, args.tokens, args.repeats)
    if llama:
        speeds.append(llama)
    table = Table(
        title=f"decode, greedy, {n_prompt}-token prompt, up to {args.tokens} new tokens, median of {args.repeats}"
    )
    for col in ("engine", "time to first token, ms", "decode tok/s", "tokens", "x llama.cpp"):
        table.add_column(col, justify="left" if col == "engine" else "right")
    for s in speeds:
        ratio = f"{s.tokens_per_s / llama.tokens_per_s:.2f}" if llama else "-"
        table.add_row(s.engine, f"{s.ttft_ms:.0f}", f"{s.tokens_per_s:.1f}", str(s.tokens), ratio)
    console.print(table)

    rounds = four_round_run(LocalModel(max_new_tokens=48))
    table = Table(title="prompt tokens per round of a 4-round tool-using run (hermes format)")
    for col in ("round", "input tokens", "growth", "from cache", "read this round", "output tokens", "model s"):
        table.add_column(col, justify="right")
    previous = 0
    for i, (inp, cached, out, seconds) in enumerate(rounds, 1):
        table.add_row(
            str(i),
            str(inp),
            f"+{inp - previous}" if previous else "-",
            str(cached),
            str(inp - cached),
            str(out),
            f"{seconds:.2f}",
        )
        previous = inp
    console.print(table)
    total_in = sum(r[0] for r in rounds)
    total_read = sum(r[0] - r[1] for r in rounds)
    console.print(
        f"input tokens over the run: {total_in}, read: {total_read} "
        f"({total_read / total_in:.0%}); the rest came from the cache"
    )


if __name__ == "__main__":
    main()
