"""BFCL's test items and answers, read from the installed `bfcl-eval` package."""

from __future__ import annotations

import copy
import hashlib
import importlib.resources
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SINGLE_TURN = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)
MULTI_TURN = ("multi_turn_base",)
CATEGORIES = SINGLE_TURN + MULTI_TURN
# Categories judged by whether a call was made, not by its content.
RELEVANCE = ("irrelevance", "live_irrelevance", "live_relevance")


def judged_by_relevance(category: str) -> bool:
    """Whether items of `category` pass on making a call or not (BFCL's and the dev set's (ir)relevance)."""
    return category in RELEVANCE or category.endswith("_irrelevance")


# Which BFCL function-doc file serves each environment class of the multi-turn categories.
_FUNC_DOCS = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
}


@dataclass(slots=True)
class Item:
    """One BFCL test: the conversation (a list of turns, each a list of messages), the functions offered, and
    the answer (possible values per argument, or per-turn call strings for multi-turn; None for relevance)."""

    id: str
    category: str
    turns: list[list[dict[str, Any]]]
    functions: list[dict[str, Any]]
    answer: Any = None
    entry: dict[str, Any] = field(default_factory=dict)

    @property
    def multi_turn(self) -> bool:
        return self.category in MULTI_TURN


def data_dir() -> Path:
    try:
        return Path(str(importlib.resources.files("bfcl_eval") / "data"))
    except ModuleNotFoundError:
        raise RuntimeError(
            "BFCL is not installed: pip install --no-deps bfcl-eval mpmath (see DEVELOPERS.md)"
        ) from None


def _lines(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _func_docs(classes: list[str]) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for name in classes:
        docs.extend(_lines(data_dir() / "multi_turn_func_doc" / _FUNC_DOCS[name]))
    return docs


def sample_key(item_id: str) -> str:
    """The order `limit` takes items in: a fixed hash, so a sample spreads over BFCL's topic-ordered files, is the
    same on every machine, and a smaller limit is a subset of a larger one (runs stay paired)."""
    return hashlib.sha256(item_id.encode()).hexdigest()


def load_category(category: str, limit: int | None = None) -> list[Item]:
    if category not in CATEGORIES:
        raise ValueError(f"unknown BFCL category {category!r}; known: {', '.join(CATEGORIES)}")
    entries = _lines(data_dir() / f"BFCL_v4_{category}.json")
    answers: dict[str, Any] = {}
    answer_file = data_dir() / "possible_answer" / f"BFCL_v4_{category}.json"
    if answer_file.exists():
        answers = {a["id"]: a["ground_truth"] for a in _lines(answer_file)}
    if limit is not None:
        entries = sorted(entries, key=lambda e: sample_key(e["id"]))[:limit]
    items = []
    for entry in entries:
        functions = _func_docs(entry["involved_classes"]) if category in MULTI_TURN else entry["function"]
        items.append(
            Item(
                id=entry["id"],
                category=category,
                turns=copy.deepcopy(entry["question"]),
                functions=functions,
                answer=answers.get(entry["id"]),
                entry=entry,
            )
        )
    return items


def load(categories: list[str], limit: int | None = None) -> list[Item]:
    return [item for c in categories for item in load_category(c, limit)]
