"""An example as the token ids a model reads and the labels it learns: the assistant's tokens only.

The conversation is rendered exactly as a local model is prompted at run time (`Format.to_chat`, then the
model's chat template), piece by piece: the text before each assistant turn (ending with the template's
generation prompt) is context, the assistant's turn up to and including its end-of-turn marker is the target.
Pieces are tokenized apart, as decoding sees them: the prompt is read, then the turn is generated token by token.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollab.formats import Format
from toollab.harness.messages import AssistantMessage
from toollab.train.data import Example

IGNORE = -100  # the label of a token the loss skips


@dataclass(frozen=True)
class Tokenized:
    ids: list[int]
    labels: list[int]

    @property
    def targets(self) -> int:
        return sum(label != IGNORE for label in self.labels)


def tokenize(example: Example, format: Format, tokenizer: Any) -> Tokenized:
    chat = format.to_chat(list(example.messages), list(example.tools))
    assistant = [i for i, m in enumerate(chat) if m["role"] == "assistant"]
    if not any(isinstance(m, AssistantMessage) for m in example.messages) or not assistant:
        raise ValueError(f"example {example.source} has no assistant turn to learn")
    ids: list[int] = []
    labels: list[int] = []
    done = ""  # the text covered so far
    for i in assistant:
        prompt = tokenizer.apply_chat_template(chat[:i], add_generation_prompt=True, tokenize=False)
        upto = tokenizer.apply_chat_template(chat[: i + 1], tokenize=False)
        if not prompt.startswith(done) or not upto.startswith(prompt):
            raise ValueError("the chat template does not render a conversation as a growing prefix")
        context = _ids(tokenizer, prompt[len(done) :])
        target = _ids(tokenizer, upto[len(prompt) :].rstrip("\n"))  # the turn and its end marker
        ids += context + target
        labels += [IGNORE] * len(context) + target
        done = prompt + upto[len(prompt) :].rstrip("\n")
    return Tokenized(ids, labels)


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"]) if text else []


def pack(examples: Sequence[Tokenized], length: int, seed: int) -> list[Tokenized]:
    """Examples put together into rows of at most `length` tokens (first fit, in a seeded order). Examples in one
    row see each other, as in most packed fine-tuning: their targets never do anything but follow their own
    prompt, and a row of short examples costs one forward. An example longer than a row raises: cut to the row,
    a long prompt (eight tools' schemas run past 1,000 tokens) would leave nothing of its answer to learn."""
    longest = max((len(e.ids) for e in examples), default=0)
    if longest > length:
        too_long = sum(len(e.ids) > length for e in examples)
        raise ValueError(
            f"{too_long} examples are longer than a row of {length} tokens (the longest: {longest}): "
            f"raise --seq-len to {longest} or more"
        )
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    rows: list[Tokenized] = []
    ids: list[int] = []
    labels: list[int] = []
    for i in order:
        example = examples[i]
        if ids and len(ids) + len(example.ids) > length:
            rows.append(Tokenized(ids, labels))
            ids, labels = [], []
        ids += example.ids
        labels += example.labels
    if ids:
        rows.append(Tokenized(ids, labels))
    return rows
