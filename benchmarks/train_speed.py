"""What training on CPU costs, configuration against configuration: tokens/s and peak memory.

Each configuration trains the embedded SmolLM2-135M for the same steps on the same generated data, in a fresh
process (peak memory is per process), one after another, and the table gives each one's ratio to the first.

    python benchmarks/train_speed.py                 # about 10 minutes
    python benchmarks/train_speed.py --steps 4 --examples 32
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from toollab.train.data import write_data

CONFIGS: dict[str, dict[str, object]] = {
    "all layers, output layer everywhere": {"head_on_targets": False},
    "all layers, output layer on targets": {},
    "top 8 layers, output layer on targets": {"lora_layers": 8},
    "top 4 layers, output layer on targets": {"lora_layers": 4},
}
RUN = """
import json, sys
from toollab.train.sft import TrainConfig, train
r = train(TrainConfig(**json.loads(sys.argv[1])))
print(json.dumps({"tps": r.tokens_per_second, "mb": r.peak_memory_mb, "loss": r.heldout_loss_after}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--examples", type=int, default=None, help="default: steps x batch size")
    args = parser.parse_args()
    examples = args.examples or args.steps * args.batch_size
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        write_data(data, per_category=max(1, examples // 5 + 1), heldout_per_category=1, mask=0.3, seed=0)
        for i, (name, extra) in enumerate(CONFIGS.items()):
            config = {"data": str(data), "out": f"{tmp}/run{i}", "max_examples": examples,
                      "batch_size": args.batch_size, "seq_len": 512, **extra}  # fmt: skip
            done = subprocess.run([sys.executable, "-c", RUN, json.dumps(config)], capture_output=True, text=True)
            if done.returncode:
                raise SystemExit(done.stderr[-2000:])
            rows.append((name, json.loads(done.stdout.strip().splitlines()[-1])))
    table = Table(
        title=f"training the embedded model on CPU: {examples} examples, batch {args.batch_size}, rows of 512"
    )
    for column in ("configuration", "tokens/s", "ratio", "peak memory MB", "ratio"):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    first = rows[0][1]
    for name, r in rows:
        table.add_row(name, f"{r['tps']:.0f}", f"{r['tps'] / first['tps']:.2f}x", f"{r['mb']:.0f}",
                      f"{r['mb'] / first['mb']:.2f}x")  # fmt: skip
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
