"""Training conversations generated from the dev set's train split, never from BFCL.

Each example is the tools offered and a conversation whose assistant turns are the targets. Four kinds:
- calls: the ground-truth calls of a single-turn item (simple, multiple, parallel, parallel_multiple);
- tasks: an everyday task of a train-split template, its calls really run one round after another, then the
  answer read back from the results (multi-step: the second call uses the first's result);
- expressions: arithmetic written out, the whole expression handed to a calculator in one call, then the answer;
- prose: a request no offered tool fits (irrelevance) or that needs none, answered in words. The words are the
  base model's own answer to the request asked without tools (self-distillation), kept when it stopped by itself
  (and, for a task, when it holds the right answer): a fixed reply taught the model to give that reply to every
  question it answers in words.
As in Hammer (Lin et al. 2024), a share of the call examples has its function and parameter names replaced by
meaningless ones, so that the model learns to read descriptions instead of memorising names, and the tool order
is shuffled. Written as JSONL (`train.jsonl`, and `heldout.jsonl` from the dev split for the held-out loss);
rendered into the model's wire format only when training, so one data folder serves every format.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toollab.eval.bfcl.data import Item
from toollab.eval.bfcl.oracle import answer_calls
from toollab.eval.bfcl.schema import tool_set
from toollab.eval.synth.everyday import EVERYDAY_TOOLS
from toollab.eval.synth.generate import SINGLE, load_synth
from toollab.eval.synth.tasks import TEMPLATES, Expect
from toollab.harness.dispatch import Dispatcher
from toollab.harness.jsonl import json_line, read_jsonl
from toollab.harness.messages import (
    MESSAGES_ADAPTER,
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from toollab.harness.model import Model
from toollab.harness.request import RequestParams
from toollab.tools import Tool, ToolSpec, add, calculator, multiply

TRAIN_FILE, HELDOUT_FILE = "train.jsonl", "heldout.jsonl"
IRRELEVANCE = "synth_irrelevance"
CALLS = tuple(c for c in SINGLE if c != IRRELEVANCE)
Progress = Callable[[int, int], None]  # (answered, asked)


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


@dataclass(frozen=True)
class Ask:
    """A request to be answered in words by the base model: the example once its answer is in."""

    tools: tuple[ToolSpec, ...]
    question: str
    source: str
    expect: Expect | None = None  # what the answer must hold, when the request has one right answer

    def answered(self, answer: str) -> Example:
        return Example(self.tools, (UserMessage(content=self.question), AssistantMessage(content=answer)), self.source)


def _specs(item: Item, rng: random.Random) -> list[ToolSpec]:
    specs = list(tool_set(item.functions, keep_dots=False, python_note=rng.random() < 0.5).specs)
    rng.shuffle(specs)
    return specs


def example_of(item: Item, rng: random.Random, mask: float) -> Example:
    """A calling item as a training conversation: its question, then its ground-truth calls, with the tools
    shuffled and, with probability `mask`, every function and parameter name masked."""
    specs, calls = _specs(item, rng), answer_calls(item)
    if not calls:
        raise ValueError(f"item {item.id} has no calls to learn; irrelevance items are answered in words (`Ask`)")
    if rng.random() < mask:
        specs, calls = masked(specs, calls, rng)
    numbered = [ToolCall(id=f"call_{i}", name=c.name, arguments=c.arguments) for i, c in enumerate(calls)]
    reply = AssistantMessage(tool_calls=numbered)
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
    """`per_category` call examples of each calling category of `split`, in a seeded shuffled order."""
    rng = random.Random(f"train-data:{seed}:{split}")
    items = load_synth(CALLS, split=split, limit=per_category, seed=seed)
    rng.shuffle(items)
    for item in items:
        yield example_of(item, rng, mask)


def irrelevance_asks(split: str, n: int, seed: int = 0) -> list[Ask]:
    """Irrelevance items of `split`: requests the offered tools do not fit, to be answered in words."""
    rng = random.Random(f"train-data:{seed}:{split}:irrelevance")
    items = load_synth([IRRELEVANCE], split=split, limit=n, seed=seed)
    return [Ask(tuple(_specs(item, rng)), item.turns[0][0]["content"], item.id) for item in items]


def answer_text(results: Sequence[ToolResultMessage]) -> str:
    """The answer read back from the last round's results: a number as "The answer is N.", text as it is."""
    parts = []
    for result in results:
        try:
            value = json.loads(result.content)
        except ValueError:
            value = result.content
        parts.append(f"The answer is {round(value, 4):.12g}." if isinstance(value, int | float) else str(value).strip())
    return " ".join(parts)


async def solved(
    tools: Sequence[Tool], question: str, plan: Sequence[tuple[str, dict[str, Any]]], source: str
) -> Example:
    """A conversation that solves `question` by running `plan` one call a round through the harness's own
    dispatcher (real results), then answers from the last result."""
    dispatcher = Dispatcher(list(tools))
    messages: list[Message] = [UserMessage(content=question)]
    results: list[ToolResultMessage] = []
    for i, (name, arguments) in enumerate(plan):
        call = ToolCall(id=f"call_{i}", name=name, arguments=arguments)
        messages.append(AssistantMessage(tool_calls=[call]))
        results = [await dispatcher.dispatch(call)]
        if results[0].is_error:
            raise ValueError(f"{source}: the plan's call {name}({arguments}) failed: {results[0].content}")
        messages.extend(results)
    messages.append(AssistantMessage(content=answer_text(results)))
    return Example(tuple(t.spec for t in tools), tuple(messages), source)


