"""`toollab eval`: BFCL runs with a live progress bar, paired comparisons, and reports."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from toollab.eval import BfclRun, RunConfig, compare_runs
from toollab.eval.bfcl import CATEGORIES, GROUND_TRUTH
from toollab.eval.bfcl.run import recorded_config, run_all, write_outputs
from toollab.eval.gate_curve import curve, operating_point, plot, scores_sync, unfounded_items
from toollab.eval.records import ItemRecord
from toollab.eval.sweep import load_sweep
from toollab.eval.synth import SPLITS, SYNTH_CATEGORIES
from toollab.formats import FORMATS
from toollab.harness.model import ModelError
from toollab.harness.request import GATE_SIGNALS
from toollab.interfaces.loading import load_local, progress_bar, ready_to_run
from toollab.interfaces.options import (
    AdapterOption,
    AddressOption,
    AfterResults,
    Constrained,
    ExecutorOption,
    Parallel,
    SwitchesOption,
    TokensOption,
    ToolChoiceOption,
    ToolsPerTurnOption,
    WorkerCpusOption,
    WorkersOption,
    fail,
    make_executor,
)
from toollab.models.registry import MODEL_FORMS
from toollab.scale import Executor

app = typer.Typer(help="Evaluate models: BFCL, paired comparisons, reports.", no_args_is_help=True)
console = Console()

BASELINE = "simple_python,multiple,parallel,parallel_multiple,irrelevance"


def _pct(p: dict[str, Any]) -> str:
    return f"{100 * p['value']:.1f}% [{100 * p['low']:.1f}, {100 * p['high']:.1f}]" if p["n"] else "–"


def _columns(table: Table, *figures: str) -> None:
    """A category column that never wraps (names are long), then right-aligned figures."""
    table.add_column("category", no_wrap=True)
    for name in figures:
        table.add_column(name, justify="right")


def summary_table(summary: dict[str, Any]) -> Table:
    config = summary["config"]
    dataset = "BFCL" if config.get("dataset", "bfcl") == "bfcl" else f"dev set ({config.get('split')})"
    table = Table(title=f"{dataset}: {config['model']} ({config.get('format') or 'default format'})")
    _columns(table, "items", "accuracy [95% CI]", "calls readable", "schema-valid", "p50 s", "tokens out")
    rows = [*summary["categories"].items(), ("all", summary)]
    for name, c in rows:
        ops = c["operations"]
        table.add_row(
            name,
            str(c["accuracy"]["n"]),
            _pct(c["accuracy"]),
            _pct(ops["parse_valid"]),
            _pct(ops["schema_valid"]),
            f"{ops['latency_seconds']['p50']:.2f}",
            str(ops["output_tokens"]),
        )
    return table


# Options `toollab eval bfcl` and `toollab eval synth` share.
ModelOption = Annotated[str, typer.Option(help=f"Model: {MODEL_FORMS}, or {GROUND_TRUTH} (the self-check).")]
FormatOption = Annotated[str | None, typer.Option(help=f"Tool-call format: {', '.join(FORMATS)}.")]
LimitOption = Annotated[int | None, typer.Option(min=1, help="Items per category (a fixed sample).")]
OutOption = Annotated[Path | None, typer.Option(help="Run folder; an existing one is resumed.")]
ConcurrencyOption = Annotated[
    int,
    typer.Option(
        min=1,
        help="Items in flight at once, per worker with --executor ray (a local model decodes them together in one "
        "batch).",
    ),
]
TimeoutOption = Annotated[float | None, typer.Option(min=0.1, help="Seconds before an item counts as timed out.")]


@app.command()
def bfcl(
    model: ModelOption = "local",
    format: FormatOption = None,
    categories: Annotated[str, typer.Option(help=f"Comma-separated, from: {', '.join(CATEGORIES)}.")] = BASELINE,
    limit: LimitOption = None,
    out: OutOption = None,
    concurrency: ConcurrencyOption = 1,
    max_new_tokens: TokensOption = None,
    item_timeout: TimeoutOption = None,
    constrained: Constrained = None,
    tool_choice: ToolChoiceOption = None,
    after_results: AfterResults = None,
    parallel: Parallel = None,
    switches: SwitchesOption = "",
    adapter: AdapterOption = None,
    tools_per_turn: ToolsPerTurnOption = None,
    executor: ExecutorOption = "local",
    workers: WorkersOption = None,
    worker_cpus: WorkerCpusOption = 1,
    address: AddressOption = None,
) -> None:
    """Run BFCL categories and score them with BFCL's own checkers; writes results.jsonl, summary.json and
    report.html into --out."""
    options = dict(locals())
    _evaluate(_config(options), out, _executor(options))


@app.command()
def synth(
    model: ModelOption = "local",
    split: Annotated[str, typer.Option(help=f"The dev set's split: {', '.join(SPLITS)}.")] = "dev",
    format: FormatOption = None,
    categories: Annotated[str, typer.Option(help=f"Comma-separated, from: {', '.join(SYNTH_CATEGORIES)}.")] = ",".join(
        SYNTH_CATEGORIES
    ),
    limit: LimitOption = None,
    out: OutOption = None,
    concurrency: ConcurrencyOption = 1,
    max_new_tokens: TokensOption = None,
    item_timeout: TimeoutOption = None,
    constrained: Constrained = None,
    tool_choice: ToolChoiceOption = None,
    after_results: AfterResults = None,
    parallel: Parallel = None,
    switches: SwitchesOption = "",
    adapter: AdapterOption = None,
    tools_per_turn: ToolsPerTurnOption = None,
    executor: ExecutorOption = "local",
    workers: WorkersOption = None,
    worker_cpus: WorkerCpusOption = 1,
    address: AddressOption = None,
) -> None:
    """Run the dev set (generated items in BFCL's shapes, and everyday agent tasks), judged like BFCL; tune on
    this, never on BFCL. Writes results.jsonl, summary.json and report.html into --out."""
    options = dict(locals())
    _evaluate(_config(options, dataset="synth"), out, _executor(options))


NOT_CONFIG = ("out", "executor", "workers", "worker_cpus", "address")


def _executor(options: dict[str, Any]) -> Executor:
    return make_executor(
        options["executor"], options["concurrency"], options["workers"], options["address"], options["worker_cpus"]
    )


def _config(options: dict[str, Any], **fixed: Any) -> RunConfig:
    """A run's config from a command's options (its parameters, which are named after RunConfig's fields; the
    categories come comma-separated and --out is not part of the config)."""
    fields = {k: v for k, v in options.items() if k not in NOT_CONFIG}
    fields["categories"] = [c.strip() for c in fields["categories"].split(",") if c.strip()]
    return RunConfig(**fields, **fixed)


def _evaluate(config: RunConfig, out: Path | None, executor: Executor) -> None:
    """Run `config` into `out` (a folder named after the run by default) with a live progress bar."""
    mode = {None: "default", False: "free", True: "constrained"}[config.constrained]
    name = f"{config.dataset}-{config.model.replace(':', '-').replace('/', '-')}-{config.format or 'default'}-{mode}"
    folder = out or Path("runs") / name
    try:
        run = BfclRun(config, folder)
    except (ValueError, RuntimeError) as exc:
        raise fail(str(exc)) from None
    pending = run.pending
    if len(pending) < len(run.items):
        console.print(f"resuming {folder}: {len(run.items) - len(pending)} items done, {len(pending)} to go")
    summaries = _with_progress([run], executor, len(pending), config.dataset)
    summary = summaries[0]
    console.print(summary_table(summary))
    kinds = ", ".join(f"{kind} {count}" for kind, count in summary["failure_kinds"].items())
    console.print(f"where items failed: {kinds or 'nowhere'}")
    console.print(f"[dim]{folder}/results.jsonl, summary.json, report.html[/dim]")


def _with_progress(runs: list[BfclRun], executor: Executor, items: int, label: str) -> list[dict[str, Any]]:
    """Runs' pending items through `executor` with a progress bar (accuracy so far); the executor is closed after.
    Models load first (`ready_to_run`), in process or on every worker."""
    try:
        ready_to_run(executor, [(run.model, run.config.model, run.policy) for run in runs], console)
    except (ModelError, ConnectionError, ValueError) as exc:
        executor.close()
        raise fail(str(exc)) from None
    right = done = 0
    try:
        with progress_bar(console, "accuracy so far {task.fields[accuracy]}") as progress:
            task = progress.add_task(label, total=items, accuracy="–")

            def on_record(record: ItemRecord) -> None:
                nonlocal right, done
                done += 1
                right += record.valid
                progress.update(task, advance=1, accuracy=f"{100 * right / done:.1f}% ({right}/{done})")

            return asyncio.run(run_all(runs, executor, on_record))
    finally:
        executor.close()


@app.command()
def sweep(
    config: Annotated[Path, typer.Argument(help="A sweep file (YAML: out, base, grid; see toollab.eval.sweep).")],
    concurrency: ConcurrencyOption = 1,
    executor: ExecutorOption = "local",
    workers: WorkersOption = None,
    worker_cpus: WorkerCpusOption = 1,
    address: AddressOption = None,
) -> None:
    """Expand a grid of run settings into runs (one folder each, each resumable) and run their items on one
    executor; prints a table of the runs."""
    where = _executor(dict(locals()))
    try:
        plan = load_sweep(config)
        runs = [BfclRun(dataclasses.replace(r.config, concurrency=concurrency), plan.out / r.name) for r in plan.runs]
    except (ValueError, RuntimeError, TypeError) as exc:
        where.close()
        raise fail(str(exc)) from None
    pending = sum(len(run.pending) for run in runs)
    total = sum(len(run.items) for run in runs)
    console.print(f"sweep {config}: {len(runs)} runs, {total} items, {pending} to go, into {plan.out}")
    summaries = _with_progress(runs, where, pending, "sweep")
    table = Table(title=f"sweep {config} ({plan.out})")
    categories = sorted({c for s in summaries for c in s["categories"]})
    table.add_column("run", no_wrap=True)
    for name in [*categories, "all"]:
        table.add_column(name, justify="right")
    for run, summary in zip(plan.runs, summaries, strict=True):
        cells = [summary["categories"].get(c, {}).get("accuracy") for c in categories]
        table.add_row(run.name, *(_pct(c) if c else "–" for c in cells), _pct(summary["accuracy"]))
    console.print(table)
    (plan.out / "sweep.json").write_text(
        json.dumps([{"name": r.name, "summary": s} for r, s in zip(plan.runs, summaries, strict=True)], indent=1),
        encoding="utf-8",
    )
    console.print(f"[dim]{plan.out}/<run>/results.jsonl, summary.json, report.html; {plan.out}/sweep.json[/dim]")


@app.command()
def gate(
    calls: Annotated[Path, typer.Argument(help="A run folder made with --tool-choice required (on the dev set).")],
    out: Annotated[Path | None, typer.Option(help="Where gate.json and gate.png go (default: the run folder).")] = None,
    signals: Annotated[str, typer.Option(help=f"Comma-separated, from: {', '.join(GATE_SIGNALS)}.")] = ",".join(
        GATE_SIGNALS
    ),
    founded: Annotated[
        bool,
        typer.Option(help="Also each signal with `founded` (calls that need a value never given are answered)."),
    ] = True,
) -> None:
    """The call gate's trade-off on a run that forced a call on every item: for each signal and threshold,
    accuracy on items that need a call against irrelevance accuracy, and the operating point (the best on calls
    with irrelevance at 80% or above). Fit it on the dev set, never on BFCL."""
    meta = calls / "run.json"
    if not meta.exists():
        raise fail(f"{calls} is not a run folder (no run.json)")
    config = recorded_config(calls)
    if config.tool_choice != "required":
        raise fail(f"{calls} was run with tool choice {config.tool_choice!r}; the curve needs 'required'")
    chosen_signals = [s.strip() for s in signals.split(",") if s.strip()]
    run = BfclRun(config, calls)
    records = {r.id: r for r in run.results.read()}
    items = [i for i in run.items if i.id in records]
    load_local(run.model, console)
    with console.status(f"scoring {len(items)} items under {', '.join(chosen_signals)}..."):
        scores = scores_sync(items, run.model, chosen_signals)
    kept = [records[i.id] for i in items]
    curves = {s: curve(kept, scores, s) for s in chosen_signals}
    if founded:
        answered = unfounded_items(items, records)
        curves |= {f"{s}+founded": curve(kept, scores, s, answered) for s in chosen_signals}
    chosen = {s: operating_point(points) for s, points in curves.items()}
    table = Table(title=f"call gate on {calls} ({len(items)} items)")
    for name in ("signal", "threshold", "needs a call", "irrelevance", "mean"):
        table.add_column(name, justify="left" if name == "signal" else "right")
    for signal, point in chosen.items():
        right, spare = f"{100 * point.calls_right:.1f}%", f"{100 * point.irrelevance:.1f}%"
        table.add_row(signal, f"{point.threshold:.4g}", right, spare, f"{100 * point.balanced:.1f}%")
    console.print(table)
    folder = out or calls
    folder.mkdir(parents=True, exist_ok=True)
    plot(curves, chosen, folder / "gate.png")
    document = {
        "run": str(calls),
        "scores": scores,
        "curves": {s: [dataclasses.asdict(p) for p in points] for s, points in curves.items()},
        "chosen": {s: dataclasses.asdict(p) for s, p in chosen.items()},
    }
    (folder / "gate.json").write_text(json.dumps(document, indent=1), encoding="utf-8")
    console.print(f"[dim]{folder}/gate.json, gate.png[/dim]")


@app.command()
def compare(
    run_a: Annotated[Path, typer.Argument(help="A run folder (or its results.jsonl).")],
    run_b: Annotated[Path, typer.Argument(help="Another run on the same items.")],
    json_output: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Compare two runs item by item: accuracies, discordant pairs and McNemar's exact p-value."""
    try:
        result = compare_runs(run_a, run_b)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    if json_output:
        print(json.dumps(result, indent=2))
        return
    table = Table(title=f"A = {run_a}   B = {run_b}")
    _columns(table, "pairs", "A", "B", "only A", "only B", "B-A pts", "McNemar p")
    for name, row in [*result["categories"].items(), ("all", result["all"])]:
        table.add_row(
            name,
            str(row["n"]),
            f"{100 * row['a']['value']:.1f}%",
            f"{100 * row['b']['value']:.1f}%",
            str(row["only_a"]),
            str(row["only_b"]),
            f"{100 * row['difference']:+.1f}",
            f"{row['p_value']:.2g}",
        )
    console.print(table)
    if result["only_in_a"] or result["only_in_b"]:
        console.print(f"[dim]not paired: {result['only_in_a']} items only in A, {result['only_in_b']} only in B[/dim]")


@app.command()
def report(run: Annotated[Path, typer.Argument(help="A run folder.")]) -> None:
    """Rewrite a run's summary.json and report.html from its results (for example after an interrupted run)."""
    meta = run / "run.json"
    if not meta.exists():
        raise fail(f"{run} is not a run folder (no run.json)")
    summary = write_outputs(run, json.loads(meta.read_text(encoding="utf-8")))
    console.print(summary_table(summary))
