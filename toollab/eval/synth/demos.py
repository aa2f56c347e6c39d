"""The few-shot bank local models are shown (`toollab.models.demos`), generated from the train split.

Run `python -m toollab.eval.synth.demos` to write it again; `tests/test_synth.py` checks that the shipped file
is exactly what this writes, so the bank is never edited by hand and never holds dev, test or BFCL items.
"""

from __future__ import annotations

from pathlib import Path

from toollab.eval.bfcl.data import Item
from toollab.eval.bfcl.oracle import answer_calls
from toollab.eval.synth.generate import load_synth
from toollab.harness.jsonl import json_line
from toollab.models.demos import BANK, Demo

CATEGORIES = ("synth_simple", "synth_multiple", "synth_parallel", "synth_parallel_multiple")
PER_CATEGORY = 40


def demo_of(item: Item) -> Demo:
    """An item's question and its ground truth as calls (`answer_calls`: the first acceptable values)."""
    calls = tuple((c.name, c.args_as_dict()) for c in answer_calls(item))
    return Demo(item.turns[0][0]["content"], calls)


def generate(per_category: int = PER_CATEGORY) -> list[Demo]:
    return [demo_of(item) for item in load_synth(CATEGORIES, split="train", limit=per_category)]


def write(path: Path = BANK) -> None:
    path.write_bytes(b"".join(json_line(d.to_dict()) for d in generate()))


if __name__ == "__main__":
    write()
    print(f"wrote {BANK}")
