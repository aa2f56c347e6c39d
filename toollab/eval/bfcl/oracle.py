"""The self-check: a model that writes BFCL's ground truth in a wire format, so the whole pipeline (prompt,
rendering, parsing, name mapping, argument decoding, execution, scoring) is proven on answers known to be right.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from toollab.eval.bfcl.data import Item, judged_by_relevance
from toollab.formats import Format
from toollab.harness import AssistantMessage, Message, ModelResponse, ToolCall, UserMessage
from toollab.harness.request import RequestParams
from toollab.tools import ToolSpec


def _concrete(value: Any) -> Any:
    """A possible-answer value made concrete: inside dicts (and lists of dicts) BFCL again lists acceptable
    values per key."""
    if isinstance(value, dict):
        return {
            k: (_concrete(vs[0]) if isinstance(vs, list) else vs)
            for k, vs in value.items()
            if not isinstance(vs, list) or (vs and vs[0] != "")
        }
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_concrete(v) for v in value]
    return value


def first_acceptable(values: Sequence[Any], required: bool) -> tuple[bool, Any]:
    """The first value the answer accepts; (False, None) when leaving an optional argument out comes first."""
    choices = [v for v in values if v != ""] if required else list(values)
    if not choices or choices[0] == "":
        return False, None
    return True, _concrete(choices[0])


def answer_calls(item: Item) -> list[ToolCall]:
    """A single-turn item's ground truth as calls (relevance items: one call of the first tool, none for
    irrelevance)."""
    if item.category == "live_relevance":
        return [ToolCall(name=item.functions[0]["name"], arguments={})]
    if judged_by_relevance(item.category):
        return []
    required = {f["name"]: set(f.get("parameters", {}).get("required", [])) for f in item.functions}
    calls = []
    for call in item.answer:
        for name, acceptable in call.items():
            arguments = {}
            for arg, values in acceptable.items():
                present, value = first_acceptable(values, arg in required.get(name, set()))
                if present:
                    arguments[arg] = value
            calls.append(ToolCall(name=name, arguments=arguments))
    return calls


def parse_ground_truth(text: str, functions: list[dict[str, Any]]) -> ToolCall:
    """A multi-turn ground-truth string such as "sort('report.pdf')"; positional values take the declared
    parameter names in order."""
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name), text
    name = node.func.id
    declared = next(list(f["parameters"]["properties"]) for f in functions if f["name"] == name)
    arguments = {declared[i]: ast.literal_eval(v) for i, v in enumerate(node.args)}
    arguments |= {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
    return ToolCall(name=name, arguments=arguments)


class GroundTruthModel:
    """Answers one item with its ground truth, written as `format` writes calls and read back by its parser.

    Single-turn: every call in one response. Multi-turn: one call per response, in order, then a short answer
    ends the turn.
    """

    def __init__(self, item: Item, format: Format, names: dict[str, str]):
        self.item = item
        self.format = format
        self.to_model_name = {bfcl: mine for mine, bfcl in names.items()}  # BFCL name -> name the model sees
        self.name = f"ground-truth:{format.name}"
        # the number of user messages seen when each turn starts (a turn may hold several, or none)
        self._turn_starts = []
        seen = 0
        for turn in item.turns:
            seen += sum(m["role"] == "user" for m in turn)
            self._turn_starts.append(seen)

    def _write(self, calls: Sequence[ToolCall], tools: Sequence[ToolSpec]) -> ModelResponse:
        renamed = [c.model_copy(update={"name": self.to_model_name.get(c.name, c.name)}) for c in calls]
        text = self.format.render_calls(renamed) if renamed else "None of the functions fits this request."
        return ModelResponse(self.format.parse(text, tools), raw=text)

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        tools = params.tools
        if not self.item.multi_turn:
            return self._write(answer_calls(self.item), tools)
        turn = self._turn_starts.index(sum(isinstance(m, UserMessage) for m in messages))
        last_user = max(i for i, m in enumerate(messages) if isinstance(m, UserMessage))
        step = sum(isinstance(m, AssistantMessage) for m in messages[last_user:])
        truth = self.item.answer[turn]
        if step < len(truth):
            return self._write([parse_ground_truth(truth[step], self.item.functions)], tools)
        return ModelResponse(AssistantMessage(content="Done."), raw="Done.")
