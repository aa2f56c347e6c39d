"""A tiny real BFCL run: the embedded SmolLM2-135M on a few items, through the command line, in both formats."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from toollab.interfaces.cli import app

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("format", ["hermes", "pythonic"])
def test_the_embedded_model_on_a_few_items(tmp_path, format):
    args = ["eval", "bfcl", "--model", "local", "--format", format, "--categories", "simple_python,irrelevance"]
    result = CliRunner().invoke(app, [*args, "--limit", "2", "--max-new-tokens", "24", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["category"] for r in records] == ["simple_python"] * 2 + ["irrelevance"] * 2
    for r in records:
        assert r["format"] == format and r["model"] == "local"
        assert r["raw"][0] is not None and r["ops"]["input_tokens"] > 50
        assert 0 < r["ops"]["output_tokens"] <= 24 and r["ops"]["stop_reasons"]
        assert r["failure_source"] in (None, "model")
    # the prompt is the exact text the model read, tools included
    name = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])["prompt"]
    assert "<|im_start|>" in name and ("<tools>" in name if format == "hermes" else "func_name1" in name)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["items"] == 4 and summary["config"]["format"] == format
    assert (tmp_path / "report.html").stat().st_size > 10_000
