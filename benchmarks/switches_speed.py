"""What the default switches cost in speed: the local agent with them and with every switch off, side by side.

One process loads the embedded model twice (one with `Switches()`, one with `Switches.none()`, the agent as it
was before any switch) and runs the same BFCL items through each in alternating order (first one side, then the
other, swapped every item), so that load on the shared machine falls on both alike. Prints, per side: decode
speed (output tokens after each row's first, over the seconds spent decoding them, summed over every model request:
a turn whose rows decode in one batch, the parts of a split request, counts its wall time once), time to first
token, and latency per item (median and mean), and the ratio default / before. Speed only: accuracy is measured
by `toollab eval` (BFCL) and `benchmarks/switches.py` (the dev set).

    python benchmarks/switches_speed.py                     # 8 items of each of 5 categories
    python benchmarks/switches_speed.py --limit 4 --categories simple_python multiple
    python benchmarks/switches_speed.py --before "decompose=off"   # what one switch costs: the defaults without it
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import track
from rich.table import Table

from toollab.eval.bfcl.run import BfclRun, RunConfig
from toollab.harness.messages import Message
from toollab.harness.model import ModelResponse
from toollab.harness.request import RequestParams
from toollab.models.registry import load_model
from toollab.models.switches import Switches

console = Console(width=130)
CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]


@dataclass
class Timed:
    """A model that notes, for every request, its output tokens, decode time and time to first token."""

    model: Any
    tokens: int = 0
    decode_seconds: float = 0.0
    first_token: list[float] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:  # name, format, policy: the wrapped model's
        return getattr(self.model, name)

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        response: ModelResponse = await self.model.request(messages, params)
        rows = int(response.metadata.get("rows", 1))
        self.tokens += max(0, response.usage.output_tokens - rows)  # each row's first token is timed apart
        self.decode_seconds += float(response.metadata.get("decode_seconds", 0.0))
        self.first_token.append(float(response.metadata.get("first_token_seconds", 0.0)))
        return response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=8, help="items per category")
    parser.add_argument("--categories", nargs="+", default=CATEGORIES)
    parser.add_argument(
        "--before",
        default=None,
        help='the other side: the defaults with these changes ("name=off,..."); every switch off when not given',
    )
    args = parser.parse_args()

    if args.before is None:
        sides = {"before (every switch off)": Switches.none(), "default switches": Switches()}
    else:
        sides = {args.before: Switches.parse(args.before), "default switches": Switches()}
    models = {name: Timed(load_model("local", switches=s)) for name, s in sides.items()}
    latencies: dict[str, list[float]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory() as folder:
        config = RunConfig(model="local", categories=args.categories, limit=args.limit)
        runs = {name: BfclRun(config, f"{folder}/{i}", model=m) for i, (name, m) in enumerate(models.items())}
        items = next(iter(runs.values())).items
        for index, item in enumerate(track(items, description="items", console=console)):
            order = list(runs) if index % 2 == 0 else list(reversed(runs))
            for name in order:
                record = asyncio.run(runs[name].run_item(item))
                latencies[name].append(record.ops.latency_seconds)

    table = Table(title=f"the local agent on {len(items)} BFCL items ({', '.join(args.categories)}), one process")
    for column in ("", "decode tok/s", "first token ms (median)", "latency s (median)", "latency s (mean)"):
        table.add_column(column, justify="right" if column else "left")
    rows: dict[str, list[float]] = {}
    for name, m in models.items():
        rows[name] = [
            m.tokens / m.decode_seconds if m.decode_seconds else 0.0,
            1000 * statistics.median(m.first_token),
            statistics.median(latencies[name]),
            statistics.fmean(latencies[name]),
        ]
        decode, first, median, mean = rows[name]
        table.add_row(name, f"{decode:.1f}", f"{first:.0f}", f"{median:.2f}", f"{mean:.2f}")
    before, after = rows.values()
    ratios = (f"{a / b:.2f}x" if b else "-" for a, b in zip(after, before, strict=True))
    table.add_row("ratio default / before", *ratios)
    console.print(table)


if __name__ == "__main__":
    main()
