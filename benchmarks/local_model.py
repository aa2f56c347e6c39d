"""The embedded model on this machine: load time, time to first token, decode speed beside llama.cpp, and the
prompt-token cost per round of a 4-round tool-using run (with the key-value cache of the unchanged prefix).

    python benchmarks/local_model.py                  # llama.cpp side by side if llama-cpp-python is installed
    python benchmarks/local_model.py --tokens 256 --repeats 5
    python benchmarks/local_model.py --adapter runs/train/adapter   # and with a LoRA adapter (`toollab train`)
    python benchmarks/local_model.py --adapter A --adapter B        # several adapters side by side
    python benchmarks/local_model.py --adapter A --paired 20        # and the ratio to the base, run for run
    TOOLLAB_WEIGHTS=int4 python benchmarks/local_model.py ...      # int4 weights on any CPU (default: bfloat16 ones)

Decode speed: greedy, the same prompt and the same GGUF file for every engine, tokens per second after the
first token, median of --repeats runs. llama-cpp-python is optional (`pip install -e '.[bench]'`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from toollab import Agent, AssistantMessage, ToolCall, add, multiply
from toollab.models import local_weights
from toollab.models.local import LocalModel

console = Console(width=130)
LLAMA = "llama.cpp (llama-cpp-python)"
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


def toollab_once(model: LocalModel, prompt: str, tokens: int) -> tuple[float, float, int]:
    model.forget_cache()  # a cold prompt each time: measure reading it, not the cache
    g = model.generate(prompt, max_new_tokens=tokens)
    return g.first_token_seconds, (g.new_tokens - 1) / g.decode_seconds, g.new_tokens


def hf_generate_once(model: LocalModel, prompt: str, tokens: int) -> tuple[float, float, int]:
    """Plain `generate()`, for reference (on the thread the model was loaded on, as toollab runs it)."""
    import torch

    loaded = model.load()
    ids = loaded.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).input_ids

    def run() -> tuple[float, float, int]:
        with torch.inference_mode():
            started = time.perf_counter()
            out = loaded.model.generate(ids, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)
            n = out.shape[1] - ids.shape[1]
            return float("nan"), n / (time.perf_counter() - started), n

    return local_weights.on_torch_thread(run)


def llama_cpp_runner(prompt: str, tokens: int) -> Callable[[], tuple[float, float, int]] | None:
    try:
        from llama_cpp import Llama
    except ImportError:
        console.print(
            "[yellow]llama-cpp-python is not installed: no llama.cpp column (pip install -e '.[bench]')[/yellow]"
        )
        return None
    llm = Llama(model_path=str(local_weights.embedded_gguf()), n_ctx=2048, n_threads=2, verbose=False, seed=0)

    def once() -> tuple[float, float, int]:
        llm.reset()
        started = time.perf_counter()
        first, n = None, 0
        for _chunk in llm.create_completion(prompt, max_tokens=tokens, temperature=0.0, stream=True):
            n += 1
            if first is None:
                first = time.perf_counter()
        end = time.perf_counter()
        assert first is not None
        return first - started, (n - 1) / (end - first), n

    return once


ENGINES = ("toollab", "generate", "llama.cpp")
ADAPTED = "adapter="  # an engine "adapter=PATH": toollab with that adapter


def measure_engine(engine: str, tokens: int, repeats: int) -> dict[str, object] | None:
    """One engine's median speed, measured in this process (the parent runs each engine in its own process)."""
    adapter = engine.removeprefix(ADAPTED) if engine.startswith(ADAPTED) else None
    model = LocalModel(max_new_tokens=tokens, adapter=adapter)
    loaded = model.load()
    prompt = loaded.tokenizer.apply_chat_template(PROMPT_MESSAGES, add_generation_prompt=True, tokenize=False)
    if engine == "toollab" or adapter:
        name = f"toollab local ({loaded.weights})" + (f", adapter {adapter}" if adapter else "")
        once = lambda: toollab_once(model, prompt, tokens)  # noqa: E731
    elif engine == "generate":
        name, once = f"transformers generate() ({loaded.weights})", lambda: hf_generate_once(model, prompt, tokens)
    else:
        runner = llama_cpp_runner(prompt, tokens)
        if runner is None:
            return None
        name, once = LLAMA, runner
    once()  # warm-up
    runs = [once() for _ in range(repeats)]
    return {
        "engine": name,
        "ttft_ms": statistics.median(r[0] for r in runs) * 1000,
        "tokens_per_s": statistics.median(r[1] for r in runs),
        "tokens": min(r[2] for r in runs),
        "load_s": loaded.load_seconds,
        "prompt_tokens": len(loaded.tokenizer(prompt)["input_ids"]),
    }


def speeds(tokens: int, repeats: int, adapters: list[str]) -> list[Speed]:
    """Each engine in a fresh process (their thread pools would otherwise steal each other's cores), in order
    and then in reverse order, so that drift on a shared machine hits all of them alike; the median of both."""
    results: dict[str, list[dict]] = {}
    engines = (*ENGINES, *(ADAPTED + a for a in adapters))
    for order in (engines, engines[::-1]):
        for engine in order:
            command = [sys.executable, __file__, "--engine", engine, "--tokens", str(tokens), "--repeats", str(repeats)]
            out = subprocess.run(command, capture_output=True, text=True, check=True)
            line = out.stdout.strip().splitlines()[-1]
            if line != "null":
                data = json.loads(line)
                results.setdefault(data["engine"], []).append(data)
    return [
        Speed(
            name,
            statistics.median(r["ttft_ms"] for r in runs),
            statistics.median(r["tokens_per_s"] for r in runs),
            min(r["tokens"] for r in runs),
        )
        for name, runs in results.items()
    ]


