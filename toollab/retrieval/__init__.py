"""Tool retrieval: how well a request fits a tool (BM25, MiniLM), indexes over a catalogue, the catalogue as an
agent's toolset, and training the dense retriever."""

from toollab.retrieval.catalogue import INDEXES, Catalogue
from toollab.retrieval.relevance import SIGNALS, TopTools, relevance, tool_scores, tool_text

__all__ = ["INDEXES", "SIGNALS", "Catalogue", "TopTools", "relevance", "tool_scores", "tool_text"]
