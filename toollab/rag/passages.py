"""Passages: the pieces of documents that search returns. A section is cut at paragraph ends into passages of
about `words` words, so a hit is short enough to read and still says where it sits (document, section, place)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toollab.rag.documents import Document

_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Passage:
    """`id` is "document#n" (n counts from 0 through the document, so neighbours are n - 1 and n + 1)."""

    id: str
    document: str
    collection: str
    title: str
    section: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def place(self) -> str:
        return f"{self.collection}/{self.title}" + (f" > {self.section}" if self.section else "")

    def searchable(self) -> str:
        """What search reads: the title and section name carry words the text may not repeat."""
        return f"{self.title}. {self.section}. {self.text}"

    def shown(self, limit: int | None = None) -> str:
        """The passage as a tool result shows it: one line, with its id to cite (Markdown's hard line breaks
        would only cost tokens)."""
        text = " ".join(self.text.split())
        text = text if limit is None or len(text) <= limit else text[: limit - 3] + "..."
        return f"[{self.id}] ({self.place}) {text}"


def pieces(text: str, words: int) -> list[str]:
    """Paragraphs joined up to about `words` words; a paragraph longer than that is cut at sentence ends."""
    out: list[str] = []
    current, size = "", 0
    for paragraph in (p.strip() for p in _PARAGRAPH.split(text) if p.strip()):
        units = [paragraph] if len(paragraph.split()) <= words else re.split(r"(?<=[.!?])\s+", paragraph)
        for k, unit in enumerate(units):
            n = len(unit.split())
            if current and size + n > words:
                out.append(current)
                current, size = "", 0
            current += ("" if not current else " " if k else "\n\n") + unit
            size += n
    if current:
        out.append(current)
    return out


def passages(documents: Iterable[Document], words: int = 80) -> list[Passage]:
    out = []
    for doc in documents:
        n = 0
        for section in doc.sections:
            for text in pieces(section.text, words):
                out.append(Passage(f"{doc.id}#{n}", doc.id, doc.collection, doc.title, section.title, text,
                                   doc.metadata))  # fmt: skip
                n += 1
    return out
