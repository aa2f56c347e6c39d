"""The call gate of a local model: on a turn whose tool choice is "auto", decide between calling and answering.

Left to itself under the "auto" grammar, SmolLM2-135M never opens a call; forced to ("required") it calls even
when no tool fits. The gate measures one signal, compares it with a threshold fitted on the dev set (never on
BFCL), and turns the turn into "required" or "none" before decoding.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toollab.harness.chain import asks_arithmetic
from toollab.harness.messages import Message, last_request, without_names, without_quoted
from toollab.harness.request import RequestParams
from toollab.models import local_weights
from toollab.models.local_cases import BRACKETED, first_items, list_spans
from toollab.models.local_names import GLUE_WORDS, name_words
from toollab.models.local_numbers import said_numbers
from toollab.models.local_parts import SENTENCE_END, request_parts
from toollab.tools import ToolSpec

if TYPE_CHECKING:
    from toollab.models.local import LocalModel


async def gate_score(model: LocalModel, messages: Sequence[Message], params: RequestParams, prompt: str) -> float:
    """The gate's signal for this turn (see `toollab.harness.request.Gate`)."""
    assert params.gate is not None
    tools = [t for t in params.tools if t.name != params.finish]
    if params.gate.signal == "model":
        envelope = model.format.envelope
        trigger = envelope.trigger if envelope is not None else ""
        return await local_weights.on_torch_thread_async(model.continuation_logprob, prompt, trigger)
    # MiniLM runs on torch too: on the decoding thread, not beside it. On another thread its OpenMP workers go on
    # spinning after it ends and take the cores from the decode (0.83x the tok/s with the gate than without it).
    return await local_weights.on_torch_thread_async(
        request_relevance, last_request(messages), tools, params.gate.signal
    )


_BRACKETED = re.compile(rf"\s*{BRACKETED.pattern}")  # a list in brackets, with the space before it
_GLUE = "|".join(sorted(GLUE_WORDS, key=len, reverse=True))
_ITEM = rf"[a-z][\w'-]*(?: (?!(?:{_GLUE})\b)[a-z][\w'-]*)?"  # a lowercase word or two ("wool hat", not "garlic at")
_WORD_LIST = re.compile(rf"\b({_ITEM})(?:, {_ITEM})*,? and {_ITEM}\b")


def lists_shortened(text: str) -> str:
    """`text` without its lists in brackets, and with each list of lowercase words reduced to its first item: to
    MiniLM a list of things fits the tool that takes them less than one of them ("What would tofu, spinach and garlic
    cost at Casa Lume?" 0.18; the dev split's list requests pass the gate 62% -> 74%, no other category's changes)."""
    return _WORD_LIST.sub(lambda m: m.group(1), _BRACKETED.sub("", text))


def lists_named(text: str, tools: Sequence[ToolSpec]) -> list[tuple[str, ToolSpec]]:
    """`text` once for each array parameter of a tool, with each list it writes (of names, of lowercase words, in
    brackets) in words of the parameter's name, paired with its tool: MiniLM does not know a list's items as what
    the tool takes ("Price tofu, spinach and garlic at Sakura Bar." 0.175 against "Price a basket of groceries",
    "Check set times for Neon Fields and The Lanterns in Porto." 0.242, with "bands" 0.462). No text where it
    writes no list."""
    spans = list_spans(text, tools) + [m.span() for m in (*_WORD_LIST.finditer(text), *_BRACKETED.finditer(text))]
    lists: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda span: (span[0], -span[1])):
        if not lists or start >= lists[-1][1]:  # of lists that overlap, the first and longest
            lists.append((start, end))
    named: list[tuple[str, ToolSpec]] = []
    for tool in tools if lists else ():
        for name, schema in tool.parameters.get("properties", {}).items():
            if isinstance(schema, dict) and schema.get("type") == "array":
                words, written = " ".join(name_words(name)), text
                if not words:
                    continue
                for start, end in reversed(lists):
                    written = written[:start] + (" " if text[start].isspace() else "") + words + written[end:]
                named.append((written, tool))
    return named


def request_relevance(request: str, tools: Sequence[ToolSpec], signal: str) -> float:
    """How well the request fits its best tool: the whole request, or its best-fitting part when it asks several
    things (`request_parts`): two questions joined in one request fit their tools less than either alone, so a
    stricter threshold turned joined requests to prose (6 of the dev set's 60 parallel_multiple items at 0.305);
    each of its sentences of three words or more, as an aside dilutes the ask ("How difficult is Eagle Ridge? I
    found you through the Kestrel app." 0.286, the question alone 0.326: of the dev split's 200 items a category,
    4 simple and multiple ones more pass, no irrelevance one); each of these with its lists reduced to their
    first items (`local_cases.first_items`); the request without its lists in brackets and with its lists of
    lowercase words reduced to their first items (`lists_shortened`); and each of the first with its lists in
    words of an array parameter's name, against that parameter's tool (`lists_named`)."""
    from toollab.retrieval.relevance import relevance

    sentences = [s for s in SENTENCE_END.split(request.strip()) if len(s.split()) >= 3]
    said = list(dict.fromkeys([request, *(p.request for p in request_parts(request)), *sentences]))
    asked = [*said, *(first_items(text, tools) for text in said), lists_shortened(request)]
    named = [pair for text in said for pair in lists_named(text, tools)]
    if signal == "dense-unnamed":
        asked, signal = [without_names(a) for a in asked], "dense"
        named = [(without_names(text), tool) for text, tool in named]
    return max(
        [relevance(without_quoted(text), tools, signal) for text in dict.fromkeys(asked)]
        + [relevance(without_quoted(text), [tool], signal) for text, tool in named]
    )


async def decide(
    model: LocalModel, messages: Sequence[Message], params: RequestParams, prompt: str
) -> tuple[RequestParams, dict[str, Any] | None]:
    """The request as the gate leaves it ("auto" made "required", without the finish action, or "none"), and what
    it measured (None when the gate did not apply). The decided tools shape the grammar; the prompt, already
    written, still lists every tool."""
    gate = params.gate
    if gate is None or params.tool_choice != "auto" or not params.tools:
        return params, None
    score = await gate_score(model, messages, params, prompt)
    request = last_request(messages)
    arithmetic = asks_arithmetic(request, params.tools, said_numbers(without_quoted(request)))
    call = score >= gate.threshold or arithmetic
    if call:  # a call, of a tool: the finish action is an answer, which the gate has just turned down
        tools = [t for t in params.tools if t.name != params.finish] or list(params.tools)
        decided = dataclasses.replace(params, tools=tools, tool_choice="required")
    else:
        decided = dataclasses.replace(params, tool_choice="none")
    measured = {"signal": gate.signal, "score": score, "threshold": gate.threshold, "call": call}
    return decided, measured | ({"arithmetic": True} if arithmetic else {})
