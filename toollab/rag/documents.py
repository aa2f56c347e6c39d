"""Reading a folder of documents: plain text, Markdown (its headings make sections, its front matter metadata)
and PDF (one section per page). Each first-level subfolder is a collection; files at the top are in "main"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUFFIXES = {".txt": "text", ".md": "markdown", ".markdown": "markdown", ".pdf": "pdf"}
TOP = "main"  # the collection of files directly in the folder
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)


@dataclass(frozen=True, slots=True)
class Section:
    """A titled stretch of a document ("" for text before the first heading)."""

    title: str
    text: str


@dataclass(frozen=True)
class Document:
    """`id` is the path inside the folder; `metadata` comes from Markdown front matter (plus `kind`)."""

    id: str
    collection: str
    title: str
    kind: str
    sections: list[Section]
    metadata: dict[str, Any] = field(default_factory=dict)


class UnreadableDocument(Exception):
    """A file with a known suffix that could not be read (a damaged PDF, bad UTF-8, broken front matter)."""


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The YAML front matter of a Markdown text (scalars only) and the text after it."""
    match = _FRONT.match(text)
    if not match:
        return {}, text
    import yaml

    try:
        data = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise UnreadableDocument(f"front matter is not YAML: {exc}") from None
    if not isinstance(data, dict):
        raise UnreadableDocument("front matter is not a mapping of keys to values")
    return {str(k): v for k, v in data.items() if isinstance(v, str | int | float | bool)}, text[match.end() :]


def markdown_sections(text: str) -> tuple[str | None, list[Section]]:
    """The first level-1 heading (the title, if any) and the sections under each heading."""
    from markdown_it import MarkdownIt

    lines = text.splitlines()
    tokens = MarkdownIt("commonmark").parse(text)
    heads = []  # (first line, line after the heading, heading text, level)
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.map is not None:
            heads.append((t.map[0], t.map[1], tokens[i + 1].content.strip(), int(t.tag[1])))
    title = next((h[2] for h in heads if h[3] == 1), None)
    sections = []
    if heads and heads[0][0] > 0:
        sections.append(Section("", "\n".join(lines[: heads[0][0]]).strip()))
    elif not heads:
        sections.append(Section("", text.strip()))
    for n, (_, body_start, name, _) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        sections.append(Section(name, "\n".join(lines[body_start:end]).strip()))
    return title, [s for s in sections if s.text]


def pdf_sections(path: Path) -> list[Section]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        pages = [page.extract_text() or "" for page in PdfReader(path).pages]
    except (PdfReadError, ValueError, KeyError) as exc:
        raise UnreadableDocument(f"not a readable PDF: {exc}") from None
    return [Section(f"page {i}", text.strip()) for i, text in enumerate(pages, 1) if text.strip()]


def read_document(path: Path, root: Path) -> Document:
    relative = path.relative_to(root)
    collection = relative.parts[0] if len(relative.parts) > 1 else TOP
    kind = SUFFIXES[path.suffix.lower()]
    metadata: dict[str, Any] = {}
    title: str | None = None
    if kind == "pdf":
        sections = pdf_sections(path)
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise UnreadableDocument(f"not UTF-8 text: {exc}") from None
        if kind == "markdown":
            metadata, text = front_matter(text)
            title, sections = markdown_sections(text)
        else:
            sections = [Section("", text.strip())] if text.strip() else []
    title = str(metadata.pop("title", None) or title or path.stem.replace("_", " ").replace("-", " "))
    return Document(relative.as_posix(), collection, title, kind, sections, metadata | {"kind": kind})


def walk(root: Path) -> Iterator[Path]:
    """The readable files under `root`, in a stable order, skipping hidden files and folders (an index folder)."""
    for path in sorted(root.rglob("*")):
        hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
        if path.is_file() and path.suffix.lower() in SUFFIXES and not hidden:
            yield path


def load_folder(root: str | Path) -> tuple[list[Document], list[str]]:
    """The documents of a folder, and a line for each file that could not be read (never silently skipped)."""
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"no such folder: {root}")
    documents, problems = [], []
    for path in walk(root):
        try:
            documents.append(read_document(path, root))
        except (UnreadableDocument, OSError) as exc:
            problems.append(f"{path.relative_to(root)}: {exc}")
    return documents, problems