async def task_examples(split: str, n: int, seed: int = 0) -> tuple[list[Example], list[Ask]]:
    """`n` everyday tasks of `split`'s templates with all the everyday tools offered (shuffled): solved when a
    template has calls, to be answered in words (`Ask`) when it needs none."""
    names = sorted(name for name, t in TEMPLATES.items() if t.split == split)
    examples: list[Example] = []
    asks: list[Ask] = []
    for i in range(n):
        rng = random.Random(f"train-data:{seed}:task:{split}:{i}")
        name = rng.choice(names)
        drawn = TEMPLATES[name].draw(rng)
        tools = list(EVERYDAY_TOOLS)
        rng.shuffle(tools)
        source = f"task_{split}_{name}_{i}"
        if drawn.calls:
            examples.append(await solved(tools, drawn.question, drawn.calls, source))
        else:
            asks.append(Ask(tuple(t.spec for t in tools), drawn.question, source, drawn.expect))
    return examples, asks


OPERATORS = ("+", "-", "*", "/")
PHRASES = ("What is {}?", "Calculate {}.", "Work out {} for me.", "How much is {}?", "Compute {}", "{} = ?")


def expression(rng: random.Random) -> str:
    """Arithmetic of two to four numbers (whole or decimal), sometimes with a bracketed part."""

    def number() -> str:
        return str(rng.randint(2, 99)) if rng.random() < 0.7 else f"{rng.randint(1, 99)}.{rng.randint(0, 9)}"

    terms = [number() for _ in range(rng.randint(2, 4))]
    ops = [rng.choice(OPERATORS) for _ in terms[1:]]
    text = terms[0] + "".join(f" {op} {term}" for op, term in zip(ops, terms[1:], strict=True))
    if len(terms) > 2 and rng.random() < 0.6:
        pieces = text.split(" ")  # number op number op number ...
        j = 2 * rng.randint(0, len(terms) - 2)
        pieces[j], pieces[j + 2] = "(" + pieces[j], pieces[j + 2] + ")"
        text = " ".join(pieces)
    return text


async def expression_examples(n: int, seed: int = 0) -> list[Example]:
    """`n` requests to work out an expression, answered by one calculator call with the whole expression (not
    piecemeal with add and multiply), over toollab's own arithmetic tools or the everyday ones."""
    out = []
    for i in range(n):
        rng = random.Random(f"train-data:{seed}:expression:{i}")
        text = expression(rng)
        tools, tool = ([add, multiply, calculator], "calculator") if i % 2 else (list(EVERYDAY_TOOLS), "arith")
        tools = list(tools)
        rng.shuffle(tools)
        question = rng.choice(PHRASES).format(text)
        out.append(await solved(tools, question, [(tool, {"expression": text})], f"expression_{i}"))
    return out


async def own_answers(model: Model, asks: Sequence[Ask], on_done: Progress | None = None) -> list[Example]:
    """The asks answered by `model` without tools; an answer that did not stop by itself, is empty, or misses
    what the ask expects is dropped."""
    out = []
    for i, ask in enumerate(asks):
        response = await model.request([UserMessage(content=ask.question)], RequestParams())
        answer = (response.message.content or "").strip()
        if on_done is not None:
            on_done(i + 1, len(asks))
        if response.stop_reason == "length" or not answer or response.message.tool_calls:
            continue
        if ask.expect is not None and not ask.expect.met_by(answer):
            continue
        out.append(ask.answered(answer))
    return out


@dataclass(frozen=True)
class DataConfig:
    """How many examples of each kind `write_data` writes (train split; the held-out file takes `heldout` of
    each calling category and of tasks from the dev split)."""

    per_category: int = 160
    irrelevance: int = 160
    tasks: int = 240
    expressions: int = 120
    heldout: int = 10
    mask: float = 0.3
    seed: int = 0


def write_data(out: Path, config: DataConfig, model: Model | None, on_done: Progress | None = None) -> dict[str, Any]:
    """Write train.jsonl (train split) and heldout.jsonl (dev split) into `out`; what was written. Without a
    `model` there is no one to answer the prose requests, and they are left out."""
    return asyncio.run(_write(out, config, model, on_done))


async def _write(out: Path, c: DataConfig, model: Model | None, on_done: Progress | None) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, dict[str, int]] = {}
    for file, split, n_calls, n_irr, n_tasks, n_expr in (
        (TRAIN_FILE, "train", c.per_category, c.irrelevance, c.tasks, c.expressions),
        (HELDOUT_FILE, "dev", c.heldout, c.heldout, c.heldout, 0),
    ):
        calls = list(generate(split, n_calls, c.mask, c.seed))
        tasks, asks = await task_examples(split, n_tasks, c.seed)
        asks = irrelevance_asks(split, n_irr, c.seed) + asks
        prose = await own_answers(model, asks, on_done) if model is not None else []
        expressions = await expression_examples(n_expr, c.seed)
        examples = calls + tasks + expressions + prose
        random.Random(f"train-data:{c.seed}:{split}:order").shuffle(examples)
        (out / file).write_bytes(b"".join(json_line(e.to_dict()) for e in examples))
        counts[file] = {"calls": len(calls), "tasks": len(tasks), "expressions": len(expressions),
                        "prose": len(prose), "prose_asked": len(asks), "all": len(examples)}  # fmt: skip
    card = {**vars(c), "prose_from": getattr(model, "name", None), "examples": counts}
    (out / "data.json").write_text(json.dumps(card, indent=2), encoding="utf-8")
    return card


def read_examples(path: Path) -> list[Example]:
    return [Example.from_dict(record) for _, record in read_jsonl(path)]
