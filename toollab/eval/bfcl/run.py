"""A BFCL run: items through a model, one JSONL record each as it finishes, resumable, then summary and report.

The run folder holds `run.json` (what was run), `results.jsonl` (one record per finished item, appended and
flushed as each finishes, so an interrupted run loses only the items in flight), `summary.json` and
`report.html`. Starting again on the same folder runs only the items not yet recorded.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from toollab.eval.bfcl.data import Item, load
from toollab.eval.bfcl.multi_turn import run_multi_turn
from toollab.eval.bfcl.oracle import GroundTruthModel
from toollab.eval.bfcl.schema import tool_set
from toollab.eval.bfcl.single_turn import failed, run_single_turn
from toollab.eval.records import ItemRecord, RecordHead
from toollab.eval.report import write_report
from toollab.eval.results import ResultsFile
from toollab.eval.summary import summarize
from toollab.eval.synth.generate import TASKS, load_synth
from toollab.eval.synth.tasks import run_task
from toollab.formats import Format, get_format
from toollab.harness import Model
from toollab.harness.request import CallPolicy, policy_of
from toollab.models.registry import NO_ADAPTER, adapter_of, is_local, load_model
from toollab.models.switches import Switches
from toollab.scale import Executor, InProcess, Job

GROUND_TRUTH = "ground-truth"  # the model name of the self-check


@dataclass(slots=True)
class RunConfig:
    """What a run evaluates. `format` applies to local models and the self-check (None: the model's default).
    The decoding settings left None take the model's defaults (`load_model`); the run records what they were."""

    model: str
    categories: list[str]
    format: str | None = None
    limit: int | None = None
    max_new_tokens: int | None = None  # None: the model's own (a local model's MAX_NEW_TOKENS); recorded
    concurrency: int = 1
    item_timeout: float | None = None
    constrained: bool | None = None  # grammar-constrained decoding (local models)
    tool_choice: str | None = None  # auto, required, none or a tool name (the first turn's)
    after_results: str | None = None  # the tool choice after tool results (multi-turn)
    parallel: bool | None = None  # several calls in one turn
    switches: str = ""  # local models: the switches changed from the defaults ("gate=off,..."); the run records all
    dataset: str = "bfcl"  # "bfcl", or "synth" (the dev set, `toollab.eval.synth`)
    split: str | None = None  # the dev set's split: train, dev or test
    adapter: str | None = None  # local models: a LoRA adapter folder (`toollab train`)
    tools_per_turn: int | None = None  # show only the k tools that fit the request best (BM25); None: all

    def identity(self) -> dict[str, Any]:
        """What must not change between a run and its resumption (the same items must mean the same thing)."""
        return {name: getattr(self, name) for name in IDENTITY}


# The fields that make two runs' items comparable; a run folder may only be resumed with the same values.
IDENTITY = (
    *("dataset", "split", "model", "format", "max_new_tokens"),
    *("constrained", "tool_choice", "after_results", "parallel", "switches", "adapter", "tools_per_turn"),
)
# What a run.json without a field meant when it was written (before the defaults moved to `load_model`).
_OLD_DEFAULTS = {"format": None, "max_new_tokens": 192, "constrained": False, "tool_choice": "auto"}
_OLD_DEFAULTS |= {"after_results": "auto", "parallel": True, "dataset": "bfcl", "split": None, "adapter": None}
_OLD_DEFAULTS["tools_per_turn"] = None
_OLD_DEFAULTS["switches"] = "(none: written before the switches)"  # so an old folder is not resumed with them


def with_later_switches(recorded: str) -> str:
    """A recorded switch list with the switches added since it was written, off (as they were then); a list from
    before the switches were recorded stays as it is (it is never resumed)."""
    try:
        return Switches.parse(recorded, Switches.none()).describe() if "=" in recorded else recorded
    except ValueError:
        return recorded


def recorded_config(folder: Path) -> RunConfig:
    """The settings a run folder was run with, read as it ran: switches added since were off then (as a resumed run
    reads them), so a command that only reads the folder (`toollab eval gate`) opens it under today's defaults."""
    stored = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    return RunConfig(**stored | {"switches": with_later_switches(stored.get("switches", ""))})


Progress = Callable[[ItemRecord], None]


def wire_format(model: Model | None) -> Format | None:
    """The text format a model writes its calls in; None for backends with native tool calling."""
    fmt = getattr(model, "format", None)
    return fmt if isinstance(fmt, Format) else None


@dataclass(slots=True)
class ItemRunner:
    """What running one item needs, and no more: it travels to a Ray worker with each item (the model as its
    load arguments, `toollab.scale.shipping`). `model` None: the self-check (ground truth in the chosen format)."""

    config: RunConfig
    model: Model | None
    policy: CallPolicy
    run_name: str  # BFCL keeps environment instances in module globals keyed by this name

    def head(self, item: Item, model: Model | None = None) -> RecordHead:
        fmt = wire_format(model if model is not None else self.model)
        name = fmt.name if fmt is not None else self.config.format or "native"
        return RecordHead(id=item.id, category=item.category, model=self.config.model, format=name)

    async def run_item(self, item: Item) -> ItemRecord:
        model: Model
        if self.model is None:
            chosen = get_format(self.config.format)
            model = GroundTruthModel(item, chosen, tool_set(item.functions, keep_dots=chosen.dotted_names).original)
        else:
            model = self.model
        fmt = wire_format(model)
        head = self.head(item, model)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.config.item_timeout):
                k = self.config.tools_per_turn
                if item.category == TASKS:
                    return await run_task(item, model, head, self.policy, tools_per_turn=k)
                if item.multi_turn:
                    return await run_multi_turn(
                        item, model, head, self.policy, run_name=self.run_name, tools_per_turn=k
                    )
                keep_dots = fmt is not None and fmt.dotted_names
                return await run_single_turn(item, model, head, self.policy, keep_dots=keep_dots, tools_per_turn=k)
        except TimeoutError:
            seconds = time.perf_counter() - started
            return failed(head, f"no answer within {self.config.item_timeout} s", "provider", seconds, "timeout")
        except Exception as exc:  # a bug in toollab must cost one item, not the run
            detail = "".join(traceback.format_exception_only(exc)).strip()
            return failed(head, f"harness crashed: {detail}", "harness", time.perf_counter() - started)


