"""Training: the generated data, a quick LoRA run that lowers the held-out loss, resuming a killed run, and
loading the adapter (merged, and beside int4 weights) so that it computes what peft computes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toollab.eval.bfcl.data import CATEGORIES, load_category
from toollab.formats import get_format
from toollab.harness import AssistantMessage
from toollab.train.data import NO_TOOL_ANSWER, generate, read_examples, write_data
from toollab.train.tokens import IGNORE, pack, tokenize


def test_training_data_holds_nothing_of_bfcl():
    names, descriptions, questions = set(), set(), set()
    for category in CATEGORIES:
        for item in load_category(category):
            names |= {f["name"] for f in item.functions}
            descriptions |= {f.get("description", "").strip().lower() for f in item.functions}
            questions |= {m["content"].strip().lower() for turn in item.turns for m in turn if m.get("content")}
    assert len(names) > 1500 and len(questions) > 3000
    examples = list(generate("train", 60, mask=0.3, seed=0))
    for example in examples:
        assert not {t.name for t in example.tools} & names
        own = {t.description.removesuffix(" Note that the provided function is in Python 3 syntax.").strip().lower()
               for t in example.tools}  # fmt: skip
        assert not own & descriptions
        assert example.messages[0].content.strip().lower() not in questions


def test_examples_mask_names_shuffle_tools_and_answer_irrelevance_in_words():
    examples = list(generate("train", 40, mask=0.5, seed=1))
    masked = [e for e in examples if all(t.name.startswith("fn_") for t in e.tools)]
    assert 0.3 < len(masked) / len(examples) < 0.7
    for example in masked:
        reply = example.messages[-1]
        assert isinstance(reply, AssistantMessage)
        offered = {t.name: set(t.parameters["properties"]) for t in example.tools}
        for call in reply.tool_calls:  # calls use the masked names, consistently
            assert call.name in offered and set(call.args_as_dict()) <= offered[call.name]
            assert all(arg.startswith("arg_") for arg in call.args_as_dict())
    words = [e for e in examples if e.source.startswith("synth_irrelevance")]
    assert words and all(e.messages[-1].content == NO_TOOL_ANSWER for e in words)
    first_tools = {e.source: [t.description for t in e.tools] for e in examples}
    again = {e.source: [t.description for t in e.tools] for e in generate("train", 40, mask=0.5, seed=1)}
    assert first_tools == again  # seeded


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


def _train(data: Path, out: Path, *extra: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "toollab", "train", "--data", str(data), "--out", str(out), "--quick", *extra]
    env = os.environ | {"OMP_NUM_THREADS": "2"}  # the same threads in every run: the same arithmetic
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A quick run, uninterrupted; and the same run killed after its first checkpoint and resumed."""
    folder = tmp_path_factory.mktemp("train")
    write_data(folder / "data", per_category=10, heldout_per_category=2, mask=0.3, seed=0)
    whole = _train(folder / "data", folder / "whole")
    output, _ = whole.communicate(timeout=600)
    assert whole.returncode == 0, output.decode()
    killed = _train(folder / "data", folder / "killed", "--checkpoint-minutes", "0.05")
    state = folder / "killed" / "checkpoint" / "state.pt"
    deadline = time.monotonic() + 600
    while not state.exists() and killed.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert state.exists() and not (folder / "killed" / "train.json").exists()
    resumed = _train(folder / "data", folder / "killed", "--checkpoint-minutes", "0.05", "--resume")
    output, _ = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, output.decode()
    return folder


@pytest.mark.slow
def test_a_quick_run_lowers_the_heldout_loss_and_a_killed_run_resumes_to_the_same_adapter(trained):
    from safetensors.torch import load_file

    whole = json.loads((trained / "whole" / "train.json").read_text())
    assert whole["heldout_loss_after"] < whole["heldout_loss_before"], whole
    assert whole["steps"] == len(whole["losses"]) > 1 and whole["tokens_per_second"] > 0
    resumed = json.loads((trained / "killed" / "train.json").read_text())
    assert resumed["steps"] == whole["steps"] and resumed["losses"] == whole["losses"]
    a = load_file(trained / "whole" / "adapter" / "adapter_model.safetensors")
    b = load_file(trained / "killed" / "adapter" / "adapter_model.safetensors")
    assert a.keys() == b.keys() and all((a[k] - b[k]).abs().max() < 1e-6 for k in a)
    assert len(read_examples(trained / "data" / "train.jsonl")) == 50


@pytest.mark.slow
def test_an_adapter_loads_merged_and_beside_int4_weights_and_computes_what_peft_does(trained):
    import torch
    from peft import PeftModel

    from toollab.models import local_weights
    from toollab.models.local import LocalModel

    adapter = str(trained / "whole" / "adapter")
    tokenizer, base = local_weights.load_for_training(None)
    reference = PeftModel.from_pretrained(base, adapter).eval()
    ids = tokenizer("What is the weather in Lima? Call a tool.", return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        expected = reference(input_ids=ids).logits[0, -1]
        plain = reference.get_base_model()
        with reference.disable_adapter():
            without = plain(input_ids=ids).logits[0, -1]
    merged = LocalModel(adapter=adapter, dtype="float32").load()
    with torch.inference_mode():
        got = merged.model(input_ids=ids).logits[0, -1]
    assert (got - expected).abs().max() < 1e-3  # merged: the same function
    assert (expected - without).abs().max() > 1e-2  # and the adapter does change it
    packed = LocalModel(adapter=adapter).load()
    assert "LoRA" in packed.weights and packed.lean is not None  # int4 kept, the update beside it
    cache = packed.lean.new_cache()
    lean = packed.lean.forward(ids[0].tolist(), cache)
    cosine = torch.nn.functional.cosine_similarity(lean.float(), expected.float(), dim=0)
    assert cosine > 0.995 and int(lean.argmax()) == int(expected.argmax())


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
