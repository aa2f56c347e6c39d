"""`toollab lab` as a subprocess: the simulated model, bad input, and the embedded model on a small budget."""

from __future__ import annotations

import json

import pytest
from conftest import toollab


def test_lab_prints_tables_and_writes_its_files(tmp_path):
    out = toollab("lab", "planning", "--n", "10", "--seed", "3", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "Plan first against step by step" in out.stdout and "simulated" in out.stdout
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["experiment"] == "planning" and summary["n"] == 10 and summary["seed"] == 3
    assert len((tmp_path / "outcomes.jsonl").read_text().splitlines()) == 2 * 2 * 10
    assert (tmp_path / "accuracy.png").stat().st_size > 1000


def test_lab_protocol_shows_the_wire(tmp_path):
    out = toollab("lab", "protocol", "--n", "2", "--format", "pythonic", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "on the wire" in out.stdout and "[population(country=" in out.stdout


def test_lab_refuses_unknown_experiments_and_models(tmp_path):
    out = toollab("lab", "astrology", "--out", str(tmp_path))
    assert out.returncode == 2 and "unknown experiment 'astrology'" in out.stderr
    out = toollab("lab", "stages", "--model", "nonsense", "--out", str(tmp_path))
    assert out.returncode == 2 and "unknown model" in out.stderr
    assert not (tmp_path / "summary.json").exists()


@pytest.mark.slow
def test_lab_runs_on_the_embedded_model(tmp_path):
    out = toollab(
        *("lab", "stages", "--model", "local", "--n", "1", "--max-new-tokens", "48", "--tool-choice", "required"),
        *("--out", str(tmp_path)),
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (tmp_path / "outcomes.jsonl").read_text().splitlines()]
    assert [r["strategy"] for r in rows] == ["single-stage", "multi-stage", "multi-stage, no calculator"]
    assert all(r["model_calls"] >= 1 and r["input_tokens"] > 0 for r in rows)
    assert all(r["calls"] for r in rows[1:])  # constrained and required: the first turn is a call
