"""Decoding with the calculator live: when the model writes the arrow inside a call, decoding pauses, the call is
dispatched through toollab's harness (a real `ToolCall`, validated and answered like any other), the result and
the closing are written into the text, and decoding goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from toollab.harness.dispatch import Dispatcher
from toollab.harness.messages import ToolCall
from toollab.toolformer.lm import LM, Ids
from toollab.toolformer.syntax import CallSyntax


@dataclass
class Call:
    written: str  # the expression as the model wrote it
    argument: str  # what the tool received
    content: str  # what the tool answered
    is_error: bool
    inserted: str  # the text written into the row after the arrow ("" when the result could not be written)


@dataclass
class Completion:
    text: str  # everything after the prompt, calls included
    model_tokens: int  # tokens the model wrote (not those the tool wrote)
    calls: list[Call] = field(default_factory=list)


async def complete(
    lm: LM,
    prompts: Sequence[Ids],
    syntax: CallSyntax,
    dispatcher: Dispatcher | None,
    *,
    end: str,
    max_new_tokens: int = 24,
    max_calls: int = 3,
    banned: Sequence[int] = (),
    opened: Sequence[int] = (),
) -> list[Completion]:
    """Greedy continuations of `prompts` until `end`; with a `dispatcher`, each call is run where the model writes
    the arrow (without one, the model writes the results itself). `opened`: tokens written for the model after
    each prompt (an opening, to force a call), part of the completion. Every call gets its one result: a tool error
    or a result the text cannot hold leaves the call without a result, and the model goes on from there. An arrow
    written outside a call is plain text: decoding goes on."""
    rows = [[*p, *opened] for p in prompts]
    done = [Completion("", 0) for _ in prompts]
    active = list(range(len(rows)))
    stops = [end, syntax.arrow.strip()] if dispatcher is not None else [end]
    for _round in range(max_calls + 1):
        if not active:
            break
        new = lm.continue_rows([rows[i] for i in active], stops=stops, max_new_tokens=max_new_tokens, banned=banned)
        paused: list[tuple[int, str]] = []
        going_on: list[int] = []
        for i, made in zip(active, new, strict=True):
            rows[i] += made
            done[i].model_tokens += len(made)
            text = lm.decode(rows[i][len(prompts[i]) :])
            if done[i].model_tokens >= max_new_tokens or dispatcher is None or text.rstrip().endswith(end):
                continue
            written = syntax.written(text)
            if written is not None and len(done[i].calls) < max_calls:
                paused.append((i, written))
            elif written is None and text.rstrip().endswith(syntax.arrow.strip()):
                going_on.append(i)
        if dispatcher is not None and paused:
            calls = [
                ToolCall(
                    id=f"call_{i}_{len(done[i].calls)}", name=syntax.tool, arguments={"expression": syntax.argument(w)}
                )
                for i, w in paused
            ]
            results = await dispatcher.dispatch_all(calls)
            for (i, w), call, result in zip(paused, calls, results, strict=True):
                written_result = None if result.is_error else syntax.result(result.content)
                inserted = f"{written_result or ''}{syntax.close}"
                rows[i] += lm.encode(inserted)
                done[i].calls.append(Call(w, call.arguments["expression"], result.content, result.is_error, inserted))
        active = sorted([i for i, _ in paused] + going_on)
    for i, c in enumerate(done):
        c.text = lm.decode(rows[i][len(prompts[i]) :])
    return done
