"""Model strings, as the command line takes them, to model objects."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollab.constrain import ToolGrammar
from toollab.harness.model import Model
from toollab.harness.request import CallPolicy
from toollab.models.anthropic import AnthropicModel
from toollab.models.local import LocalModel
from toollab.models.local_weights import SHIPPED_ADAPTER, is_adapter_folder
from toollab.models.openai_compatible import OpenAIModel
from toollab.models.scripted import ScriptedModel, call
from toollab.models.switches import Switches

MODEL_FORMS = (
    "local (the embedded SmolLM2-135M-Instruct), local:PATH (a model folder or .gguf file), openai:MODEL, "
    "openai:MODEL@BASE_URL, anthropic:MODEL, scripted (a demo script), scripted:FILE.json"
)

# The adapter a local model runs with, as commands take it and runs record it: a folder written by `toollab
# train`, SHIPPED (the adapter inside the package, trained for the embedded model: its default) or NO_ADAPTER.
SHIPPED, NO_ADAPTER = "shipped", "none"

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


def is_local(spec: str) -> bool:
    """Whether a model string names a local model (`local` or `local:PATH`)."""
    return spec == "local" or spec.startswith("local:")


def adapter_of(spec: str, adapter: str | None) -> str | None:
    """What `adapter` means for the model `spec`, spelled out: None (the default) is SHIPPED for the embedded
    model when the package holds an adapter, NO_ADAPTER for other local models, and None for remote ones."""
    if adapter is None and is_local(spec):
        return SHIPPED if spec == "local" and is_adapter_folder(SHIPPED_ADAPTER) else NO_ADAPTER
    return adapter


def adapter_folder(spec: str, adapter: str | None) -> str | None:
    """The adapter folder to load for `spec` (None: the base weights). Raises ValueError for an adapter on a
    remote model or the shipped one on a model it was not trained for."""
    label = adapter_of(spec, adapter)
    if label in (None, NO_ADAPTER):
        return None
    if not is_local(spec):
        raise ValueError(f"an adapter applies to local models, not {spec!r}")
    if label == SHIPPED:
        if spec != "local":
            raise ValueError(f"the shipped adapter was trained for the embedded model, not {spec!r}")
        return str(SHIPPED_ADAPTER)
    return label


def require_local(spec: str) -> None:
    """Constrained decoding is for local models: HTTP backends constrain (or not) on the provider's side."""
    if not is_local(spec):
        raise ValueError(
            f"constrained decoding applies to local models, not {spec!r}; HTTP backends constrain on their side"
        )


@dataclass(frozen=True)
class LoadSpec:
    """What `load_model` was given: a model that another process needs (a Ray worker) travels as this and is
    loaded there again, instead of as its weights."""

    spec: str
    format: str | None = None
    max_new_tokens: int | None = None
    constrained: bool | None = None
    switches: Switches | None = None
    policy: CallPolicy | None = None
    adapter: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Model:
        return load_model(
            self.spec,
            format=self.format,
            max_new_tokens=self.max_new_tokens,
            constrained=self.constrained,
            switches=self.switches,
            policy=self.policy,
            adapter=self.adapter,
            **self.options,
        )


def load_spec_of(model: object) -> LoadSpec | None:
    """How `model` was loaded, if `load_model` loaded it (scripted models keep none: they travel as they are,
    with their place in the script)."""
    spec = getattr(model, "load_spec", None)
    return spec if isinstance(spec, LoadSpec) else None


def load_model(
    spec: str,
    *,
    format: str | None = None,
    max_new_tokens: int | None = None,
    constrained: bool | None = None,
    switches: Switches | None = None,
    policy: CallPolicy | None = None,
    adapter: str | None = None,
    **options: Any,
) -> Model:
    """A model from its string, with the project's defaults: every command builds its model here.

    Local models decode constrained unless `constrained` is False, with the measured `switches` (`Switches()`
    unless given), which set their decoding and the call policy they carry (`policy` replaces it); `format` and
    `max_new_tokens` apply to them (other backends ignore all of these). Constrained decoding is refused for
    other backends, which constrain on their side. `adapter` (local models only): a LoRA adapter folder,
    "shipped" or "none"; by default the embedded model runs with the shipped adapter (`adapter_of`). `options` go
    to the backend's constructor."""
    wanted = LoadSpec(spec, format, max_new_tokens, constrained, switches, policy, adapter, options)
    model = _load(wanted)
    if not isinstance(model, ScriptedModel):
        model.load_spec = wanted  # type: ignore[attr-defined]
    return model


def _load(wanted: LoadSpec) -> Model:
    spec, options = wanted.spec, dict(wanted.options)
    if wanted.constrained:
        require_local(spec)
    folder = adapter_folder(spec, wanted.adapter)
    kind, _, rest = spec.partition(":")
    if kind == "local":
        if wanted.max_new_tokens is not None:
            options["max_new_tokens"] = wanted.max_new_tokens
        grammar = ToolGrammar() if wanted.constrained is not False else None
        chosen = wanted.switches or Switches()
        options = {**chosen.local_options(), **options}
        return LocalModel(
            rest or None,
            format=wanted.format,
            constraint=grammar,
            policy=wanted.policy or chosen.policy(),
            adapter=folder,
            **options,
        )
    if kind == "openai" and rest:
        name, _, base_url = rest.rpartition("@") if "@http" in rest else (rest, "", "")
        return OpenAIModel(name, base_url=base_url or None, **options)
    if kind == "anthropic" and rest:
        return AnthropicModel(rest, **options)
    if kind == "scripted":
        return load_script(rest) if rest else ScriptedModel(DEMO_SCRIPT, name="scripted")
    raise ValueError(f"unknown model {spec!r}; known forms: {MODEL_FORMS}")
