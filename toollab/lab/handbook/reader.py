"""A simulated reader for the handbook: it reads perfectly whatever passages it is shown, and, as an agent, makes
the retrieval move a careful model would for each kind of question. So it measures what each retrieval strategy
puts in front of a reader and what it costs, not a model's judgement (the embedded model measures that).

How it reads: a question's answer rests on phrases of the documents (`Question.evidence`); when every phrase is
in a passage it was shown, it answers with the value and cites those passages; when conflicting passages are both
shown (two editions of a policy), it takes the first; otherwise it answers that the documents do not say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toollab.harness.messages import AssistantMessage, Message, ToolCall, ToolResultMessage, Usage, UserMessage
from toollab.harness.model import ModelResponse
from toollab.harness.request import RequestParams
from toollab.lab.handbook.world import KINDS_OF_UNIT, Handbook, Question

_PASSAGE = re.compile(r"^(?:\d+\.\d+ )?\[([^\]]+)\] \([^)]*\) (.*)$")
NOT_SAID = "The documents do not say."


def normal(text: str) -> str:
    return " ".join(text.split())


def passages_in(messages: Sequence[Message]) -> list[tuple[str, str]]:
    """Every passage shown so far, as (id, text), in the order shown."""
    out = []
    for m in messages:
        text = m.content if isinstance(m, ToolResultMessage | UserMessage) else ""
        for line in text.splitlines():
            match = _PASSAGE.match(line)
            if match:
                out.append((match.group(1), normal(match.group(2))))
    return out


class SimulatedReader:
    name = "handbook reader (simulated)"

    def __init__(self, book: Handbook, asked: Sequence[Question]):
        self.book = book
        self.by_text = {q.text: q for q in asked}

    def question(self, messages: Sequence[Message]) -> Question | None:
        for m in messages:
            if isinstance(m, UserMessage):
                for text, q in self.by_text.items():
                    if text in m.content:
                        return q
        return None

    def answer(self, q: Question, shown: list[tuple[str, str]]) -> str:
        cited = []
        for phrase in q.evidence:
            hit = next((pid for pid, text in shown if normal(phrase) in text), None)
            if hit is None:
                return NOT_SAID
            cited.append(hit)
        value = q.expected
        if q.kind == "edition":  # two editions shown: the first one read wins
            unit = next(u for u in KINDS_OF_UNIT if f"of a {u}?" in q.text)
            pattern = re.compile(rf"Each {unit} must be inspected every (\d+) months")
            first = next(((pid, m.group(1)) for pid, text in shown if (m := pattern.search(text))), None)
            if first is not None:
                cited, value = [first[0]], first[1]
        return f"{value} [{'] ['.join(dict.fromkeys(cited))}]"

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        q = self.question(messages)
        prompt = messages[-1].content if isinstance(messages[-1], UserMessage) else ""
        if q is None:
            reply: AssistantMessage = AssistantMessage(content=NOT_SAID)
        elif params.tools:
            reply = self.act(q, messages)
        elif prompt.startswith("Write three different ways"):
            reply = AssistantMessage(content=self.rephrase(q))
        elif prompt.startswith("Write a short passage"):
            reply = AssistantMessage(content=self.imagine(q))
        elif prompt.startswith("Split this question"):
            reply = AssistantMessage(content=self.split(q))
        else:
            reply = AssistantMessage(content=self.answer(q, passages_in(messages)))
        read = sum(len(getattr(m, "content", "") or "") for m in messages)
        written = len(reply.content or "") + sum(len(c.args_as_json_str()) for c in reply.tool_calls)
        return ModelResponse(reply, Usage(input_tokens=read // 4 + 1, output_tokens=written // 4 + 1))

    # ---- rewriting, as a model would without knowing the documents ------------------------------------

    def rephrase(self, q: Question) -> str:
        swaps = [("heavy", "much does it weigh"), ("final", "last"), ("manages", "is the manager of"),
                 ("maximum pressure", "pressure limit")]  # fmt: skip
        variants = []
        for old, new in swaps:
            if old in q.text:
                variants.append(q.text.replace(old, new))
        return "\n".join([*variants, q.text.rstrip("?") + " according to the documents?"][:3])

    def imagine(self, q: Question) -> str:
        product = self.product_of(q)
        if q.kind == "paraphrase":
            return f"The {product}'s mass is about 10 kilograms."
        if q.kind == "two hops":
            return f"The {product} is made at a site managed by a plant manager."
        if q.kind == "last step":
            return f"Finally, to shut down the {product}, switch it off and record the shutdown."
        return q.text

    def split(self, q: Question) -> str:
        if q.kind == "two hops":
            return f"Where is the {self.product_of(q)} made?\nWho manages that site?"
        return q.text

    def product_of(self, q: Question) -> str:
        return next((p.name for p in self.book.products if p.name in q.text), "unit")

    # ---- as an agent ------------------------------------------------------------------------------------

    def act(self, q: Question, messages: Sequence[Message]) -> AssistantMessage:
        shown = passages_in(messages)
        calls = [c for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
        said = self.answer(q, shown)
        if said != NOT_SAID or len(calls) >= 4:
            return AssistantMessage(tool_calls=[ToolCall(name="finish", arguments={"answer": said})])
        move = self.next_move(q, shown, [c.name for c in calls])
        return AssistantMessage(tool_calls=[ToolCall(name=move[0], arguments=move[1])])

    def next_move(self, q: Question, shown: list[tuple[str, str]], done: list[str]) -> tuple[str, dict]:
        product = self.product_of(q)
        if q.kind == "edition":
            if "list_collections" not in done:
                return "list_collections", {}
            edition = re.search(r"\b(20\d\d)\b", q.text)
            return "search_text", {"query": q.text, "filters": {"edition": edition.group(1) if edition else ""}}
        if q.kind == "two hops":
            site = next((m.group(1) for _, t in shown if (m := re.search(r"made at the (\w+) site", t))), None)
            if site is not None:
                return "search_text", {"query": f"{site} site managed by"}
            return "search_text", {"query": f"{product} made at site"}
        if q.kind == "last step":
            mine = [pid for pid, text in shown if product in text and "steps" in text]
            if mine and "expand" not in done:
                return "expand", {"passage_id": mine[-1], "scope": "section"}
            return "search_text", {"query": f"{product} shutdown procedure"}
        tool = "search_meaning" if q.kind == "paraphrase" or "search_text" in done else "search_text"
        return tool, {"query": q.text}
