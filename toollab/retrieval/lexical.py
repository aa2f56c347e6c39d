"""BM25 (bm25s) over tool texts, against a fixed background corpus so that word weights mean something."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any


@functools.cache
def background() -> tuple[str, ...]:
    """Tool texts of everyday kinds that any request is measured against (this project's own wording)."""
    return (
        "get information. Look something up and return what was found",
        "create item. Make a new record with a name and a description",
        "update settings. Change a value in the user's settings",
        "delete entry. Remove an entry by its id",
        "search documents. Find documents that match a query text",
        "list items. Return all items of a kind, optionally filtered",
        "send message. Send a text message to a person",
        "calculate value. Compute a number from the given inputs",
        "convert units. Convert a value from one unit to another",
        "schedule event. Put an event on a calendar at a date and time",
        "book reservation. Reserve a place for a number of people at a time",
        "check status. Report the current status of an order or a device",
    )


def bm25_index(documents: Sequence[str], with_background: bool = True) -> Any:
    """A bm25s index of the documents followed by the background corpus (score rows: documents first). A corpus
    of its own size (document passages) needs no background: `with_background=False`."""
    import bm25s

    retriever = bm25s.BM25()
    corpus = [*documents, *background()] if with_background else list(documents)
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    return retriever


def bm25_row(index: Any, query: str, documents: int) -> list[float]:
    """The query's BM25 score of each of the first `documents` documents of `index`."""
    import bm25s

    words = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
    return [float(s) for s in index.get_scores(list(words))[:documents]]


def bm25_scores(query: str, documents: Sequence[str]) -> list[float]:
    """The BM25 score of each document for the query, indexed with the background corpus."""
    return bm25_row(bm25_index(documents), query, len(documents))
