"""Agentic retrieval over a folder of documents: reading it (text, Markdown, PDF), cutting it into passages,
indexing them (BM25 and MiniLM), and the tools among which the model chooses how to search."""

from toollab.rag.documents import Document, load_folder
from toollab.rag.index import INDEX_FOLDER, DocumentIndex
from toollab.rag.passages import Passage
from toollab.rag.pipelines import AGENT, LOCAL_STRATEGY, PIPELINES, pipeline, rag_strategy
from toollab.rag.prompts import SYSTEM_PROMPT
from toollab.rag.tools import rag_tools, search_first

__all__ = [
    "AGENT",
    "INDEX_FOLDER",
    "LOCAL_STRATEGY",
    "PIPELINES",
    "SYSTEM_PROMPT",
    "Document",
    "DocumentIndex",
    "Passage",
    "load_folder",
    "pipeline",
    "rag_strategy",
    "rag_tools",
    "search_first",
]
