"""Short-term memory: a context budget that keeps what the model is sent under a size, without ever separating a
tool call from its result.

The run's history keeps every message (the log and resume need them); only the request is cut. What is always
sent: system messages and the first user message (the task), and the latest `keep_recent` exchanges. Older
exchanges (an assistant turn with the results of its calls, or a user turn) are left out oldest first, and a
short summary of what they did (each call, its result's start, each answer) joins the task message, so the model
knows what it already tried. When what must be kept is still too large, the longest tool results are cut, each
saying how much was cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toollab.harness.messages import AssistantMessage, Message, SystemMessage, ToolResultMessage, UserMessage

SUMMARY_HEAD = "[Earlier in this conversation, left out to fit the context:"


def approximate_tokens(text: str) -> int:
    """About four characters a token (English text and JSON under BPE tokenizers); never zero."""
    return len(text) // 4 + 1


def message_text(m: Message) -> str:
    if isinstance(m, AssistantMessage):
        calls = " ".join(f"{c.name}({c.args_as_json_str()})" for c in m.tool_calls)
        return f"{m.raw or m.content or ''} {calls}"
    return m.content


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def exchanges(messages: Sequence[Message], start: int) -> list[list[Message]]:
    """`messages[start:]` as exchanges that are cut whole: an assistant turn with the results after it, or a
    user turn."""
    out: list[list[Message]] = []
    for m in messages[start:]:
        if isinstance(m, ToolResultMessage) and out:
            out[-1].append(m)
        else:
            out.append([m])
    return out


def summary_line(exchange: Sequence[Message]) -> str:
    first = exchange[0]
    if isinstance(first, UserMessage):
        return f"- the user said: {_short(first.content, 120)}"
    if isinstance(first, AssistantMessage) and first.tool_calls:
        results = {r.call_id: r for r in exchange[1:] if isinstance(r, ToolResultMessage)}
        parts = []
        for c in first.tool_calls:
            r = results.get(c.id)
            got = "no result" if r is None else ("error: " if r.is_error else "") + _short(r.content, 80)
            parts.append(f"{c.name}({_short(c.args_as_json_str(), 80)}) -> {got}")
        return "- you called " + "; ".join(parts)
    return f"- you said: {_short(message_text(first), 120)}"


@dataclass(frozen=True, slots=True)
class Fitted:
    """What a request sends: `messages`, how many of the history's were left out, its estimated size, and the
    summary of what was left out (None when nothing was)."""

    messages: list[Message]
    dropped: int
    tokens: int
    summary: str | None


@dataclass(frozen=True)
class ContextBudget:
    """Keep each request under `max_tokens` (as `count` measures text: about four characters a token by
    default; give a tokenizer's length for exact counts). `keep_recent` exchanges are always sent; `summarise`
    adds the summary of what was left out to the task message."""

    max_tokens: int
    keep_recent: int = 2
    summarise: bool = True
    count: Callable[[str], int] = approximate_tokens
    per_message: int = 4  # a chat template's tokens around each message

    def __post_init__(self) -> None:
        if self.max_tokens < 1 or self.keep_recent < 1:
            raise ValueError("a context budget needs max_tokens >= 1 and keep_recent >= 1")

    def size(self, messages: Sequence[Message]) -> int:
        return sum(self.count(message_text(m)) + self.per_message for m in messages)

    def fit(self, messages: Sequence[Message]) -> Fitted:
        total = self.size(messages)
        if total <= self.max_tokens:
            return Fitted(list(messages), 0, total, None)
        head_end = next((i + 1 for i, m in enumerate(messages) if isinstance(m, UserMessage)), 0)
        head = list(messages[:head_end])
        if not any(isinstance(m, UserMessage) for m in head):
            head = [m for m in head if isinstance(m, SystemMessage)]
            head_end = len(head)
        rest = exchanges(messages, head_end)
        sizes = [self.size(e) for e in rest]
        head_size, kept_size = self.size(head), sum(sizes)
        lines: list[str] = []
        n = 0  # exchanges left out, oldest first; sizes are summed, not recounted, so a long run stays cheap
        while len(rest) - n > self.keep_recent:
            summary = self._summary(lines)
            if head_size + kept_size + (self.count(summary) if summary else 0) <= self.max_tokens:
                break
            lines.append(summary_line(rest[n]))
            kept_size -= sizes[n]
            n += 1
        summary = self._summary(lines)
        view = self._cut_results(self._view(head, summary, rest[n:]))
        return Fitted(view, sum(len(e) for e in rest[:n]), self.size(view), summary)

    def _summary(self, lines: list[str]) -> str | None:
        if not lines or not self.summarise:
            return None
        if len(lines) > 12:  # the summary must not grow without bound either
            lines = [*lines[:4], f"- ... {len(lines) - 8} more exchanges ...", *lines[-4:]]
        return "\n".join([SUMMARY_HEAD, *lines]) + "]"

    def _view(self, head: list[Message], summary: str | None, rest: list[list[Message]]) -> list[Message]:
        kept = [m for e in rest for m in e]
        if summary is not None and head and isinstance(head[-1], UserMessage):
            head = [*head[:-1], UserMessage(content=f"{head[-1].content}\n\n{summary}")]
        if kept and isinstance(kept[0], UserMessage) and head and isinstance(head[-1], UserMessage):
            # two user turns in a row are refused by some providers: they become one
            head = [*head[:-1], UserMessage(content=f"{head[-1].content}\n\n{kept[0].content}")]
            kept = kept[1:]
        return [*head, *kept]

    def _cut_results(self, view: list[Message]) -> list[Message]:
        """Cut the longest tool results until the view fits (each keeps its start and says how much went)."""
        over = self.size(view) - self.max_tokens
        if over <= 0:
            return view
        order = sorted(
            (i for i, m in enumerate(view) if isinstance(m, ToolResultMessage)),
            key=lambda i: -len(message_text(view[i])),
        )
        out = list(view)
        for i in order:
            if over <= 0:
                break
            r = out[i]
            assert isinstance(r, ToolResultMessage)
            keep = max(len(r.content) - over * 4 - 80, 200)
            if keep >= len(r.content):
                continue
            note = f"\n[... {len(r.content) - keep} characters cut to fit the context budget]"
            out[i] = r.model_copy(update={"content": r.content[:keep] + note})
            over = self.size(out) - self.max_tokens
        return out
