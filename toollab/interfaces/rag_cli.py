"""`toollab rag index` and `toollab rag search`: a folder of documents made searchable, and searched by hand.
`toollab run --docs DIR` gives an agent the retrieval tools over it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from toollab.interfaces.loading import progress_bar
from toollab.interfaces.options import fail
from toollab.rag import INDEX_FOLDER, DocumentIndex

app = typer.Typer(help="Ask questions of a folder of documents (text, Markdown, PDF).", no_args_is_help=True)
console = Console()

Folder = Annotated[Path, typer.Argument(help="The folder of documents (subfolders are collections).")]


def saved_index(folder: Path) -> Path:
    return folder / INDEX_FOLDER


def build_index(folder: Path, words: int, out: Console) -> DocumentIndex:
    """Index `folder` (reusing the embeddings of its saved index), save it, and say what was read."""
    if not folder.is_dir():
        raise fail(f"no such folder: {folder}")
    previous = None
    if (saved_index(folder) / "passages.jsonl").is_file():
        previous = DocumentIndex.load(saved_index(folder))
    started = time.perf_counter()
    with progress_bar(out) as progress:
        bar = progress.add_task("embedding passages", total=None)
        index, problems = DocumentIndex.build(
            folder, words, lambda done, total: progress.update(bar, completed=done, total=total), reuse=previous
        )
    index.save(saved_index(folder))
    for problem in problems:
        out.print(f"[yellow]not read:[/yellow] {problem}")
    for name, (docs, n) in index.collections().items():
        out.print(f"{name}: {docs} documents, {n} passages")
    out.print(
        f"[dim]{len(index.passages)} passages ({index.embedded} embedded now) in {time.perf_counter() - started:.1f} s;"
        f" saved in {saved_index(folder)}[/dim]"
    )
    return index


def load_or_build(folder: Path, out: Console) -> DocumentIndex:
    """The folder's saved index, or a new one when it has none."""
    if (saved_index(folder) / "passages.jsonl").is_file():
        return DocumentIndex.load(saved_index(folder))
    out.print(f"[dim]{folder} has no index yet: building it (toollab rag index {folder})[/dim]")
    return build_index(folder, 80, out)


@app.command()
def index(
    folder: Folder,
    words: Annotated[int, typer.Option(min=20, help="About how many words a passage holds.")] = 80,
) -> None:
    """Read FOLDER's documents, cut them into passages and index them (BM25 and MiniLM), saved in FOLDER."""
    build_index(folder, words, console)


@app.command()
def search(
    folder: Folder,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option(min=1, help="How many passages.")] = 5,
    how: Annotated[str, typer.Option(help="hybrid, text (BM25) or meaning (MiniLM).")] = "hybrid",
    collection: Annotated[str | None, typer.Option(help="Only this collection.")] = None,
) -> None:
    """Search FOLDER's index as the agent's tools do, and print the passages found."""
    found = load_or_build(folder, console)
    searches = {"hybrid": found.search, "text": found.search_text, "meaning": found.search_meaning}
    if how not in searches:
        raise fail(f"--how must be one of {', '.join(searches)}, not {how!r}")
    if collection is not None and collection not in found.collections():
        raise fail(f"no collection {collection!r}; the collections are: {', '.join(found.collections())}")
    for passage, score in searches[how](query, k, collection):
        console.print(Text.assemble((f"{score:.3f} ", "dim"), passage.shown()))  # Text: ids look like markup
