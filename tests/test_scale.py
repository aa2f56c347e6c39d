"""Scale-out: executors, models shipped as their load arguments, sweeps, and Ray (a real local cluster on
127.0.0.1: sharding, streaming into the same results file, a worker killed mid-run)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import signal
import subprocess
import sys
from functools import partial
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from toollab.eval import BfclRun, RunConfig
from toollab.eval.bfcl.run import run_all
from toollab.eval.sweep import expand, load_sweep
from toollab.interfaces.cli import app
from toollab.lab import EXPERIMENTS, SimulatedModel
from toollab.lab.experiments import SHARDED, Settings
from toollab.models.registry import load_model, load_spec_of
from toollab.scale import InProcess, executor_for, shipping


def _loopback(ip: str) -> bool:
    address = ipaddress.ip_address(ip)
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is 127.0.0.1 on a dual-stack socket
    return (mapped or address).is_loopback


async def _travel(payload: bytes):
    """A job as a Ray worker runs it: unpickled, run, its result pickled back."""
    job = shipping.loads(payload)
    return shipping.loads(shipping.dumps(await job()))


class Shipped(InProcess):
    """In process, but every job and result goes through the bytes a Ray worker gets: what Ray adds is only
    where they run."""

    async def run(self, jobs, on_done=None, on_lost=None):
        return await super().run([partial(_travel, shipping.dumps(job)) for job in jobs], on_done, on_lost)


def _records(folder: Path) -> dict[str, dict]:
    """A run's records by id, without what differs run to run (latency)."""
    records = {}
    for line in (folder / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        record["ops"].pop("latency_seconds")
        assert record["id"] not in records, f"{record['id']} recorded twice"
        records[record["id"]] = record
    return records


# ---- in process: shipping, executors, sweeps ---------------------------------------------------------------


def test_a_model_travels_as_its_load_arguments():
    model = load_model("local", max_new_tokens=17, format="pythonic")
    payload = shipping.dumps([model, model])
    assert len(payload) < 5_000  # the arguments, not the weights
    first, second = shipping.loads(payload)
    assert first is second and first is shipping.loads(payload)[0]  # loaded once per process
    assert load_spec_of(first) == load_spec_of(model)
    assert first.max_new_tokens == 17 and first.format.name == "pythonic"
    assert load_spec_of(load_model("scripted")) is None  # a script travels with its place in it


@pytest.mark.parametrize("name", SHARDED)
def test_lab_tasks_give_the_same_outcomes_shipped(tmp_path, name):
    """Every experiment that shards its tasks keeps nothing it needs outside its jobs: shipped, the outcomes and
    the tables equal those of the tasks run in place."""
    reports = []
    for executor in (InProcess(2), Shipped(2)):
        settings = Settings(SimulatedModel(seed=3), n=4, seed=3, executor=executor)
        reports.append(asyncio.run(EXPERIMENTS[name](settings)))
    here, shipped = reports
    assert [o.to_dict() for o in shipped.outcomes] == [o.to_dict() for o in here.outcomes]
    assert shipped.headline == here.headline


def test_without_the_ray_executor_nothing_of_ray_is_imported(tmp_path):
    script = f"""
import sys
from typer.testing import CliRunner
from toollab.interfaces.cli import app
r = CliRunner().invoke(app, ["eval", "bfcl", "--model", "ground-truth", "--categories", "simple_python",
                             "--limit", "2", "--out", {str(tmp_path / "run")!r}])
assert r.exit_code == 0, r.output
r = CliRunner().invoke(app, ["lab", "stages", "--n", "2", "--out", {str(tmp_path / "lab")!r}])
assert r.exit_code == 0, r.output
print(sorted(m for m in sys.modules if m == "ray" or m.startswith("ray.")))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_sweep_expands_its_grid_and_refuses_bad_settings(tmp_path):
    document = {
        "base": {"model": "ground-truth", "categories": "simple_python,multiple", "limit": 3},
        "grid": {"format": ["hermes", "pythonic"], "switches": ["", "gate=off"]},
    }
    sweep = expand(document, tmp_path)
    assert [r.name for r in sweep.runs] == [
        "format-hermes__switches-default",
        "format-hermes__switches-gate-off",
        "format-pythonic__switches-default",
        "format-pythonic__switches-gate-off",
    ]
    assert sweep.runs[3].config.categories == ["simple_python", "multiple"] and sweep.out == tmp_path
    assert sweep.runs[3].config.switches == "gate=off" and sweep.runs[3].config.format == "pythonic"
    with pytest.raises(ValueError, match=r"unknown setting.*formats"):
        expand({"base": {"categories": ["simple_python"]}, "grid": {"formats": ["hermes"]}}, tmp_path)
    with pytest.raises(ValueError, match=r"grid\.format must be a non-empty list"):
        expand({"base": {"categories": ["simple_python"]}, "grid": {"format": "hermes"}}, tmp_path)
    with pytest.raises(ValueError, match="needs categories"):
        expand({"grid": {"format": ["hermes"]}}, tmp_path)
    shipped = load_sweep(Path(__file__).parent.parent / "sweeps" / "formats.yaml")  # the README's example
    assert len(shipped.runs) == 4 and shipped.out == Path("runs/sweep-formats")
    (tmp_path / "bad.yaml").write_text("base: [unclosed\n")
    with pytest.raises(ValueError, match="cannot read the sweep"):
        load_sweep(tmp_path / "bad.yaml")


def test_a_sweep_runs_each_run_into_its_folder_and_resumes(tmp_path):
    (tmp_path / "s.yaml").write_text(
        f"out: {tmp_path / 'out'}\n"
        "base: {model: ground-truth, categories: [simple_python, multiple], limit: 3}\n"
        "grid: {format: [hermes, pythonic]}\n"
    )
    first = CliRunner().invoke(app, ["eval", "sweep", str(tmp_path / "s.yaml"), "--concurrency", "2"])
    assert first.exit_code == 0, first.output
    assert "2 runs, 12 items, 12 to go" in " ".join(first.output.split())
    for fmt in ("hermes", "pythonic"):
        records = _records(tmp_path / "out" / f"format-{fmt}")
        assert len(records) == 6 and all(r["valid"] and r["format"] == fmt for r in records.values())
    table = json.loads((tmp_path / "out" / "sweep.json").read_text())
    assert [(r["name"], r["summary"]["accuracy"]["value"]) for r in table] == [
        ("format-hermes", 1.0),
        ("format-pythonic", 1.0),
    ]
    again = CliRunner().invoke(app, ["eval", "sweep", str(tmp_path / "s.yaml")])
    assert again.exit_code == 0 and "12 items, 0 to go" in " ".join(again.output.split())
    bad = CliRunner().invoke(app, ["eval", "sweep", str(tmp_path / "s.yaml"), "--workers", "2"])
    assert bad.exit_code == 2 and "apply to --executor ray" in " ".join(bad.output.split())
    bad = CliRunner().invoke(app, ["eval", "sweep", str(tmp_path / "s.yaml"), "--executor", "dask"])
    assert bad.exit_code == 2 and "unknown executor 'dask'" in bad.output


# ---- Ray: a real local cluster -----------------------------------------------------------------------------


def _cluster_connections() -> list:
    """Every inet socket of this process's children (Ray's servers and workers)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            found += child.net_connections(kind="inet")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def test_ray_runs_items_into_the_same_results_and_stays_on_loopback(tmp_path):
    config = RunConfig(model="ground-truth", categories=["simple_python", "multiple", "multi_turn_base"], limit=4)
    asyncio.run(BfclRun(config, tmp_path / "here").run())
    executor = executor_for("ray", workers=2, concurrency=2)
    try:
        streamed = []
        summary = asyncio.run(BfclRun(config, tmp_path / "ray").run(streamed.append, executor))
        connections = _cluster_connections()
        listening = [c for c in connections if c.status == psutil.CONN_LISTEN]
        assert listening and all(_loopback(c.laddr.ip) for c in listening), listening
        assert all(_loopback(c.raddr.ip) for c in connections if c.raddr), connections
        # a sweep on the same workers: each run's records go to its own folder
        sweep = expand(
            {
                "base": {"model": "ground-truth", "categories": ["simple_python"], "limit": 3},
                "grid": {"format": ["hermes", "pythonic"]},
            },
            tmp_path / "sweep",
        )
        runs = [BfclRun(r.config, sweep.out / r.name) for r in sweep.runs]
        summaries = asyncio.run(run_all(runs, executor))
    finally:
        executor.close()
    assert len(streamed) == 12 and summary["items"] == 12 and summary["accuracy"]["value"] == 1.0
    assert _records(tmp_path / "ray") == _records(tmp_path / "here")
    assert BfclRun(config, tmp_path / "ray").pending == []  # resumable like any run folder
    assert [s["items"] for s in summaries] == [3, 3]
    swept = _records(sweep.out / "format-pythonic")
    assert len(swept) == 3 and all(r["valid"] and r["format"] == "pythonic" for r in swept.values())


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_nothing(tmp_path):
    """The embedded model on 8 items, two workers; one is killed (SIGKILL) after the second record. Finished
    items stay recorded, the killed worker's item runs again elsewhere, and the results equal a run in one
    process on the same items."""
    config = RunConfig(model="local", categories=["simple_python", "irrelevance"], limit=4, max_new_tokens=32)
    asyncio.run(BfclRun(config, tmp_path / "here").run())
    executor = executor_for("ray", workers=2)
    executor.start()
    pids = asyncio.run(executor.pids())
    killed: list[int] = []
    seen: list[str] = []

    def on_record(record) -> None:
        seen.append(record.id)
        if len(seen) == 2:
            before = _records(tmp_path / "ray")
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])
            killed.append(len(before))

    try:
        asyncio.run(BfclRun(config, tmp_path / "ray").run(on_record, executor))
        after = asyncio.run(asyncio.wait_for(executor.pids(), timeout=300))
    finally:
        executor.close()
    assert killed and killed[1] == 2  # two records were on disk when the worker died
    assert executor.retried == 1  # the item it was running went to the queue again
    assert pids[0] not in after and pids[1] in after  # Ray restarted the killed worker in a new process
    assert len(seen) == 8 and len(set(seen)) == 8  # nothing lost, nothing run twice into the results
    ours, reference = _records(tmp_path / "ray"), _records(tmp_path / "here")
    assert ours.keys() == reference.keys()
    for item, record in reference.items():
        assert (ours[item]["raw"], ours[item]["valid"], ours[item]["calls"]) == (
            record["raw"],
            record["valid"],
            record["calls"],
        ), item


