"""Supervised fine-tuning on CPU: LoRA adapters (peft) or every weight, loss on the assistant's tokens only.

A run folder holds `checkpoint/` (written every few minutes, atomically: the trainable weights, the optimizer,
the schedule and the step) and, at the end, `adapter/` (peft's files, loadable with `LocalModel(adapter=...)`)
or `model/` (a full fine-tune, loadable as `local:PATH`), with `train.json`: the configuration, the data, the
losses, tokens/s, wall time and peak memory. The batch order is a function of the seed and the step, so a run
resumed after a kill goes on with the batches it had not seen.
"""

from __future__ import annotations

import json
import math
import random
import resource
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from toollab.formats import get_format
from toollab.models import local_weights
from toollab.train.data import HELDOUT_FILE, TRAIN_FILE, read_examples
from toollab.train.tokens import IGNORE, Tokenized, pack, tokenize

PROJECTIONS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@dataclass(frozen=True)
class TrainConfig:
    """`lora_layers`: adapters on the top N layers only (the backward pass stops below them); None: all.
    `full`: train every weight instead of adapters. `max_minutes`: stop (and save) when the time is up.
    `init_adapter`: start from this adapter folder's weights and shape (its rank, layers and targets) instead of
    fresh adapters: a trained adapter goes on learning from new data."""

    data: str
    out: str
    model: str | None = None  # a model folder or .gguf; None: the embedded SmolLM2-135M-Instruct
    format: str = "hermes"
    lora_rank: int = 16
    lora_layers: int | None = None
    full: bool = False
    epochs: float = 1.0
    batch_size: int = 4  # 8 rows of 512 tokens peaked at 17.6 GB here (activations of all 30 layers)
    seq_len: int = 1536  # the longest example must fit: eight everyday tools' schemas alone are 1,100 tokens
    learning_rate: float | None = None  # 2e-4 for adapters, 2e-5 for a full fine-tune
    warmup: float = 0.05  # a share of the steps
    max_minutes: float | None = None
    max_examples: int | None = None
    checkpoint_minutes: float = 5.0
    seed: int = 0
    head_on_targets: bool = True  # the output layer only where there is a target (`target_loss`)
    init_adapter: str | None = None

    @property
    def lr(self) -> float:
        return self.learning_rate if self.learning_rate is not None else (2e-5 if self.full else 2e-4)


@dataclass
class Step:
    """What the progress display is told after each optimizer step."""

    step: int
    steps: int
    loss: float
    tokens_per_second: float


@dataclass
class TrainResult:
    config: dict[str, Any]
    steps: int
    tokens: int
    seconds: float
    tokens_per_second: float
    peak_memory_mb: float
    heldout_loss_before: float
    heldout_loss_after: float
    losses: list[float] = field(default_factory=list)
    stopped: str = "done"  # or "time" (max_minutes)
    saved: str = ""


def load_trainable(config: TrainConfig) -> tuple[Any, Any]:
    """The tokenizer and a float32 model with adapters attached (or all weights trainable)."""
    import torch

    tokenizer, model = local_weights.load_for_training(config.model)
    if config.full:
        model.train()
        return tokenizer, model
    from peft import LoraConfig, PeftModel, get_peft_model

    torch.manual_seed(config.seed)  # the adapters' initial weights, or the dropout's first masks
    if config.init_adapter:
        # Stored in bfloat16 when exported; peft casts the adapter to the base's float32 for training.
        model = PeftModel.from_pretrained(model, config.init_adapter, is_trainable=True)
        model.train()
        return tokenizer, model

    layers = model.config.num_hidden_layers
    top = None if config.lora_layers is None else list(range(layers - config.lora_layers, layers))
    lora = LoraConfig(
        r=config.lora_rank,
        lora_alpha=2 * config.lora_rank,
        lora_dropout=0.05,
        target_modules=PROJECTIONS,
        layers_to_transform=top,
        task_type="CAUSAL_LM",
    )
    model = get_peft_model(model, lora)
    model.train()
    return tokenizer, model