class BfclRun:
    """Runs `config` into `out`. `model` overrides loading `config.model` (tests pass their own)."""

    def __init__(self, config: RunConfig, out: str | Path, model: Model | None = None):
        if importlib.util.find_spec("matplotlib") is None:
            raise RuntimeError("the report needs matplotlib: pip install 'toollab[eval]'")
        self.out = Path(out)
        self.results = ResultsFile(self.out / "results.jsonl")
        if config.dataset == "synth":
            self.items: list[Item] = load_synth(config.categories, config.split or "dev", config.limit)
        elif config.dataset == "bfcl":
            self.items = load(config.categories, config.limit)
        else:
            raise ValueError(f"unknown dataset {config.dataset!r}: bfcl or synth")
        self.config = config
        self.model = model if model is not None or config.model == GROUND_TRUTH else self._load_model()
        self.policy = policy_of(self.model).updated(config.tool_choice, config.after_results, config.parallel)
        self.config = replace(
            config,
            constrained=is_local(config.model) if config.constrained is None else config.constrained,
            tool_choice=self.policy.first_turn,
            after_results=self.policy.after_results,
            parallel=self.policy.parallel,
            # every switch's value, not the changes to the defaults: a folder is not resumed under other defaults
            switches=Switches.parse(config.switches).describe() if is_local(config.model) else config.switches,
            adapter=adapter_of(config.model, config.adapter),  # spelled out: the default may change between versions
            max_new_tokens=config.max_new_tokens or getattr(self.model, "max_new_tokens", None),
        )
        self._check_resumable()
        # BFCL keeps environment instances in module globals keyed by this name: fresh per run
        self.run_name = f"toollab_{uuid.uuid4().hex[:12]}"

    def _load_model(self) -> Model:
        c = self.config
        return load_model(
            c.model,
            format=c.format,
            max_new_tokens=c.max_new_tokens,
            constrained=c.constrained,
            switches=Switches.parse(c.switches),
            adapter=c.adapter,
        )

    def _check_resumable(self) -> None:
        meta = self.out / "run.json"
        if meta.exists():
            before = json.loads(meta.read_text(encoding="utf-8"))
            previous = {k: before.get(k, _OLD_DEFAULTS.get(k)) for k in IDENTITY}
            if is_local(self.config.model) and previous["adapter"] is None:
                previous["adapter"] = NO_ADAPTER  # written before adapters shipped: it ran the base weights
            if is_local(self.config.model) and previous["switches"] != self.config.switches:
                previous["switches"] = with_later_switches(previous["switches"])
            if previous != self.config.identity():
                raise ValueError(
                    f"{self.out} holds a run of {previous}; this one is {self.config.identity()}. "
                    "Use another --out folder (nothing was changed)."
                )

    @property
    def pending(self) -> list[Item]:
        done = self.results.done_ids()
        return [item for item in self.items if item.id not in done]

    @property
    def runner(self) -> ItemRunner:
        return ItemRunner(self.config, self.model, self.policy, self.run_name)

    async def run_item(self, item: Item) -> ItemRecord:
        return await self.runner.run_item(item)

    def jobs(self) -> tuple[list[Item], list[Job[ItemRecord]]]:
        """The pending items and a job for each (what an executor runs; a Ray worker gets the runner, not the
        run's folder or its other items)."""
        pending, runner = self.pending, self.runner
        return pending, [partial(runner.run_item, item) for item in pending]

    def start(self) -> None:
        """Ready the folder before the first record: run.json written, a line torn by a killed run cut."""
        self.out.mkdir(parents=True, exist_ok=True)
        self.results.repair()
        (self.out / "run.json").write_text(json.dumps(asdict(self.config), indent=2), encoding="utf-8")

    async def run(self, on_record: Progress | None = None, executor: Executor | None = None) -> dict[str, Any]:
        """Run the pending items (in this process, `config.concurrency` at a time, unless `executor` says where);
        returns the summary of all recorded items."""
        return (await run_all([self], executor, on_record))[0]

    def lost(self, item: Item, why: str) -> ItemRecord:
        """The record of an item that could not be run (its worker died on every attempt)."""
        return failed(self.runner.head(item), f"not evaluated: {why}", "harness", 0.0)

    def finish(self) -> dict[str, Any]:
        return write_outputs(self.out, asdict(self.config))


