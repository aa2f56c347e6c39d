"""What constrained decoding costs on the embedded model: grammar compile time (cold and cached), mask time per
token (median and p99), and decode speed constrained over unconstrained, side by side in one process.

    python benchmarks/constrained.py                  # 20 BFCL simple_python and multiple items, hermes
    python benchmarks/constrained.py --items 40 --format pythonic

For each item the same prompt is decoded unconstrained and constrained (tool choice "required"), alternating
which goes first. Decode speed is tokens after the first over the time after the first token; the ratio is of
the summed tokens over the summed time of each mode. Accuracy lives in `toollab eval`; this measures cost only.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from rich.console import Console
from rich.table import Table

from toollab.constrain import ToolGrammar, constrainable
from toollab.eval.bfcl import load_category
from toollab.eval.bfcl.schema import tool_set
from toollab.eval.bfcl.single_turn import to_messages
from toollab.eval.summary import percentile
from toollab.formats import DEFAULT_FORMAT, get_format
from toollab.harness.request import RequestParams
from toollab.models.local import LocalModel

console = Console(width=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=20, help="items from each of simple_python and multiple")
    parser.add_argument("--format", default=DEFAULT_FORMAT, choices=constrainable())
    parser.add_argument("--tokens", type=int, default=128, help="max_new_tokens per decode")
    args = parser.parse_args()

    items = load_category("simple_python", args.items) + load_category("multiple", args.items)
    free = LocalModel(format=args.format, max_new_tokens=args.tokens)
    constrained = LocalModel(format=args.format, max_new_tokens=args.tokens, constraint=ToolGrammar())
    started = time.perf_counter()
    free.load()
    console.print(f"loaded in {time.perf_counter() - started:.1f} s")

    speed: dict[str, list[tuple[int, float]]] = {"unconstrained": [], "constrained": []}
    compile_cold: list[float] = []
    compile_cached: list[float] = []
    mask: list[float] = []
    full_masks = tokens_masked = 0
    tokenizer_info_seconds = 0.0
    for i, item in enumerate(items):
        tools = RequestParams(
            tool_set(item.functions, keep_dots=get_format(args.format).dotted_names).specs, "required"
        )
        messages = to_messages(item.turns[0])
        order = [("unconstrained", free), ("constrained", constrained)]
        for name, model in order if i % 2 == 0 else order[::-1]:
            model.forget_cache()  # read each prompt cold in both modes
            response = asyncio.run(model.request(messages, tools))
            meta = response.metadata
            decode_tokens = max(0, response.usage.output_tokens - 1)
            speed[name].append((decode_tokens, meta["decode_seconds"]))
            if name == "constrained":
                stats = meta["grammar"]
                tokenizer_info_seconds += stats["tokenizer_seconds"]  # nonzero once: the first constrained turn
                (compile_cached if stats["cache_hit"] else compile_cold).append(stats["compile_seconds"])
                mask.extend(stats["mask_seconds"])
                full_masks += stats["full_masks"]
                tokens_masked += len(stats["mask_seconds"])
        # the same tool set again: the compiled grammar comes from the cache
        constrained.forget_cache()
        again = asyncio.run(constrained.request(messages, tools)).metadata["grammar"]
        compile_cached.append(again["compile_seconds"])
        console.print(f"[dim]{i + 1}/{len(items)} {item.id}[/dim]")

    rates = {name: sum(t for t, _ in runs) / sum(s for _, s in runs) for name, runs in speed.items()}
    table = Table(title=f"constrained decoding, {args.format}, {len(items)} BFCL items, embedded SmolLM2-135M")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("decode tok/s, unconstrained", f"{rates['unconstrained']:.1f}")
    table.add_row("decode tok/s, constrained (required)", f"{rates['constrained']:.1f}")
    table.add_row("constrained / unconstrained", f"{rates['constrained'] / rates['unconstrained']:.3f}")
    table.add_row("grammar compile, cold: median (ms)", f"{1000 * statistics.median(compile_cold):.2f}")
    table.add_row("grammar compile, cold: max (ms)", f"{1000 * max(compile_cold):.2f}")
    table.add_row("grammar compile, cached: median (us)", f"{1e6 * statistics.median(compile_cached):.1f}")
    table.add_row("tokenizer info, once per tokenizer (ms)", f"{1000 * tokenizer_info_seconds:.0f}")
    table.add_row("mask per token: median (us)", f"{1e6 * statistics.median(mask):.1f}")
    table.add_row("mask per token: p99 (us)", f"{1e6 * percentile(mask, 99):.1f}")
    table.add_row(
        "tokens needing the full mask", f"{full_masks}/{tokens_masked} ({100 * full_masks / tokens_masked:.1f}%)"
    )
    console.print(table)


if __name__ == "__main__":
    main()
