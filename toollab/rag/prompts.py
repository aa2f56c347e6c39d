"""The prompts of retrieval: how the model is asked to rewrite, imagine, split and answer. One copy, used by the
agent's tools and the fixed pipelines alike, so the lab compares choices, not wordings."""

SYSTEM_PROMPT = (
    "Answer from the documents. Search them with the tools, read the passages, and answer in a sentence or two, "
    "citing the passages you used by their ids in square brackets, like [guide.md#3]. If the passages do not say, "
    "answer that the documents do not say."
)
ANSWER = (
    "{input}\n\nAnswer the question from these passages in a sentence or two, citing the passages you used by "
    "their ids in square brackets. If they do not say, answer that the documents do not say."
)
REWRITE = "Write three different ways to ask this question, one per line, nothing else.\n\n{input}"
HYPOTHETICAL = "Write a short passage that answers this question.\n\n{input}"
DECOMPOSE = (
    "Split this question into the simpler questions that must be answered first, one per line, nothing else.\n\n{input}"
)
