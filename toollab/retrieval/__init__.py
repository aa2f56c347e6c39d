"""How well a request fits a tool: lexical (BM25) and dense (MiniLM) relevance over the tools' own words."""

from toollab.retrieval.relevance import SIGNALS, TopTools, relevance, tool_scores, tool_text, top_k

__all__ = ["SIGNALS", "TopTools", "relevance", "tool_scores", "tool_text", "top_k"]
