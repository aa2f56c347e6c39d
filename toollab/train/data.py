"""Training conversations generated from the dev set's train split, never from BFCL.

Each example is the tools offered and a conversation whose assistant turns are the targets: the calls that answer
the request (simple, multiple, parallel, parallel_multiple), or a plain answer when no offered tool fits
(irrelevance). As in Hammer (Lin et al. 2024), a share of the examples has its function and parameter names
replaced by meaningless ones, so that the model learns to read descriptions instead of memorising names, and the
tool order is shuffled. Written as JSONL (`train.jsonl`, and `heldout.jsonl` from the dev split for the held-out
loss); rendered into the model's wire format only when training, so one data folder serves every format.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toollab.eval.bfcl.data import Item
from toollab.eval.bfcl.oracle import answer_calls
from toollab.eval.bfcl.schema import tool_set
from toollab.eval.synth.generate import SINGLE, load_synth
from toollab.harness.jsonl import json_line, read_jsonl
from toollab.harness.messages import MESSAGES_ADAPTER, AssistantMessage, Message, ToolCall, UserMessage
from toollab.tools import ToolSpec

NO_TOOL_ANSWER = "None of the tools I have can answer that, so I cannot look it up."
TRAIN_FILE, HELDOUT_FILE = "train.jsonl", "heldout.jsonl"


@dataclass(frozen=True)
class Example:
    """Tools and a conversation; every assistant message in it is a target of the loss."""

    tools: tuple[ToolSpec, ...]
    messages: tuple[Message, ...]
    source: str  # the item it came from

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "tools": [t.to_dict() for t in self.tools],
            "messages": MESSAGES_ADAPTER.dump_python(list(self.messages), mode="json"),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Example:
        tools = tuple(ToolSpec(t["name"], t["description"], t["parameters"]) for t in data["tools"])
        return cls(tools, tuple(MESSAGES_ADAPTER.validate_python(data["messages"])), data["source"])


def example_of(item: Item, rng: random.Random, mask: float) -> Example:
    """An item as a training conversation: its question, then its ground-truth calls (or the no-tool answer),
    with the tools shuffled and, with probability `mask`, every function and parameter name masked."""
    specs = list(tool_set(item.functions, keep_dots=False, python_note=rng.random() < 0.5).specs)
    calls = answer_calls(item)
    rng.shuffle(specs)
    if rng.random() < mask:
        specs, calls = masked(specs, calls, rng)
    numbered = [ToolCall(id=f"call_{i}", name=c.name, arguments=c.arguments) for i, c in enumerate(calls)]
    reply = AssistantMessage(tool_calls=numbered) if numbered else AssistantMessage(content=NO_TOOL_ANSWER)
    return Example(tuple(specs), (UserMessage(content=item.turns[0][0]["content"]), reply), item.id)


def _name(rng: random.Random, prefix: str) -> str:
    return prefix + "".join(rng.choices(string.ascii_lowercase + string.digits, k=5))


def masked(
    specs: Sequence[ToolSpec], calls: Sequence[ToolCall], rng: random.Random
) -> tuple[list[ToolSpec], list[ToolCall]]:
    """The tools and calls with function names made `fn_xxxxx` and parameter names `arg_xxxxx`, consistently."""
    names = {s.name: _name(rng, "fn_") for s in specs}
    params: dict[str, dict[str, str]] = {}
    out: list[ToolSpec] = []
    for spec in specs:
        properties = spec.parameters.get("properties", {})
        renamed = params[spec.name] = {p: _name(rng, "arg_") for p in properties}
        schema = dict(spec.parameters)
        schema["properties"] = {renamed[p]: v for p, v in properties.items()}
        if "required" in schema:
            schema["required"] = [renamed.get(p, p) for p in schema["required"]]
        out.append(ToolSpec(names[spec.name], spec.description, schema))
    new_calls = [
        ToolCall(name=names[c.name], arguments={params[c.name].get(k, k): v for k, v in c.args_as_dict().items()})
        for c in calls
    ]
    return out, new_calls


def generate(split: str, per_category: int, mask: float = 0.3, seed: int = 0) -> Iterator[Example]:
    """`per_category` examples of each single-turn category of `split`, in a seeded shuffled order."""
    rng = random.Random(f"train-data:{seed}:{split}")
    items = load_synth(SINGLE, split=split, limit=per_category, seed=seed)
    rng.shuffle(items)
    for item in items:
        yield example_of(item, rng, mask)


def write_data(out: Path, per_category: int, heldout_per_category: int, mask: float, seed: int) -> dict[str, Any]:
    """Write train.jsonl (train split) and heldout.jsonl (dev split) into `out`; what was written."""
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for file, split, n in ((TRAIN_FILE, "train", per_category), (HELDOUT_FILE, "dev", heldout_per_category)):
        lines = [json_line(e.to_dict()) for e in generate(split, n, mask, seed)]
        (out / file).write_bytes(b"".join(lines))
        counts[file] = len(lines)
    card = {"per_category": per_category, "heldout_per_category": heldout_per_category, "mask": mask, "seed": seed}
    (out / "data.json").write_text(json.dumps({**card, "examples": counts}, indent=2), encoding="utf-8")
    return {**card, "examples": counts}


def read_examples(path: Path) -> list[Example]:
    return [Example.from_dict(record) for _, record in read_jsonl(path)]
