"""Few-shot demonstrations: worked requests and their calls, shown to a local model before the user's request.

The bank (`data/demos.jsonl`) is generated from the dev set's train split (`toollab.eval.synth.demos`; a test
checks that the shipped file is what the generator writes and holds nothing of BFCL's). For each request the
`k` demonstrations whose questions read most like it (MiniLM) go into the prompt as earlier turns: a user
message and the assistant's calls in the model's own wire format, so that the model sees its format filled in
with values copied from a request. Demonstrations call other tools than the request's: only their form and the
copying carry over, and the grammar keeps the model to the tools it is offered.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toollab.harness.jsonl import read_jsonl
from toollab.harness.messages import AssistantMessage, Message, ToolCall, UserMessage

BANK = Path(__file__).with_name("data") / "demos.jsonl"


@dataclass(frozen=True)
class Demo:
    """A request and the calls that answer it: (tool name, arguments) in call order."""

    question: str
    calls: tuple[tuple[str, dict[str, Any]], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "calls": [[n, a] for n, a in self.calls]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Demo:
        return cls(data["question"], tuple((name, args) for name, args in data["calls"]))

    def messages(self, number: int) -> list[Message]:
        calls = [ToolCall(id=f"demo{number}_{i}", name=n, arguments=a) for i, (n, a) in enumerate(self.calls)]
        return [UserMessage(content=self.question), AssistantMessage(tool_calls=calls)]


@functools.cache
def bank(path: Path = BANK) -> tuple[Demo, ...]:
    return tuple(Demo.from_dict(record) for _, record in read_jsonl(path))


@dataclass(frozen=True)
class DemoPicker:
    """The `k` demonstrations nearest a request, no two calling the same tools, nearest last (next to the
    request)."""

    k: int = 2
    path: Path = BANK

    def __call__(self, request: str) -> list[Demo]:
        if not request or self.k <= 0:
            return []
        from toollab.retrieval.dense import cosines

        demos = bank(self.path)
        scores = cosines(request, [d.question for d in demos])
        chosen: list[Demo] = []
        seen: set[tuple[str, ...]] = set()
        for i in sorted(range(len(demos)), key=lambda i: -scores[i]):
            tools = tuple(sorted({name for name, _ in demos[i].calls}))
            if tools not in seen:
                seen.add(tools)
                chosen.append(demos[i])
            if len(chosen) == self.k:
                break
        return chosen[::-1]


def with_demos(messages: Sequence[Message], demos: Sequence[Demo]) -> list[Message]:
    """The conversation with the demonstrations put just before its first user message."""
    first = next((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), len(messages))
    shown = [m for n, demo in enumerate(demos) for m in demo.messages(n)]
    return [*messages[:first], *shown, *messages[first:]]
