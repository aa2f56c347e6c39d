"""Training: the generated data, a quick LoRA run that lowers the held-out loss, resuming a killed run, and
loading the adapter (merged, and beside int4 weights) so that it computes what peft computes."""

from __future__ import annotations

import asyncio
import json
import signal
import time

import pytest
from conftest import bfcl_texts, quick_train, toollab

from toollab.formats import get_format
from toollab.harness import AssistantMessage, ToolResultMessage, UserMessage
from toollab.harness.model import ModelResponse
from toollab.models.scripted import ScriptedModel
from toollab.tools import add, calculator, multiply
from toollab.train.data import (
    Example,
    expression_examples,
    generate,
    irrelevance_asks,
    own_answers,
    read_examples,
    task_examples,
)
from toollab.train.tokens import IGNORE, pack, tokenize


def _every_kind() -> list[Example]:
    calls = list(generate("train", 60, mask=0.3, seed=0))
    tasks, asks = asyncio.run(task_examples("train", 40, seed=0))
    asks += irrelevance_asks("train", 40, seed=0)
    prose = [ask.answered("words") for ask in asks]
    return calls + tasks + asyncio.run(expression_examples(20, seed=0)) + prose


def test_training_data_holds_nothing_of_bfcl():
    bfcl = bfcl_texts()
    names, descriptions, questions = bfcl.names, bfcl.descriptions, bfcl.questions
    assert len(names) > 1500 and len(questions) > 3000
    own_tools = {t.name for t in (add, multiply, calculator)}  # toollab's own, whose names BFCL also uses
    for example in _every_kind():
        assert not {t.name for t in example.tools} - own_tools & names
        own = {t.description.removesuffix(" Note that the provided function is in Python 3 syntax.").strip().lower()
               for t in example.tools}  # fmt: skip
        assert not own & descriptions
        assert example.messages[0].content.strip().lower() not in questions


def test_call_examples_mask_names_and_shuffle_tools():
    examples = list(generate("train", 40, mask=0.5, seed=1))
    assert not [e for e in examples if e.source.startswith("synth_irrelevance")]  # those are answered in words
    masked = [e for e in examples if all(t.name.startswith("fn_") for t in e.tools)]
    assert 0.3 < len(masked) / len(examples) < 0.7
    for example in masked:
        reply = example.messages[-1]
        assert isinstance(reply, AssistantMessage)
        offered = {t.name: set(t.parameters["properties"]) for t in example.tools}
        for call in reply.tool_calls:  # calls use the masked names, consistently
            assert call.name in offered and set(call.args_as_dict()) <= offered[call.name]
            assert all(arg.startswith("arg_") for arg in call.args_as_dict())
    first_tools = {e.source: [t.description for t in e.tools] for e in examples}
    again = {e.source: [t.description for t in e.tools] for e in generate("train", 40, mask=0.5, seed=1)}
    assert first_tools == again  # seeded


def test_tasks_run_their_calls_round_by_round_and_answer_from_the_last_result():
    tasks, asks = asyncio.run(task_examples("train", 60, seed=0))
    assert tasks and asks and all(a.expect is not None for a in asks)  # "say hello" needs no tool
    two_step = [e for e in tasks if "money_then_add" in e.source]
    assert two_step
    for example in two_step:
        roles = [m.role for m in example.messages]
        assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
        first, second = example.messages[2], example.messages[4]
        assert isinstance(first, ToolResultMessage) and isinstance(second, ToolResultMessage)
        assert not first.is_error and not second.is_error
        assert first.content in example.messages[3].tool_calls[0].arguments["expression"]  # the result is used
        assert example.messages[-1].content == f"The answer is {round(float(second.content), 4):.12g}."
    expressions = asyncio.run(expression_examples(10, seed=0))
    for example in expressions:
        call = example.messages[1].tool_calls[0]
        assert call.name in ("calculator", "arith") and call.arguments["expression"] in example.messages[0].content


def test_prose_answers_are_the_models_own_and_kept_only_when_right_and_whole():
    asks = [a for a in asyncio.run(task_examples("train", 60, seed=0))[1]][:3]
    cut = ModelResponse(AssistantMessage(content="Hello and hello and"), metadata={"stop_reason": "length"})
    model = ScriptedModel([f"Hello, {asks[0].question.split()[-1]}", "Goodbye.", cut])
    kept = asyncio.run(own_answers(model, asks))
    assert [e.messages[-1].content for e in kept] == [f"Hello, {asks[0].question.split()[-1]}"]
    assert isinstance(kept[0].messages[0], UserMessage) and kept[0].tools == asks[0].tools