async def run_all(
    runs: list[BfclRun], executor: Executor | None = None, on_record: Progress | None = None
) -> list[dict[str, Any]]:
    """Every pending item of every run through one executor (in this process by default, the runs' largest
    `concurrency` at a time): run by run, in order, so a worker keeps one model at a time and the next run's items
    start as the last ones of a run finish. Each record goes to its own run's folder as it arrives. Returns each
    run's summary."""
    jobs, owners = [], []
    for run in runs:
        run.start()
        pending, run_jobs = run.jobs()
        jobs += run_jobs
        owners += [(run, item) for item in pending]

    def done(index: int, record: ItemRecord) -> None:
        owners[index][0].results.append(record)
        if on_record is not None:
            on_record(record)

    def lost(index: int, why: str) -> ItemRecord:
        run, item = owners[index]
        return run.lost(item, why)

    await (executor or InProcess(max(r.config.concurrency for r in runs))).run(jobs, done, lost)
    return [run.finish() for run in runs]


def write_outputs(out: str | Path, config: dict[str, Any]) -> dict[str, Any]:
    """Write summary.json and report.html from every record in a run folder; returns the summary."""
    out = Path(out)
    records = ResultsFile(out / "results.jsonl").read()
    summary = summarize(records, config)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    write_report(out / "report.html", summary, records)
    return summary