def test_the_lab_on_ray_from_the_command_line(tmp_path):
    for where, extra in (("here", []), ("ray", ["--executor", "ray", "--workers", "2", "--concurrency", "2"])):
        args = ["lab", "errors", "--n", "4", "--seed", "5", "--out", str(tmp_path / where), *extra]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    assert (tmp_path / "ray" / "outcomes.jsonl").read_text() == (tmp_path / "here" / "outcomes.jsonl").read_text()
    refused = CliRunner().invoke(app, ["lab", "rag", "--executor", "ray"])
    assert refused.exit_code == 2 and "runs in one process" in refused.output


def test_ray_refuses_what_it_cannot_do_with_a_clear_error(tmp_path):
    args = ["eval", "bfcl", "--model", "ground-truth", "--categories", "simple_python", "--limit", "1"]
    unreachable = CliRunner().invoke(
        app, [*args, "--out", str(tmp_path / "a"), "--executor", "ray", "--address", "127.0.0.1:1"]
    )
    assert unreachable.exit_code == 2 and "no Ray cluster answers at 127.0.0.1:1" in " ".join(
        unreachable.output.split()
    )
    too_many = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "b"), "--executor", "ray", "--workers", "64"])
    assert too_many.exit_code == 2 and "64 workers x 1 CPUs need 64 CPUs" in " ".join(too_many.output.split())
    assert not (tmp_path / "b" / "results.jsonl").exists()


def test_ray_refuses_workers_that_run_another_checkout(tmp_path):
    # Ray puts the driver's working directory first on its workers' path: a run started in one checkout with
    # PYTHONPATH naming another had its jobs run by the first (the "before" side of a comparison was the "after")
    import shutil

    import toollab

    here = Path(toollab.__file__).parent
    other = tmp_path / "other"
    shutil.copytree(here, other / "toollab", ignore=shutil.ignore_patterns("__pycache__", "data"))
    script = tmp_path / "start.py"
    script.write_text(
        "from toollab.scale.ray_cluster import RayExecutor\n"
        "try:\n    RayExecutor(workers=1).start()\nexcept RuntimeError as error:\n    print('REFUSED', error)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(here.parent)}
    done = subprocess.run(
        [sys.executable, str(script)], cwd=other, env=env, capture_output=True, text=True, timeout=300
    )
    said = " ".join(done.stdout.split())
    assert "REFUSED the Ray workers import toollab from" in said and str(other) in said, done.stdout + done.stderr