@pytest.mark.slow
def test_only_the_assistant_turn_is_learned_and_it_is_what_the_runtime_would_parse():
    from toollab.models import local_weights

    tokenizer = local_weights.load().tokenizer
    hermes = get_format("hermes")
    example = next(e for e in generate("train", 5, mask=0.0, seed=0) if e.source.startswith("synth_parallel_"))
    tokens = tokenize(example, hermes, tokenizer)
    learned = tokenizer.decode([t for t, label in zip(tokens.ids, tokens.labels, strict=True) if label != IGNORE])
    assert learned.endswith("<|im_end|>") and learned.count("<|im_end|>") == 1
    parsed = hermes.parse(learned.removesuffix("<|im_end|>"), list(example.tools))
    reply = example.messages[-1]
    assert isinstance(reply, AssistantMessage)
    assert [(c.name, c.args_as_dict()) for c in parsed.tool_calls] == [
        (c.name, c.args_as_dict()) for c in reply.tool_calls
    ]
    rows = pack([tokens, tokens, tokens], length=2 * len(tokens.ids) + 1, seed=0)
    assert [len(r.ids) for r in rows] == [2 * len(tokens.ids), len(tokens.ids)]
    with pytest.raises(ValueError, match="raise --seq-len"):  # never cut: the answer would be what is lost
        pack([tokens], length=len(tokens.ids) - 1, seed=0)


@pytest.fixture(scope="module")
def trained(quick_run, tmp_path_factory):
    """The session's quick run (`data/`, `whole/`), and the same run killed after its first checkpoint and
    resumed (`killed/`)."""
    killed_out = tmp_path_factory.mktemp("train") / "killed"
    killed = quick_train(quick_run / "data", killed_out, "--checkpoint-minutes", "0.05")
    state = killed_out / "checkpoint" / "state.pt"
    deadline = time.monotonic() + 600
    while not state.exists() and killed.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert state.exists() and not (killed_out / "train.json").exists()
    resumed = quick_train(quick_run / "data", killed_out, "--checkpoint-minutes", "0.05", "--resume")
    output, _ = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, output.decode()
    return quick_run, killed_out


@pytest.mark.slow
def test_a_quick_run_lowers_the_heldout_loss_and_a_killed_run_resumes_to_the_same_adapter(trained):
    from safetensors.torch import load_file

    run, killed = trained
    whole = json.loads((run / "whole" / "train.json").read_text())
    assert whole["heldout_loss_after"] < whole["heldout_loss_before"], whole
    assert whole["steps"] == len(whole["losses"]) > 1 and whole["tokens_per_second"] > 0
    resumed = json.loads((killed / "train.json").read_text())
    assert resumed["steps"] == whole["steps"] and resumed["losses"] == whole["losses"]
    a = load_file(run / "whole" / "adapter" / "adapter_model.safetensors")
    b = load_file(killed / "adapter" / "adapter_model.safetensors")
    assert a.keys() == b.keys() and all((a[k] - b[k]).abs().max() < 1e-6 for k in a)
    written = json.loads((run / "data" / "data.json").read_text())["examples"]["train.jsonl"]
    assert len(read_examples(run / "data" / "train.jsonl")) == written["all"] > 40  # 40 calls, tasks, sums


@pytest.mark.slow
def test_a_run_started_from_a_trained_adapter_begins_where_it_ended(quick_run, tmp_path):
    """--init-adapter: the held-out loss before the first step is the trained adapter's after its last, and the
    new adapter keeps the old one's shape (rank, layers) whatever the quick configuration says."""
    from safetensors.torch import load_file

    first = quick_run / "whole"
    run = quick_train(quick_run / "data", tmp_path / "next", "--init-adapter", str(first / "adapter"))
    output, _ = run.communicate(timeout=600)
    assert run.returncode == 0, output.decode()
    before = json.loads((first / "train.json").read_text())
    after = json.loads((tmp_path / "next" / "train.json").read_text())
    assert after["heldout_loss_before"] == pytest.approx(before["heldout_loss_after"], abs=2e-3)
    assert after["heldout_loss_before"] < before["heldout_loss_before"]
    old = load_file(first / "adapter" / "adapter_model.safetensors")
    new = load_file(tmp_path / "next" / "adapter" / "adapter_model.safetensors")
    assert old.keys() == new.keys() and all(old[k].shape == new[k].shape for k in old)
    assert any((old[k] - new[k]).abs().max() > 0 for k in old)  # it trained on


