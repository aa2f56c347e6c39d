"""An adapter's codes for the embedded model's int4 weights, computed once beside the adapter
(`toollab.models.local_int4_merge`), on calibration text of the train split (never the dev or test split,
never BFCL): the call examples `toollab train-data` would write, rendered as the runtime prompts the model."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

from toollab.formats import get_format
from toollab.models.local_int4_merge import APART, merge_codes, write_merge
from toollab.models.local_weights import attach_low_rank, load_for_training, lora_parts, resolve
from toollab.train.data import CALLS, generate
from toollab.train.tokens import tokenize

CALIBRATION = 24  # conversations (about 11,000 tokens): held-out loss 0.193 with the shipped adapter
Stages = Callable[[str, int, int], None]  # reports work done in stages: (stage, done, total)


def merge_into_int4(
    adapter: Path,
    model: str | None = None,
    format: str = "hermes",
    calibration: int = CALIBRATION,
    seed: int = 0,
    apart: float = APART,
    on_progress: Stages | None = None,
) -> Path:
    """Write `adapter/int4_merge.safetensors`: the codes of the GGUF model's 4-bit layers with the adapter merged
    in. Raises ValueError for a model that is not a GGUF file (its weights are never int4)."""
    import torch

    folder, gguf = resolve(model)
    if gguf is None:
        raise ValueError(f"{folder} is not a GGUF model: only a GGUF file's 4-bit weights are kept int4")
    tokenizer, base = load_for_training(model)
    merged, parts = lora_parts(copy.deepcopy(base), str(adapter))
    attach_low_rank(merged, parts)  # float weights: the update is added in
    rendering = get_format(format)
    per_category = max(1, -(-calibration // len(CALLS)))
    examples = list(generate("train", per_category, seed=seed))[:calibration]
    batches = [torch.tensor([tokenize(e, rendering, tokenizer).ids]) for e in examples]
    shown = on_progress or (lambda stage, done, total: None)
    shown("reading the calibration text", 0, len(parts))
    rounding = lambda done, total: shown("rounding layers", done, total)  # noqa: E731
    changes = merge_codes(base, merged, parts, batches, rounding, apart)
    return write_merge(adapter, changes, folder / gguf)