def batches(rows: Sequence[Tokenized], size: int, pad: int) -> list[dict[str, Any]]:
    """Rows in batches of `size`, padded at the end to the longest row of each (pads are never learned)."""
    import torch

    out = []
    for start in range(0, len(rows), size):
        chunk = rows[start : start + size]
        width = max(len(r.ids) for r in chunk)
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        labels = torch.full((len(chunk), width), IGNORE, dtype=torch.long)
        for i, row in enumerate(chunk):
            n = len(row.ids)
            ids[i, :n] = torch.tensor(row.ids)
            labels[i, :n] = torch.tensor(row.labels)
        # No attention mask: pads come last, so under causal attention no real token sees one (and their labels
        # are ignored). Without a mask, scaled_dot_product_attention takes its fused causal path and does not
        # keep every layer's attention matrix for the backward pass (peak memory 18 GB -> see train_speed.py).
        out.append({"input_ids": ids, "labels": labels})
    return out


def target_loss(model: Any, batch: dict[str, Any]) -> Any:
    """The mean cross-entropy of the target tokens, as the model's own loss computes it, with the output layer run
    only where there is a target: over SmolLM2's 49,152-word vocabulary the logits of every position are most of a
    step's memory and about a sixth of its arithmetic, and most positions are prompt."""
    import torch.nn.functional as F

    causal = model.get_base_model() if hasattr(model, "get_base_model") else model
    backbone = getattr(causal, causal.base_model_prefix)
    labels = batch["labels"][:, 1:]
    keep = labels != IGNORE
    hidden = backbone(input_ids=batch["input_ids"]).last_hidden_state
    logits = causal.get_output_embeddings()(hidden[:, :-1][keep])
    return F.cross_entropy(logits.float(), labels[keep])


def mean_loss(model: Any, data: Sequence[dict[str, Any]]) -> float:
    """The loss per target token over `data`."""
    import torch

    total = count = 0.0
    was_training = model.training
    model.eval()
    with torch.inference_mode():
        for batch in data:
            n = float((batch["labels"][:, 1:] != IGNORE).sum())
            total += float(target_loss(model, batch)) * n
            count += n
    model.train(was_training)
    return total / max(count, 1.0)


def _epoch_order(n: int, seed: int, epoch: int) -> list[int]:
    order = list(range(n))
    random.Random(f"{seed}:{epoch}").shuffle(order)
    return order


def _trainable_state(model: Any, full: bool) -> dict[str, Any]:
    if full:
        return model.state_dict()
    from peft import get_peft_model_state_dict

    return get_peft_model_state_dict(model)


def _save_checkpoint(folder: Path, model: Any, config: TrainConfig, state: dict[str, Any]) -> None:
    import torch

    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    torch.save({"weights": _trainable_state(model, config.full), **state}, tmp / "state.pt")
    (tmp / "config.json").write_text(json.dumps(asdict(config), indent=2), encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)


def _load_checkpoint(folder: Path, model: Any, config: TrainConfig) -> dict[str, Any]:
    import torch

    saved = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    keep = ("max_minutes", "checkpoint_minutes")  # may change between a run and its resume
    differ = [k for k, v in asdict(config).items() if k not in keep and saved.get(k) != v]
    if differ:
        raise ValueError(f"{folder} was trained with other settings ({', '.join(differ)}); use a new --out")
    state = torch.load(folder / "state.pt", weights_only=False)
    if config.full:
        model.load_state_dict(state["weights"])
    else:
        from peft import set_peft_model_state_dict

        set_peft_model_state_dict(model, state["weights"])
    return dict(state)


