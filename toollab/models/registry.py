"""Model strings, as the command line takes them, to model objects."""

from __future__ import annotations

import json
from pathlib import Path

from toollab.harness.model import Model
from toollab.models.scripted import ScriptedModel, call

MODEL_FORMS = "scripted (the demo script), scripted:FILE.json (a list of turns)"

DEMO_SCRIPT = [
    call("add", a=5.0, b=3.0),
    call("multiply", a=8.0, b=2.0),
    call("finish", answer="(5.0 + 3.0) * 2.0 = 16.0"),
]


def load_script(path: str | Path) -> ScriptedModel:
    """A ScriptedModel from a JSON list of turns: text, or {"content": ..., "tool_calls": [...], "usage": ...}."""
    try:
        turns = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read the script {path}: {exc}") from None
    if not isinstance(turns, list):
        raise ValueError(f"the script {path} must hold a JSON list of turns")
    try:
        return ScriptedModel(turns, name=f"scripted:{path}")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the script {path} has a bad turn: {exc}") from None


def load_model(spec: str) -> Model:
    kind, _, rest = spec.partition(":")
    if kind == "scripted":
        return load_script(rest) if rest else ScriptedModel(DEMO_SCRIPT, name="scripted")
    raise ValueError(f"unknown model {spec!r}; known forms: {MODEL_FORMS}")
