"""A small decoder-only transformer (a Llama shape from transformers, about a million parameters) trained from
scratch on ledgers on the CPU, with a word-level tokenizer; trained models are cached on disk by configuration.

Using transformers' own classes keeps the rest of the pipeline model-agnostic: sampling, losses and live
decoding with the calculator take any Hugging Face causal LM and its tokenizer, this one or SmolLM2.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from toollab.models.local_weights import cache_root
from toollab.toolformer.ledgers import vocabulary

BOS, PAD, UNK = "<s>", "<pad>", "<unk>"
POSITIONS = 128  # ledgers with a call fit; packed training rows may be shorter
VERSION = 2  # bump when the corpus or the training loop changes meaning: cached models are keyed by it


@dataclass(frozen=True)
class TinyConfig:
    """The model's shape and its training. `steps` of `batch` rows of `block` tokens (ledgers packed)."""

    n_embd: int = 128
    n_layer: int = 4
    n_head: int = 8
    mlp: int = 2  # the feed-forward width as a multiple of n_embd
    block: int = 64
    batch: int = 32
    steps: int = 2500
    learning_rate: float = 3e-3
    seed: int = 0


def tokenizer() -> Any:
    """A word-level tokenizer over the world's vocabulary: every digit, name and sign is one token."""
    from tokenizers import Tokenizer
    from tokenizers.decoders import WordPiece
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import WhitespaceSplit
    from transformers import PreTrainedTokenizerFast

    words = [PAD, BOS, UNK, *vocabulary()]
    core = Tokenizer(WordLevel({w: i for i, w in enumerate(words)}, unk_token=UNK))
    core.pre_tokenizer = WhitespaceSplit()
    core.decoder = WordPiece(prefix="##", cleanup=False)  # joins words with spaces, as they were written
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token=BOS, eos_token=BOS, pad_token=PAD, unk_token=UNK)


def new_model(config: TinyConfig, vocab_size: int) -> Any:
    """A Llama-shaped decoder (rotary positions: copying a number from earlier in the ledger is learnt from
    relative positions, whatever row of the packed corpus it sits at)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(config.seed)
    shape = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=config.n_embd,
        intermediate_size=config.mlp * config.n_embd,
        num_hidden_layers=config.n_layer,
        num_attention_heads=config.n_head,
        num_key_value_heads=config.n_head,
        max_position_embeddings=max(POSITIONS, config.block),
        tie_word_embeddings=True,
        bos_token_id=1,
        eos_token_id=1,
        pad_token_id=0,
    )
    return LlamaForCausalLM(shape).eval()


def pack(texts: Sequence[str], tok: Any, block: int) -> Any:
    """The texts, each opened by <s>, end to end, cut into rows of `block` tokens (a tensor)."""
    import torch

    ids: list[int] = []
    for t in texts:
        ids += [tok.bos_token_id, *tok(t, add_special_tokens=False)["input_ids"]]
    rows = len(ids) // block
    return torch.tensor(ids[: rows * block]).view(rows, block)


def train_steps(
    model: Any,
    rows: Any,
    config: TinyConfig,
    *,
    steps: int | None = None,
    learning_rate: float | None = None,
    on_step: Callable[[int, int, float], None] | None = None,
) -> list[float]:
    """AdamW with warmup and cosine decay over random batches of `rows`; returns the loss of each step."""
    import torch

    steps = steps if steps is not None else config.steps
    lr = learning_rate if learning_rate is not None else config.learning_rate
    generator = torch.Generator().manual_seed(config.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warm = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps))
    )
    model.train()
    losses = []
    for step in range(steps):
        batch = rows[torch.randint(0, len(rows), (config.batch,), generator=generator)]
        loss = model(input_ids=batch, labels=batch).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
        if on_step is not None:
            on_step(step + 1, steps, losses[-1])
    model.eval()
    return losses


@dataclass
class Trained:
    model: Any
    tokenizer: Any
    folder: Path | None
    info: dict[str, Any]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """transformers' own progress bars off (a million parameters load and save in milliseconds)."""
    from transformers.utils import logging as hf_logging

    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()


def _key(what: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps({**what, "version": VERSION}, sort_keys=True).encode()).hexdigest()[:16]


def cached(
    name: str,
    recipe: dict[str, Any],
    build: Callable[[], tuple[Any, dict[str, Any]]],
) -> Trained:
    """The model `build` makes for `recipe`, from the cache when an identical recipe was trained before.
    Kept under $TOOLLAB_CACHE/toolformer (default ~/.cache/toollab); TOOLLAB_CACHE=off trains every time."""
    from transformers import LlamaForCausalLM

    tok = tokenizer()
    root = cache_root()
    folder = root / "toolformer" / f"{name}-{_key(recipe)}" if root else None
    if folder is not None and (folder / "info.json").exists():
        with _quiet():
            model = LlamaForCausalLM.from_pretrained(folder).eval()
        return Trained(model, tok, folder, json.loads((folder / "info.json").read_text()))
    model, info = build()
    info = {**info, "recipe": recipe}
    trained = Trained(model, tok, folder, {**info, "trained_now": True})
    if folder is not None:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        with _quiet():
            model.save_pretrained(staging)
        (staging / "info.json").write_text(json.dumps(info, indent=1))
        try:
            staging.rename(folder)
        except OSError:  # another process kept the same model first
            shutil.rmtree(staging, ignore_errors=True)
    return trained


def pretrain(
    texts: Sequence[str],
    config: TinyConfig,
    *,
    name: str,
    recipe: dict[str, Any],
    on_step: Callable[[int, int, float], None] | None = None,
) -> Trained:
    """A new model trained on `texts` (cached by `recipe`, which must describe the texts, and `config`)."""

    def build() -> tuple[Any, dict[str, Any]]:
        tok = tokenizer()
        model = new_model(config, len(tok))
        rows = pack(texts, tok, config.block)
        started = time.perf_counter()
        losses = train_steps(model, rows, config, on_step=on_step)
        seconds = time.perf_counter() - started
        return model, {
            "parameters": sum(p.numel() for p in model.parameters()),
            "seconds": round(seconds, 1),
            "tokens_per_second": round(config.steps * config.batch * config.block / seconds),
            "final_loss": round(sum(losses[-50:]) / len(losses[-50:]), 4),
            "texts": len(texts),
        }

    return cached(name, {"config": asdict(config), **recipe}, build)


def fine_tune(
    base: Trained,
    texts: Sequence[str],
    config: TinyConfig,
    *,
    steps: int,
    name: str,
    recipe: dict[str, Any],
    learning_rate: float = 1e-3,
    on_step: Callable[[int, int, float], None] | None = None,
) -> Trained:
    """`base` trained further on `texts` (a copy; the base is untouched), cached by `recipe` and the base's own."""
    import copy

    def build() -> tuple[Any, dict[str, Any]]:
        model = copy.deepcopy(base.model)
        rows = pack(random.Random(config.seed).sample(list(texts), len(texts)), base.tokenizer, config.block)
        started = time.perf_counter()
        losses = train_steps(model, rows, config, steps=steps, learning_rate=learning_rate, on_step=on_step)
        return model, {
            "seconds": round(time.perf_counter() - started, 1),
            "final_loss": round(sum(losses[-20:]) / len(losses[-20:]), 4),
            "texts": len(texts),
        }

    return cached(name, {"base": base.info.get("recipe"), "steps": steps, "lr": learning_rate, **recipe}, build)