def test_a_card_names_the_adapter_a_run_started_from_as_the_command_line_takes_it():
    from toollab.train.export import command_of

    config = {"data": "/a/data-3", "out": "/b/train6", "seed": 3, "epochs": 0.55}
    shipped = command_of(config | {"init_adapter": "/tmp/checkout/toollab/models/data/adapter"})
    assert shipped == "toollab train --data data-3 --out train6 --seed 3 --epochs 0.55 --init-adapter shipped"
    assert command_of(config | {"init_adapter": "/x/runs/train5/adapter"}).endswith("--init-adapter train5/adapter")


def test_init_adapter_wants_an_adapter_folder(tmp_path):
    out = toollab("train", "--data", str(tmp_path), "--out", str(tmp_path / "out"), "--init-adapter", str(tmp_path))
    assert out.returncode != 0
    assert "adapter" in out.stderr + out.stdout
    (tmp_path / "adapter_config.json").write_text("{}")
    full = toollab(
        "train", "--data", str(tmp_path), "--out", str(tmp_path / "out"), "--init-adapter", str(tmp_path), "--full"
    )
    assert full.returncode != 0 and "full fine-tune" in " ".join((full.stderr + full.stdout).split())


@pytest.mark.slow
def test_the_loss_on_targets_alone_is_the_models_own_loss():
    import torch

    from toollab.models import local_weights
    from toollab.train.sft import batches, target_loss

    tokenizer, model = local_weights.load_for_training(None)
    examples = [tokenize(e, get_format("hermes"), tokenizer) for e in generate("train", 2, mask=0.0, seed=0)]
    (batch,) = batches(examples[:3], 3, tokenizer.eos_token_id)
    with torch.inference_mode():
        assert abs(float(target_loss(model, batch)) - float(model(**batch).loss)) < 1e-4


def test_the_embedded_model_runs_with_the_shipped_adapter_unless_told_otherwise(tmp_path, monkeypatch):
    from toollab.models import registry

    monkeypatch.setattr(registry, "SHIPPED_ADAPTER", tmp_path / "missing")
    assert registry.adapter_of("local", None) == "none"  # a package without an adapter: the base weights
    monkeypatch.setattr(registry, "SHIPPED_ADAPTER", tmp_path)
    (tmp_path / "adapter_config.json").write_text("{}")
    assert registry.adapter_of("local", None) == "shipped"
    assert registry.adapter_folder("local", None) == str(tmp_path)
    assert registry.adapter_folder("local", "none") is None
    assert registry.adapter_folder("local", "/x/adapter") == "/x/adapter"
    assert registry.adapter_of("local:/models/other", None) == "none"  # trained for the embedded model only
    assert registry.adapter_of("openai:gpt-4o", None) is None
    with pytest.raises(ValueError, match="embedded model"):
        registry.adapter_folder("local:/models/other", "shipped")
    with pytest.raises(ValueError, match="local models"):
        registry.load_model("openai:gpt-4o", adapter="/x/adapter")
    assert registry.load_model("local", adapter="none").adapter is None  # type: ignore[attr-defined]
    assert registry.load_model("local").adapter == str(tmp_path)  # type: ignore[attr-defined]


def test_a_run_folder_records_the_adapter_spelled_out_and_old_folders_resume_as_base(tmp_path, monkeypatch):
    from toollab.eval.bfcl.run import BfclRun, RunConfig
    from toollab.models import registry
    from toollab.models.scripted import ScriptedModel

    monkeypatch.setattr(registry, "SHIPPED_ADAPTER", tmp_path / "missing")
    config = RunConfig(model="local", categories=["synth_simple"], limit=1, dataset="synth")
    run = BfclRun(config, tmp_path / "run", model=ScriptedModel([]))
    assert run.config.adapter == "none"
    meta = json.loads(json.dumps(run.config.identity()))
    meta["adapter"] = None  # as a folder written before adapters shipped records it
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.json").write_text(json.dumps(meta))
    BfclRun(config, tmp_path / "run", model=ScriptedModel([]))  # resumable: it ran the base weights
    monkeypatch.setattr(registry, "SHIPPED_ADAPTER", tmp_path)
    (tmp_path / "adapter_config.json").write_text("{}")
    with pytest.raises(ValueError, match="another --out"):
        BfclRun(config, tmp_path / "run", model=ScriptedModel([]))  # now the default is the shipped adapter