def paired_ratios(adapters: list[str], tokens: int, rounds: int) -> dict[str, list[float]]:
    """Each adapter's decode speed over the base's, run for run in one process: the base and the adapted models
    take turns on the same prompt, so that drift on a shared machine (10% between processes here) hits both
    runs of a pair alike. Every ratio, per adapter."""
    base = LocalModel(max_new_tokens=tokens)
    adapted = {a: LocalModel(max_new_tokens=tokens, adapter=a) for a in adapters}
    loaded = base.load()
    prompt = loaded.tokenizer.apply_chat_template(PROMPT_MESSAGES, add_generation_prompt=True, tokenize=False)
    for model in (base, *adapted.values()):
        toollab_once(model, prompt, tokens)  # warm-up
    ratios: dict[str, list[float]] = {a: [] for a in adapters}
    for _ in range(rounds):
        for adapter, model in adapted.items():
            reference = toollab_once(base, prompt, tokens)[1]
            ratios[adapter].append(toollab_once(model, prompt, tokens)[1] / reference)
    return ratios


def four_round_run(model: LocalModel) -> list[tuple[int, int, int, float, float, float]]:
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
    timings: list[tuple[float, float]] = []

    async def request(messages, params):
        response = await real(messages, params)
        timings.append(
            (
                response.metadata["first_token_seconds"],
                (response.usage.output_tokens - 1) / response.metadata["decode_seconds"],
            )
        )
        call = next(fixed, None)
        if call is not None:
            response.message = AssistantMessage(tool_calls=[call], raw=response.message.raw)
        return response

    model.request = request  # type: ignore[method-assign]
    model.forget_cache()
    result = asyncio.run(Agent(model, [add, multiply], max_steps=4).run("What is (5 + 3) * 2 + 1?"))
    return [
        (r.usage.input_tokens, r.usage.cached_input_tokens, r.usage.output_tokens, r.model_seconds, *t)
        for r, t in zip(result.rounds, timings, strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=128, help="tokens to decode per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per engine and process")
    parser.add_argument(
        "--adapter", action="append", default=[], help="also measure toollab with this LoRA adapter folder"
    )
    parser.add_argument(
        "--paired", type=int, default=0, metavar="N", help="also N base/adapter run pairs in one process (ratios)"
    )
    parser.add_argument("--engine", help=argparse.SUPPRESS)  # internal: one engine, in this process
    args = parser.parse_args()
    if args.engine:
        print(json.dumps(measure_engine(args.engine, args.tokens, args.repeats)))
        return

    measured = speeds(args.tokens, args.repeats, args.adapter)  # before this process loads torch: its threads compete
    started = time.perf_counter()
    loaded = LocalModel().load()
    console.print(f"load: {time.perf_counter() - started:.1f} s ({loaded.source}, {loaded.weights})")
    llama = next((s for s in measured if s.engine == LLAMA), None)
    if llama is None:
        console.print(
            "[yellow]llama-cpp-python is not installed: no llama.cpp column (pip install -e '.[bench]')[/yellow]"
        )
    table = Table(
        title=f"decode, greedy, up to {args.tokens} new tokens; each engine in its own process, "
        f"median of 2 x {args.repeats} runs"
    )
    for col in ("engine", "time to first token, ms", "decode tok/s", "tokens", "x llama.cpp"):
        table.add_column(col, justify="left" if col == "engine" else "right")
    for s in measured:
        ratio = f"{s.tokens_per_s / llama.tokens_per_s:.2f}" if llama else "-"
        table.add_row(s.engine, f"{s.ttft_ms:.0f}", f"{s.tokens_per_s:.1f}", str(s.tokens), ratio)
    console.print(table)
    base = next((s for s in measured if s.engine.startswith("toollab local") and "adapter" not in s.engine), None)
    for adapted in (s for s in measured if "adapter" in s.engine) if base else ():
        console.print(f"{adapted.engine}: {adapted.tokens_per_s / base.tokens_per_s:.2f}x the base's decode speed")
    if args.paired and args.adapter:
        table = Table(title=f"decode speed over the base's, {args.paired} pairs of runs taking turns in one process")
        for col in ("adapter", "median", "quartiles", "range"):
            table.add_column(col, justify="left" if col == "adapter" else "right")
        for adapter, ratios in paired_ratios(args.adapter, args.tokens, args.paired).items():
            q1, median, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
            table.add_row(adapter, f"{median:.3f}x", f"{q1:.3f}-{q3:.3f}", f"{min(ratios):.3f}-{max(ratios):.3f}")
        console.print(table)

    rounds = four_round_run(LocalModel(max_new_tokens=48))
    table = Table(title="prompt tokens per round of a 4-round tool-using run (hermes format)")
    for col in (
        "round",
        "input tokens",
        "growth",
        "from cache",
        "read this round",
        "first token ms",
        "output tokens",
        "decode tok/s",
        "model s",
    ):
        table.add_column(col, justify="right")
    previous = 0
    for i, (inp, cached, out, seconds, first, rate) in enumerate(rounds, 1):
        table.add_row(
            str(i),
            str(inp),
            f"+{inp - previous}" if previous else "-",
            str(cached),
            str(inp - cached),
            f"{first * 1000:.0f}",
            str(out),
            f"{rate:.1f}",
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
