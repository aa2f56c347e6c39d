"""Fixed retrieval pipelines, as workflows: the programmer, not the model, chooses how to search. They are what
the agent's own choices are measured against (`toollab lab rag`).

Each is a chain: optional rewriting by the model, retrieval (`Retrieve`, no model), then one answer request that
reads the passages. Rewriting prompts are those of the agent's tools (`toollab.rag.tools`).
"""

from __future__ import annotations

from toollab.harness.messages import UserMessage
from toollab.harness.model import Model
from toollab.rag.index import DocumentIndex, Hit, fuse
from toollab.rag.prompts import ANSWER, DECOMPOSE, HYPOTHETICAL, REWRITE
from toollab.rag.tools import SHOWN_CHARACTERS, listed
from toollab.workflows import Chain, Prompt, Session, Step, Workflow

PIPELINES = ("hybrid", "rerank", "multi-query", "hypothetical", "decompose")
AGENT = "agent"  # the model chooses among the retrieval tools
# The embedded model answered 0 of 20 handbook questions as an agent and 7 of 20 with multi-query, the best
# pipeline (`toollab lab rag --model local --n 20 --seed 0`; README "Agentic retrieval"): local models default to it.
LOCAL_STRATEGY = "multi-query"


def rag_strategy(choice: str, local: bool) -> str:
    """The strategy `choice` names ("auto": `LOCAL_STRATEGY` for a local model, the agent otherwise)."""
    if choice == "auto":
        return LOCAL_STRATEGY if local else AGENT
    if choice != AGENT and choice not in PIPELINES:
        raise ValueError(
            f"unknown retrieval strategy {choice!r}; choose auto, {AGENT} or one of {', '.join(PIPELINES)}"
        )
    return choice


class Retrieve:
    """The retrieval step: finds `k` passages for the task (the workflow's input), using the previous step's
    output as the technique needs it, and writes them with the question for the answer step."""

    def __init__(self, index: DocumentIndex, technique: str, k: int = 3, depth: int = 20):
        self.index, self.technique, self.k, self.depth = index, technique, k, depth
        self.name = "retrieve"

    def hits(self, question: str, previous: str) -> list[Hit]:
        lines = listed(previous)
        if self.technique == "hybrid":
            return self.index.search(question, self.k)
        if self.technique == "rerank":
            candidates = [p for p, _ in self.index.search(question, self.depth)]
            return self.index.rerank(question, candidates)[: self.k]
        if self.technique == "hypothetical":
            return self.index.search_meaning(f"{question} {previous}", self.k)
        # multi-query and decompose: every line searched, with the question itself, fused
        return fuse([self.index.search(q, self.depth) for q in [question, *lines[:4]]], self.k)

    async def run(self, session: Session, text: str, path: str) -> str:
        question = next(m.content for m in session.messages if isinstance(m, UserMessage))
        found = self.hits(question, "" if text == question else text)
        passages = "\n".join(p.shown(SHOWN_CHARACTERS) for p, _ in found) or "(no passages found)"
        return f"Passages:\n{passages}\n\nQuestion: {question}"


def pipeline(name: str, index: DocumentIndex, model: Model, k: int = 3) -> Workflow:
    """The fixed pipeline `name` (one of PIPELINES) over `index`, asking `model`."""
    answer = Prompt(model, ANSWER, name="answer")
    rewrite = {"multi-query": REWRITE, "hypothetical": HYPOTHETICAL, "decompose": DECOMPOSE}
    steps: list[Step]
    if name in ("hybrid", "rerank"):
        steps = [Retrieve(index, name, k), answer]
    elif name in rewrite:
        steps = [Prompt(model, rewrite[name], name="rewrite"), Retrieve(index, name, k), answer]
    else:
        raise ValueError(f"unknown pipeline {name!r}; known: {', '.join(PIPELINES)}")
    return Workflow(Chain(steps, name=name))
