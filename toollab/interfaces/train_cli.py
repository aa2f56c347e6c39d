"""`toollab train-data` and `toollab train`: fine-tuning a local model to call tools, on CPU."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress

from toollab.interfaces.loading import progress_bar
from toollab.interfaces.options import fail
from toollab.models.local_int4_merge import APART
from toollab.models.local_weights import ADAPTER_CONFIG, SHIPPED_ADAPTER, is_adapter_folder
from toollab.models.registry import SHIPPED, is_local, load_model
from toollab.train.data import DataConfig, write_data
from toollab.train.export import export_adapter
from toollab.train.int4 import CALIBRATION, Stages, merge_into_int4
from toollab.train.sft import Step, TrainConfig
from toollab.train.sft import train as run_training

console = Console()

# A configuration for tests and a first look: about a minute here (adapters on the top 4 layers, a few steps).
# An own answer longer than this is dropped, not cut: a cut answer would teach stopping mid-way.
PROSE_TOKENS = 96
QUICK = {"max_examples": 12, "batch_size": 2, "lora_layers": 4, "learning_rate": 1e-3}


def train_data(
    out: Annotated[Path, typer.Option(help="Folder for train.jsonl, heldout.jsonl and data.json.")],
    per_category: Annotated[int, typer.Option(min=0, help="Call examples per calling category.")] = 160,
    irrelevance: Annotated[int, typer.Option(min=0, help="Requests no tool fits, answered in words.")] = 160,
    tasks: Annotated[int, typer.Option(min=0, help="Everyday tasks: calls run, answer from the results.")] = 240,
    expressions: Annotated[int, typer.Option(min=0, help="Arithmetic handed whole to a calculator.")] = 120,
    heldout: Annotated[int, typer.Option(min=0, help="Held-out examples of each kind (dev split).")] = 10,
    mask: Annotated[float, typer.Option(min=0, max=1, help="Share of call examples with names masked.")] = 0.3,
    seed: Annotated[int, typer.Option(help="Seed of the items, the shuffles and the masks.")] = 0,
    model: Annotated[str, typer.Option(help="The model whose own words answer the prose requests.")] = "local",
    prose: Annotated[
        bool, typer.Option(help="Ask the model for the prose answers (--no-prose: leave them out).")
    ] = True,
) -> None:
    """Write training conversations generated from the dev set's train split (never from BFCL)."""
    config = DataConfig(per_category, irrelevance, tasks, expressions, heldout, mask, seed)
    answerer = load_model(model, max_new_tokens=PROSE_TOKENS) if prose else None
    with progress_bar(console) as progress:
        bar = progress.add_task("answering the prose requests", total=None)
        card = write_data(out, config, answerer, lambda done, total: progress.update(bar, completed=done, total=total))
    console.print(f"wrote {card['examples']} into {out}")


