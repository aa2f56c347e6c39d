"""`toollab toolformer annotate`: Toolformer's sample-execute-filter as a data-annotation tool over plain text."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from toollab.harness.dispatch import Dispatcher
from toollab.harness.model import ModelError
from toollab.interfaces.loading import progress_bar
from toollab.interfaces.options import AdapterOption, fail
from toollab.models.local import LocalModel
from toollab.models.registry import is_local, load_model
from toollab.toolformer import TEXT, FilterConfig, annotate, kept, run_filter
from toollab.toolformer.lm import LM
from toollab.toolformer.text import prompted
from toollab.tools import calculator

console = Console()
app = typer.Typer(help="Toolformer: let a model annotate text with the tool calls that help it.", no_args_is_help=True)


def refuse_remote(model: str, needs: str) -> None:
    """A clear error for a model string that is not local (`needs`: what the command reads of the model)."""
    if not is_local(model):
        raise fail(f"{needs}: it needs a local model, not {model!r}")


def local_lm(model: str, adapter: str | None, batch: int) -> LM:
    """The local model `model` (with `adapter`) as an LM; a clear error when it cannot be loaded."""
    try:
        chosen = load_model(model, adapter=adapter, constrained=False)
        assert isinstance(chosen, LocalModel)
        loaded = chosen.load()
    except (ValueError, ModelError) as exc:
        raise fail(str(exc)) from None
    return LM(loaded.model, loaded.tokenizer, batch=batch)


@app.command("annotate")
def annotate_texts(
    texts: Annotated[Path, typer.Argument(help="A text file: one text per line (blank lines are skipped).")],
    out: Annotated[
        Path, typer.Option(help="JSONL: each text, its annotated version, the calls kept and every call tried.")
    ],
    model: Annotated[str, typer.Option(help="A local model: local (the embedded SmolLM2) or local:PATH.")] = "local",
    adapter: AdapterOption = "none",
    k: Annotated[int, typer.Option(min=1, help="Positions tried per text.")] = 3,
    m: Annotated[int, typer.Option(min=1, help="Calls sampled per position.")] = 2,
    threshold: Annotated[float, typer.Option(help="Least probability of opening a call at a tried position.")] = 0.05,
    tau: Annotated[float, typer.Option(help="Keep a call when it lowers the loss of what follows by this much.")] = 1.0,
    seed: Annotated[int, typer.Option(help="Seed of the sampled calls.")] = 0,
) -> None:
    """Sample calculator calls where the model most wants one, run them, and keep those whose result makes the
    following text easier for the model to predict (the few-shot prompt is the paper's)."""
    refuse_remote(model, "annotation reads a model's token probabilities")
    try:
        lines = [line.strip() for line in texts.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"cannot read {texts}: {exc}") from None
    lm = local_lm(model, adapter, batch=8)
    config = FilterConfig(k=k, m=m, threshold=threshold, tau=tau, seed=seed)
    dispatcher = Dispatcher([calculator])
    out.parent.mkdir(parents=True, exist_ok=True)
    total = 0
    with out.open("w", encoding="utf-8") as f, progress_bar(console, "{task.fields[kept]} kept") as progress:
        bar = progress.add_task("annotating", total=len(lines), kept=0)
        for text in lines:
            context, ids = prompted(lm, text)
            candidates = asyncio.run(run_filter(lm, [ids], TEXT, dispatcher, config, context=context))
            chosen_calls = kept(candidates, tau)
            total += len(chosen_calls)
            record = {
                "text": text,
                "annotated": annotate(lm, [ids], chosen_calls, TEXT)[0].strip(),
                "calls": [
                    {"expression": c.argument, "result": c.content, "gain": round(c.gain, 3)} for c in chosen_calls
                ],
                "candidates": len(candidates),
                "tried": [
                    {
                        "before": lm.decode(ids[: c.position])[-40:],
                        "expression": c.argument,
                        "result": c.content,
                        "gain": round(c.gain, 3) if c.result is not None else None,
                    }
                    for c in candidates
                ],
            }
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            progress.update(bar, advance=1, kept=total)
    console.print(f"{total} calls kept over {len(lines)} texts -> {out}")


@app.command("clean")
def clean_data(
    data: Annotated[Path, typer.Option(help="A folder written by `toollab train-data` (train.jsonl, heldout.jsonl).")],
    out: Annotated[Path, typer.Option(help="Folder for the cleaned copy (the held-out split is copied unchanged).")],
    tau: Annotated[
        float, typer.Option(help="Keep an example when its tool results lower the answer's loss this much.")
    ] = 0.0,
    model: Annotated[str, typer.Option(help="The local model whose losses judge: local or local:PATH.")] = "local",
    adapter: AdapterOption = "none",
    format: Annotated[str, typer.Option(help="The wire format the examples are rendered in for the model.")] = "hermes",
) -> None:
    """Drop training examples whose tool results do not help the model predict the answer after them (Toolformer's
    filter on conversations); examples without a result before an answer are kept as they are."""
    import shutil

    from toollab.eval.summary import percentile
    from toollab.formats import get_format
    from toollab.harness.jsonl import json_line
    from toollab.toolformer.clean import judge
    from toollab.train.data import HELDOUT_FILE, TRAIN_FILE, read_examples

    refuse_remote(model, "cleaning reads a model's losses")
    try:
        examples = read_examples(data / TRAIN_FILE)
        wire = get_format(format)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    lm = local_lm(model, adapter, batch=2)
    with progress_bar(console) as progress:
        bar = progress.add_task("judging", total=len(examples))
        judged = judge(lm, examples, wire, on_done=lambda n: progress.update(bar, completed=n))
    out.mkdir(parents=True, exist_ok=True)
    with (out / TRAIN_FILE).open("wb") as f:
        for j in judged:
            if j.keep(tau):
                f.write(json_line(j.example.to_dict()))
    if (data / HELDOUT_FILE).exists():
        shutil.copyfile(data / HELDOUT_FILE, out / HELDOUT_FILE)
    gains = [j.gain for j in judged if j.gain is not None]
    dropped = sum(not j.keep(tau) for j in judged)
    card = {
        "from": str(data),
        "tau": tau,
        "model": model,
        "examples": len(judged),
        "with_results": len(gains),
        "dropped": dropped,
        "gain_quartiles": [round(percentile(gains, q) or 0.0, 3) for q in (25, 50, 75)] if gains else [],
    }
    (out / "clean.json").write_text(json.dumps(card, indent=2), encoding="utf-8")
    console.print(
        f"{len(gains)} of {len(judged)} examples answer after tool results; {dropped} dropped at tau = {tau:g} -> {out}"
    )