def train(config: TrainConfig, resume: bool = False, on_step: Callable[[Step], None] | None = None) -> TrainResult:
    """Fine-tune as `config` says; with `resume`, go on from the run folder's last checkpoint."""
    import torch

    out = Path(config.out)
    checkpoint = out / "checkpoint"
    if not resume and checkpoint.exists():
        raise ValueError(f"{out} already holds a checkpoint: pass --resume to go on, or choose a new --out")
    if config.init_adapter and config.full:  # refused before the model loads
        raise ValueError("--init-adapter starts adapters from trained ones; a full fine-tune has none")
    if config.init_adapter and not local_weights.is_adapter_folder(config.init_adapter):
        config_file = local_weights.ADAPTER_CONFIG
        raise ValueError(f"no {config_file} in {config.init_adapter}: --init-adapter wants an adapter folder")
    data = Path(config.data)
    if not (data / TRAIN_FILE).is_file():
        raise ValueError(f"no {TRAIN_FILE} in {data}: write one with `toollab train-data --out {data}`")
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    tokenizer, model = load_trainable(config)
    format = get_format(config.format)
    examples = read_examples(data / TRAIN_FILE)[: config.max_examples]
    rows = pack([tokenize(e, format, tokenizer) for e in examples], config.seq_len, config.seed)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    heldout_examples = read_examples(data / HELDOUT_FILE) if (data / HELDOUT_FILE).is_file() else []
    heldout = batches([tokenize(e, format, tokenizer) for e in heldout_examples], config.batch_size, pad)
    per_epoch = math.ceil(len(rows) / config.batch_size)
    steps = max(1, round(per_epoch * config.epochs))
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=0.0)
    warmup = max(1, round(config.warmup * steps))

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    step, tokens, seconds, losses = 0, 0, 0.0, []
    if resume and checkpoint.exists():
        state = _load_checkpoint(checkpoint, model, config)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step, tokens, seconds, losses = state["step"], state["tokens"], state["seconds"], state["losses"]
        before = state["heldout_loss_before"]
        torch.set_rng_state(state["torch_rng"])
    else:
        before = mean_loss(model, heldout) if heldout else float("nan")
    started = time.perf_counter() - seconds
    saved_at = time.perf_counter()
    stopped = "done"
    while step < steps:
        epoch, position = divmod(step, per_epoch)
        index = _epoch_order(per_epoch, config.seed, epoch)[position]
        chunk = rows[index * config.batch_size : (index + 1) * config.batch_size]
        (batch,) = batches(chunk, config.batch_size, pad)
        loss = target_loss(model, batch) if config.head_on_targets else model(**batch).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        tokens += sum(len(row.ids) for row in chunk)
        value = float(loss.detach())
        losses.append(round(value, 4))
        elapsed = time.perf_counter() - started
        if on_step is not None:
            on_step(Step(step, steps, value, tokens / max(elapsed, 1e-9)))
        timed_out = config.max_minutes is not None and elapsed >= 60 * config.max_minutes
        if step < steps and (timed_out or time.perf_counter() - saved_at >= 60 * config.checkpoint_minutes):
            state = {
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "step": step,
                "tokens": tokens,
                "seconds": elapsed,
                "losses": losses,
                "heldout_loss_before": before,
                "torch_rng": torch.get_rng_state(),
            }
            _save_checkpoint(checkpoint, model, config, state)
            saved_at = time.perf_counter()
        if timed_out and step < steps:
            stopped = "time"
            break
    seconds = time.perf_counter() - started
    after = mean_loss(model, heldout) if heldout else float("nan")
    saved = _save_final(out, model, tokenizer, config)
    result = TrainResult(
        config=asdict(config),
        steps=step,
        tokens=tokens,
        seconds=round(seconds, 1),
        tokens_per_second=round(tokens / max(seconds, 1e-9), 1),
        peak_memory_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        heldout_loss_before=round(before, 4),
        heldout_loss_after=round(after, 4),
        losses=losses,
        stopped=stopped,
        saved=str(saved),
    )
    (out / "train.json").write_text(json.dumps(asdict(result), indent=2), encoding="utf-8")
    return result


def _save_final(out: Path, model: Any, tokenizer: Any, config: TrainConfig) -> Path:
    if config.full:
        folder = out / "model"
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    else:
        folder = out / "adapter"
        model.save_pretrained(folder, save_embedding_layers=False)
    return folder
