"""Toolformer's filter on `toollab train`'s conversations: a tool result earns its place in a training example
when it makes the answer after it easier for the model to predict. Examples whose results do not (the model
would write the same answer without them, or the answer does not follow from them) can be dropped before
training."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from toollab.formats import Format
from toollab.harness.messages import AssistantMessage, ToolResultMessage
from toollab.toolformer.lm import LM
from toollab.train.data import Example
from toollab.train.tokens import IGNORE, tokenize

BLANK = "(no result)"  # what a result is replaced with to measure the answer without it
ANSWER_WINDOW = 64  # an answer's tokens weighted from 1 down over this many: a number deep in it still counts


@dataclass(frozen=True)
class Judged:
    example: Example
    gain: float | None  # L(answer | results blanked) - L(answer | results); None: no result before an answer

    def keep(self, tau: float) -> bool:
        return self.gain is None or self.gain >= tau


def answers_after_results(example: Example) -> bool:
    """Whether the conversation ends with an answer in words that comes after at least one tool result."""
    messages = example.messages
    last = messages[-1] if messages else None
    return (
        isinstance(last, AssistantMessage)
        and not last.tool_calls
        and any(isinstance(m, ToolResultMessage) for m in messages)
    )


def blanked(example: Example) -> Example:
    """The example with every tool result's content replaced by BLANK."""
    messages = tuple(
        m.model_copy(update={"content": BLANK}) if isinstance(m, ToolResultMessage) else m for m in example.messages
    )
    return replace(example, messages=messages)


def _answer_start(labels: Sequence[int]) -> int:
    """Where the last assistant turn's targets begin."""
    end = max(i for i, label in enumerate(labels) if label != IGNORE)
    start = end
    while start > 0 and labels[start - 1] != IGNORE:
        start -= 1
    return start


def judge(
    lm: LM, examples: Sequence[Example], format: Format, on_done: Callable[[int], None] | None = None
) -> list[Judged]:
    """The gain of each example's tool results on its final answer (Toolformer's weighted loss, over the answer's
    first ANSWER_WINDOW tokens rather than five: an answer states its number after a few words)."""
    out = []
    for n, example in enumerate(examples):
        gain = None
        if answers_after_results(example):
            rows, starts = [], []
            for version in (example, blanked(example)):
                t = tokenize(version, format, lm.tokenizer)
                rows.append(t.ids)
                starts.append(_answer_start(t.labels))
            with_results, without = lm.losses(rows, starts, window=ANSWER_WINDOW)
            gain = without - with_results
        out.append(Judged(example, gain))
        if on_done is not None:
            on_done(n + 1)
    return out
