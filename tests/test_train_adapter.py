"""A trained adapter loaded: merged into float weights, beside int4 weights, exported in bfloat16, and rounded
into the int4 codes; each computes what peft computes, within what its precision allows."""

from __future__ import annotations

import re

import pytest
from conftest import toollab


@pytest.mark.slow
def test_an_adapter_loads_merged_and_beside_int4_weights_and_computes_what_peft_does(quick_run, tmp_path):
    import torch
    from peft import PeftModel

    from toollab.models import local_weights
    from toollab.models.local import LocalModel

    adapter = str(quick_run / "whole" / "adapter")
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
    packed = LocalModel(adapter=adapter, dtype="int4").load()
    assert "LoRA" in packed.weights and packed.lean is not None  # int4 kept, the update beside it
    cache = packed.lean.new_cache()
    lean = packed.lean.forward(ids[0].tolist(), cache)
    cosine = torch.nn.functional.cosine_similarity(lean.float(), expected.float(), dim=0)
    assert cosine > 0.995 and int(lean.argmax()) == int(expected.argmax())


@pytest.mark.slow
def test_an_exported_adapter_is_bfloat16_with_a_card_and_computes_what_the_trained_one_does(quick_run, tmp_path):
    import torch
    from safetensors.torch import load_file

    from toollab.models.local import LocalModel

    out = tmp_path / "export"
    done = toollab(
        "train-export", "--run", str(quick_run / "whole"), "--out", str(out), "--calibration", "2", timeout=600
    )
    assert done.returncode == 0, done.stderr
    weights = load_file(out / "adapter_model.safetensors")
    source = quick_run / "whole" / "adapter" / "adapter_model.safetensors"
    assert {t.dtype for t in weights.values()} == {torch.bfloat16}
    assert (out / "adapter_model.safetensors").stat().st_size < 0.55 * source.stat().st_size
    card = (out / "README.md").read_text()
    assert "toollab train --data" in card and "seed 0" in card and "tokens/s" in card and "Held-out loss" in card
    ids = [[1, 504, 314, 260, 3619, 281, 23466, 47]]  # any few tokens
    logits = []
    for adapter in (str(quick_run / "whole" / "adapter"), str(out)):
        loaded = LocalModel(adapter=adapter, dtype="float32").load()
        with torch.inference_mode():
            logits.append(loaded.model(input_ids=torch.tensor(ids)).logits[0, -1])
    assert torch.nn.functional.cosine_similarity(logits[0], logits[1], dim=0) > 0.9999
    assert int(logits[0].argmax()) == int(logits[1].argmax())
    assert (out / "int4_merge.safetensors").is_file()  # the embedded model's adapter: merged into int4 too
    failed = toollab("train-export", "--run", str(quick_run / "data"), "--out", str(out), timeout=300)
    assert failed.returncode != 0 and "holds no adapter" in " ".join((failed.stdout + failed.stderr).split())
    assert (out / "adapter_model.safetensors").is_file()  # a failed export leaves the last one alone


@pytest.mark.slow
def test_an_adapter_merged_into_int4_weights_decodes_without_its_update_apart_and_keeps_its_effect(quick_run, tmp_path):
    """`toollab train-int4`: the codes stored beside the adapter, loaded instead of the update kept apart; what
    the adapter changes in the float model's logits, the codes change in the int4 model's, in the same direction."""
    import shutil

    import torch
    from peft import PeftModel

    from toollab.models import local_weights
    from toollab.models.local import LocalModel
    from toollab.models.local_int4_merge import MERGE_FILE

    adapter, every = tmp_path / "int4", tmp_path / "every"
    for folder, share_apart in ((adapter, "0.2"), (every, "0")):
        shutil.copytree(quick_run / "whole" / "adapter", folder)
        # the timeout wide: on a loaded 2-core CI machine beside the other test process it took over 120 s
        done = toollab(
            "train-int4", "--adapter", str(folder), "--calibration", "4", "--apart", share_apart, timeout=600
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert (folder / MERGE_FILE).is_file() and MERGE_FILE in done.stdout
    loaded = LocalModel(adapter=str(adapter), dtype="int4").load()  # the groups rounding serves worst kept apart
    merged, apart = re.search(r"merged into (\d+) int4 layers \+ LoRA on (\d+) layers", loaded.weights).groups()
    assert int(merged) + int(apart) == 28 and int(merged) > int(apart) > 0, loaded.weights
    tokenizer, base = local_weights.load_for_training(None)
    reference = PeftModel.from_pretrained(base, str(adapter)).eval()
    texts = (  # every position of each: a quick adapter moves one position's logits no more than rounding does
        "What is the weather in Lima? Call a tool.",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n</tool_call>',
        "Find the area of a triangle with base 10 and height 5.",
    )
    sequences, change = [], []
    with torch.inference_mode():
        for text in texts:
            ids = tokenizer(text, return_tensors="pt")["input_ids"]
            with reference.disable_adapter():
                without = reference(input_ids=ids).logits[0]
            change.append(reference(input_ids=ids).logits[0] - without)
            sequences.append(ids[0].tolist())
    logits = {}
    for name, folder in (("merged", str(every)), ("base", None)):  # every layer merged: only the codes carry it
        loaded = LocalModel(adapter=folder, dtype="int4").load()
        assert loaded.lean is not None and "LoRA on" not in loaded.weights, loaded.weights
        rows = []
        for ids in sequences:
            cache = loaded.lean.new_cache()
            rows += [loaded.lean.forward([token], cache).float() for token in ids]  # token by token: every position
        logits[name] = torch.stack(rows)
    moved = (logits["merged"] - logits["base"]).flatten()
    # codes that dropped the adapter would not move the logits, or would move them as noise does (cosine near 0)
    cosine = torch.nn.functional.cosine_similarity(moved, torch.cat(change).flatten(), dim=0)
    # measured: 0.38 on 12-05's quick adapter, 0.17-0.19 on 12-06's (its training data changed; 8 calibration
    # conversations instead of 4: 0.18); codes that carry nothing: 0
    assert cosine > 0.1, float(cosine)
    assert toollab("train-int4", "--adapter", str(quick_run / "data")).returncode != 0  # not an adapter folder