def train(
    data: Annotated[Path, typer.Option(help="A folder written by `toollab train-data`.")],
    out: Annotated[Path, typer.Option(help="Run folder: checkpoint/, adapter/ (or model/), train.json.")],
    model: Annotated[str, typer.Option(help="The local model to train: local or local:PATH.")] = "local",
    format: Annotated[str, typer.Option(help="The wire format the runtime will parse.")] = "hermes",
    lora_rank: Annotated[int, typer.Option(min=1, help="LoRA rank.")] = 16,
    lora_layers: Annotated[int | None, typer.Option(min=1, help="Adapters on the top N layers only.")] = None,
    full: Annotated[bool, typer.Option(help="Train every weight instead of adapters.")] = False,
    epochs: Annotated[float, typer.Option(min=0.01, help="Passes over the data.")] = 1.0,
    batch_size: Annotated[int, typer.Option(min=1, help="Packed rows per step.")] = 4,
    seq_len: Annotated[int, typer.Option(min=64, help="Tokens per packed row (the longest example must fit).")] = 1536,
    learning_rate: Annotated[float | None, typer.Option(help="Default 2e-4 (adapters), 2e-5 (full).")] = None,
    max_minutes: Annotated[float | None, typer.Option(min=0.1, help="Stop and save after this long.")] = None,
    checkpoint_minutes: Annotated[float, typer.Option(min=0.05, help="Minutes between checkpoints.")] = 5.0,
    seed: Annotated[int, typer.Option(help="Seed of the adapters, the dropout and the batch order.")] = 0,
    resume: Annotated[bool, typer.Option(help="Go on from --out's last checkpoint.")] = False,
    quick: Annotated[bool, typer.Option(help="A one-minute configuration (tests, a first look).")] = False,
    init_adapter: Annotated[
        str | None,
        typer.Option(help="Go on training this adapter folder (or `shipped`, the package's) instead of new ones."),
    ] = None,
) -> None:
    """Fine-tune a local model on tool calls (LoRA by default), with a progress bar and resumable checkpoints."""
    if not is_local(model):
        raise fail(f"training runs on local models, not {model!r}")
    config = TrainConfig(
        data=str(data), out=str(out), model=model.partition(":")[2] or None, format=format, lora_rank=lora_rank,
        lora_layers=lora_layers, full=full, epochs=epochs, batch_size=batch_size, seq_len=seq_len,
        learning_rate=learning_rate, max_minutes=max_minutes, checkpoint_minutes=checkpoint_minutes, seed=seed,
        init_adapter=str(SHIPPED_ADAPTER) if init_adapter == SHIPPED else init_adapter,
    )  # fmt: skip
    if quick:
        config = dataclasses.replace(config, **QUICK)  # type: ignore[arg-type]
    with progress_bar(console, "loss {task.fields[loss]}", "{task.fields[speed]} tok/s") as progress:
        bar = progress.add_task("training", total=None, loss="-", speed="-")

        def shown(step: Step) -> None:
            speed = f"{step.tokens_per_second:.0f}"
            progress.update(bar, completed=step.step, total=step.steps, loss=f"{step.loss:.3f}", speed=speed)

        try:
            result = run_training(config, resume=resume, on_step=shown)
        except (ValueError, FileNotFoundError) as exc:
            raise fail(str(exc)) from None
    stopped = " (stopped by --max-minutes: --resume goes on)" if result.stopped == "time" else ""
    console.print(
        f"{result.steps} steps, {result.tokens} tokens in {result.seconds:.0f} s ({result.tokens_per_second:.0f} "
        f"tok/s), peak memory {result.peak_memory_mb:.0f} MB; held-out loss {result.heldout_loss_before:.3f} -> "
        f"{result.heldout_loss_after:.3f}{stopped}"
    )
    use = f"--model local:{result.saved}" if config.full else f"--adapter {result.saved}"
    console.print(f"saved {result.saved} (use it with {use}); {out / 'train.json'}")


def train_export(
    run: Annotated[Path, typer.Option(help="A `toollab train` run folder (its adapter/ and train.json).")],
    out: Annotated[Path, typer.Option(help="Folder to write: the adapter in bfloat16 and its card (replaced).")],
    notes: Annotated[
        Path | None, typer.Option(help="A Markdown file added to the card (the scores measured on it).")
    ] = None,
    int4: Annotated[
        bool, typer.Option(help="Also merge it into the embedded model's int4 weights (see `toollab train-int4`).")
    ] = True,
    calibration: Annotated[int, typer.Option(min=1, help="Calibration conversations (int4 merge).")] = CALIBRATION,
) -> None:
    """Write a trained adapter ready to ship: bfloat16 weights (half the size), a card saying what it was
    trained on, with which command, seed and time, and its codes for the embedded model's int4 weights."""
    with progress_bar(console) as progress:
        try:
            text = notes.read_text(encoding="utf-8") if notes else ""
            written = export_adapter(run, out, text, calibration if int4 else None, _stages(progress, "exporting"))
        except (FileNotFoundError, KeyError) as exc:
            raise fail(f"cannot export {run}: {exc}") from None
    size = sum(f.stat().st_size for f in out.iterdir()) / 2**20
    console.print(f"wrote {out} ({size:.1f} MB; card {written}); use it with --adapter {out}")


def _stages(progress: Progress, first: str) -> Stages:
    """One bar that shows work done in stages: each report names its stage and counts within it."""
    bar = progress.add_task(first, total=None)

    def shown(stage: str, done: int, total: int) -> None:
        progress.update(bar, description=stage, completed=done, total=total)

    return shown


def train_int4(
    adapter: Annotated[Path, typer.Option(help="An adapter folder of the embedded model (`toollab train`).")],
    calibration: Annotated[int, typer.Option(min=1, help="Calibration conversations (train split).")] = CALIBRATION,
    apart: Annotated[
        float, typer.Option(min=0, max=1, help="Share of fused layer groups that keep their update apart.")
    ] = APART,
) -> None:
    """Merge an adapter into the embedded model's int4 weights, once: GPTQ moves the GGUF's 4-bit codes so that
    each layer computes close to the base plus the adapter, and stores them beside it. Where int4 weights are
    used (CPUs with bfloat16), the adapter then decodes at the base's speed instead of beside it."""
    if not is_adapter_folder(adapter):
        raise fail(f"{adapter} is not an adapter folder (no {ADAPTER_CONFIG})")
    with progress_bar(console) as progress:
        path = merge_into_int4(adapter, calibration=calibration, apart=apart, on_progress=_stages(progress, "loading"))
    console.print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MB)")
