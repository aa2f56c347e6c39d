"""The retrieval tools an agent chooses among, over a `DocumentIndex`: literal and dense search with collection
and metadata filters, listing collections, query rewriting (several phrasings, or a hypothetical answer),
decomposition into sub-questions, reranking, and expanding a hit to its neighbours or its section. The tools
that rewrite or decompose ask `model` (the agent's own, or a cheaper one); without a model they are left out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from toollab.harness.messages import UserMessage
from toollab.harness.model import Model
from toollab.harness.request import CallPolicy, RequestParams, policy_of
from toollab.rag.index import DocumentIndex, Hit, fuse
from toollab.rag.prompts import DECOMPOSE, HYPOTHETICAL, REWRITE
from toollab.tools import Tool, ToolError, tool
from toollab.workflows.steps import fill

SHOWN_CHARACTERS = 400  # of each hit's text in a result (expand shows whole passages)
_LINE_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*(.+?)\s*$")


def search_first(model: Model) -> CallPolicy:
    """The model's call policy, with a first turn that must search: a question put to the documents is never
    answered from the model's memory alone (the embedded model, left to choose, answered all 5 handbook
    questions of a first run without searching). Later turns read the passages and choose, search again or
    answer; the results themselves never become the answer (a local model's default `direct` is switched off)."""
    return replace(policy_of(model), first_turn="required", after_results="auto", direct=False)


def shown(hits: Sequence[Hit], empty: str) -> str:
    return "\n".join(p.shown(SHOWN_CHARACTERS) for p, _ in hits) if hits else empty


def listed(text: str) -> list[str]:
    """The items a model wrote one per line, their bullets and numbers removed (nothing else of the line)."""
    return [m.group(1) for line in text.splitlines() if (m := _LINE_ITEM.match(line))]


async def ask_lines(model: Model, prompt: str, most: int) -> list[str]:
    """A model's answer to `prompt`, one item per line, at most `most`."""
    response = await model.request([UserMessage(content=prompt)], RequestParams())
    return listed(response.message.content or "")[:most]


def rag_tools(index: DocumentIndex, model: Model | None = None) -> list[Tool]:
    def scope(collection: str | None) -> str | None:
        if collection and collection not in index.collections():
            raise ToolError(f"no collection {collection!r}; the collections are: {', '.join(index.collections())}")
        return collection or None

    def clamp(k: int) -> int:
        return max(1, min(k, 10))

    @tool
    def list_collections() -> str:
        """List the document collections and the metadata that searches can filter on."""
        lines = [f"{name}: {docs} documents, {n} passages" for name, (docs, n) in index.collections().items()]
        lines += [f"filter {k}: {', '.join(v[:12])}" for k, v in index.metadata_values().items()]
        return "\n".join(lines) or "The index holds no documents."

    @tool
    def search_text(query: str, collection: str | None = None, filters: dict[str, str] | None = None,
                    k: int = 3) -> str:  # fmt: skip
        """Search the documents for passages containing the query's exact words (names, codes, numbers).

        Args:
            query: Words to find.
            collection: Only this collection (see list_collections).
            filters: Only passages whose metadata has these values, e.g. {"edition": "2024"}.
            k: How many passages (1-10).
        """
        hits = index.search_text(query, clamp(k), scope(collection), filters)
        return shown(hits, f"No passage contains the words of {query!r}; try search_meaning or other words.")

    @tool
    def search_meaning(query: str, collection: str | None = None, filters: dict[str, str] | None = None,
                       k: int = 3) -> str:  # fmt: skip
        """Search the documents for passages that mean what the query means, even in other words.

        Args:
            query: A question or a description of what you need.
            collection: Only this collection (see list_collections).
            filters: Only passages whose metadata has these values, e.g. {"edition": "2024"}.
            k: How many passages (1-10).
        """
        return shown(index.search_meaning(query, clamp(k), scope(collection), filters), "The index is empty.")

    @tool
    def rerank(query: str, passage_ids: list[str]) -> str:
        """Order passages you already found by how well they answer the query, best first.

        Args:
            query: The question.
            passage_ids: Ids of passages from earlier searches.
        """
        found = [p for p in map(index.get, passage_ids) if p is not None]
        unknown = [i for i in passage_ids if index.get(i) is None]
        if not found:
            raise ToolError(f"none of {passage_ids} is a passage id; ids look like 'guide.md#3'")
        lines = [f"{score:.2f} {p.shown(SHOWN_CHARACTERS)}" for p, score in index.rerank(query, found)]
        return "\n".join(lines + ([f"(not passage ids: {', '.join(unknown)})"] if unknown else []))

    @tool
    def expand(passage_id: str, scope: str = "neighbours") -> str:
        """Read more around a passage: the passages just before and after it, or its whole section.

        Args:
            passage_id: The id of a passage, like 'guide.md#3'.
            scope: "neighbours" or "section".
        """
        if index.get(passage_id) is None:
            raise ToolError(f"no passage {passage_id!r}; use an id from a search result, like 'guide.md#3'")
        if scope not in ("neighbours", "section"):
            raise ToolError(f"scope must be 'neighbours' or 'section', not {scope!r}")
        around = index.neighbours(passage_id) if scope == "neighbours" else index.section(passage_id)
        return "\n".join(p.shown() for p in around)

    tools = [list_collections, search_text, search_meaning, rerank, expand]
    if model is None:
        return tools

    @tool
    async def search_rephrased(question: str, k: int = 3) -> str:
        """Search with several rephrasings of the question at once (finds passages worded differently).

        Args:
            question: The question.
            k: How many passages (1-10).
        """
        rewrites = [question, *await ask_lines(model, fill(REWRITE, question), 3)]
        hits = fuse([index.search(q, 10) for q in rewrites], clamp(k))
        return "Searched: " + " | ".join(rewrites) + "\n" + shown(hits, "Nothing found.")

    @tool
    async def search_hypothetical(question: str, k: int = 3) -> str:
        """Write a plausible answer first, then find the passages most like it (for questions whose words the
        documents do not use).

        Args:
            question: The question.
            k: How many passages (1-10).
        """
        draft = await model.request([UserMessage(content=fill(HYPOTHETICAL, question))], RequestParams())
        guess = (draft.message.content or question).strip()
        return shown(index.search_meaning(f"{question} {guess}", clamp(k)), "The index is empty.")

    @tool
    async def sub_questions(question: str) -> str:
        """Split a question that needs several facts into simpler questions, to search for one by one.

        Args:
            question: The question.
        """
        parts = await ask_lines(model, fill(DECOMPOSE, question), 4)
        return "\n".join(f"{i}. {p}" for i, p in enumerate(parts, 1)) or "The question is simple: search it as it is."

    return [*tools, search_rephrased, search_hypothetical, sub_questions]
