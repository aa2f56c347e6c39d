"""Toolformer on a tiny configuration: the ledger world, call syntax, batched decoding, the calculator live
through the harness, the filter, and the whole lab experiment."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest

from toollab.harness.dispatch import Dispatcher
from toollab.lab.experiments import Settings
from toollab.lab.experiments.toolformer import QUICK, run, tampered
from toollab.toolformer import filtering, ledgers, tiny
from toollab.toolformer.calling import complete
from toollab.toolformer.lm import LM, loss_weights
from toollab.toolformer.syntax import LEDGER, TEXT
from toollab.toolformer.text import english, states_result
from toollab.tools.arithmetic import calculator, evaluate


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """Trained tiny models kept in this test's own folder (never read from, or left in, the user's cache)."""
    monkeypatch.setenv("TOOLLAB_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def formatted() -> tiny.Trained:
    """A tiny model that has seen only annotated ledgers: it writes calls in the right shape (not the right
    numbers), which is what the plumbing below needs."""
    texts = [ledgers.render(led, annotated=True) for led in ledgers.draw_many(400, 5)]
    config = tiny.TinyConfig(n_embd=48, n_layer=2, n_head=2, block=64, batch=16, steps=150, learning_rate=5e-3)
    import os

    os.environ["TOOLLAB_CACHE"] = "off"
    try:
        return tiny.pretrain(texts, config, name="formatted", recipe={"test": 1})
    finally:
        del os.environ["TOOLLAB_CACHE"]


def test_ledgers_are_consistent_and_reproducible():
    drawn = ledgers.draw_many(300, 1)
    assert drawn == ledgers.draw_many(300, 1) and drawn != ledgers.draw_many(300, 2)
    for led in drawn:
        assert all(c >= 0 for c in led.counts())
        assert evaluate(led.expression()) == led.answer
        annotated = ledgers.render(led, "restating", annotated=True)
        assert LEDGER.strip_calls(annotated) == ledgers.render(led, "restating")
        assert ledgers.prompt(led).endswith(f"so {led.owner} has")
        assert ledgers.render(led).startswith(ledgers.prompt(led))
    led = ledgers.Ledger("Fay", "plums", 18, (ledgers.Step(-1, 4, "eats"), ledgers.Step(1, 8, "gives", "Eve")))
    assert (
        ledgers.render(led) == "Fay has 1 8 plums . Fay eats 4 plums . Eve gives Fay 8 plums . so Fay has 2 2 plums ."
    )
    assert "[ 1 8 - 4 + 8 = 2 2 ] 2 2 plums" in ledgers.render(led, annotated=True)
    big = ledgers.draw_many(50, 0, steps=(1,), big=True)
    assert all(50 <= led.start <= 99 for led in big)
    mix = ledgers.corpus(200, 0, ledgers.NO_ANNOTATIONS)
    assert not any(ledgers.OPEN in t for t in mix) and any(ledgers.OPEN in t for t in ledgers.corpus(200, 0))


def test_call_syntax_reads_and_writes_calls():
    assert LEDGER.argument(" 1 8 - 4 + 8 ") == "18 - 4 + 8"
    assert LEDGER.result("22") == " 2 2" and LEDGER.result("-3") is None and LEDGER.result("2.5") is None
    assert LEDGER.call(" 1 8 - 4", " 1 4") == " [ 1 8 - 4 = 1 4 ]"
    assert LEDGER.written("so Fay has [ 1 8 - 4 =") == " 1 8 - 4 "
    assert LEDGER.written("so Fay has [ 1 8 - 4 = 1 4 ]") is None and LEDGER.written("so Fay has 1 4") is None
    assert TEXT.call("18 - 4", " 14") == " [Calculator(18 - 4) → 14]"
    assert TEXT.written("so she had [Calculator(18 - 4) →") == "18 - 4"
    assert TEXT.strip_calls("so [Calculator(18 - 4) → 14] 14 left") == "so 14 left"
    assert states_result("14 left.", "14") and not states_result("15 left.", "14")


def test_loss_weights_decay_and_sum_to_one():
    w = loss_weights(10)
    assert len(w) == 5 and abs(sum(w) - 1) < 1e-9 and w == sorted(w, reverse=True)
    assert loss_weights(2) == [pytest.approx(1 / 1.8), pytest.approx(0.8 / 1.8)]


def test_batched_continuation_equals_one_row_at_a_time(formatted):
    lm = LM(formatted.model, formatted.tokenizer, batch=8)
    rows = [[lm.tokenizer.bos_token_id, *lm.encode(ledgers.prompt(led))] for led in ledgers.draw_many(6, 3)]
    together = lm.continue_rows(rows, stops=["."], max_new_tokens=12)
    alone = [lm.continue_rows([r], stops=["."], max_new_tokens=12)[0] for r in rows]
    assert together == alone
    # and losses do not depend on what else is in the batch
    starts = [len(r) - 3 for r in rows]
    alone_losses = [lm.losses([r], [s])[0] for r, s in zip(rows, starts, strict=True)]
    assert lm.losses(rows, starts) == pytest.approx(alone_losses, abs=1e-4)


def test_the_calculator_runs_live_through_the_harness(formatted):
    lm = LM(formatted.model, formatted.tokenizer)
    results = []
    dispatcher = Dispatcher([calculator], on_result=lambda r, _seconds: results.append(r))
    prompts = [[lm.tokenizer.bos_token_id, *lm.encode(ledgers.prompt(led))] for led in ledgers.draw_many(20, 4)]
    made = asyncio.run(
        complete(lm, prompts, LEDGER, dispatcher, end=".", max_new_tokens=30, opened=lm.encode(ledgers.OPEN))
    )
    calls = [c for m in made for c in m.calls]
    assert calls and len(results) == len(calls)  # every call dispatched, each answered once
    for m in made:
        for c in m.calls:
            assert not c.is_error or c.inserted == LEDGER.close
            if not c.is_error:  # the tool's own result, written in the world's digits, then the closing
                assert c.content == calculator.function(expression=c.argument)
                assert c.inserted == f"{LEDGER.result(c.content) or ''}{LEDGER.close}"
                assert f"={c.inserted}" in m.text
    # a tampered calculator's results are what gets written
    crooked = asyncio.run(
        complete(lm, prompts, LEDGER, Dispatcher([tampered()]), end=".", opened=lm.encode(ledgers.OPEN))
    )
    for m in crooked:
        for c in m.calls:
            if not c.is_error:
                assert int(c.content) == int(evaluate(c.argument)) + 10


def test_the_filter_scores_inserts_and_keeps(formatted):
    lm = LM(formatted.model, formatted.tokenizer)
    pool = ledgers.draw_many(12, 6)
    texts = [[lm.tokenizer.bos_token_id, *lm.encode(ledgers.render(led))] for led in pool]
    config = filtering.FilterConfig(k=2, m=2, threshold=0.0, seed=1)
    candidates = asyncio.run(filtering.run_filter(lm, texts, LEDGER, Dispatcher([calculator]), config))
    assert candidates and all(c.position >= 1 for c in candidates)
    assert len({(c.text, c.position) for c in candidates}) <= 2 * len(texts)
    scored = [c for c in candidates if c.result is not None]
    assert scored and all(c.l_plus < float("inf") and c.l_none < float("inf") for c in scored)
    # L- with no call is the text's own loss at that position, whatever the call
    for c in scored:
        assert c.l_none == pytest.approx(lm.losses([texts[c.text]], [c.position])[0], abs=1e-4)
    everything = filtering.kept(candidates, -1e9)
    assert len(everything) == len({(c.text, c.position) for c in scored})
    strict = filtering.kept(candidates, 1.0)
    assert all(c.gain >= 1.0 for c in strict) and len(strict) <= len(everything)
    written = filtering.annotate(lm, texts, everything, LEDGER)
    assert [LEDGER.strip_calls(w) for w in written] == [ledgers.render(led) for led in pool]
    assert sum(w.count(ledgers.OPEN) for w in written) == len(everything)


def test_english_stories_state_their_counts():
    for led in ledgers.draw_many(20, 0):
        story = english(led)
        assert story.startswith(f"{led.owner} had {led.start} {led.item}.")
        assert story.endswith(f"So {led.owner} had {led.answer} {led.item}.")
        assert [int(w) for w in story.replace(".", " ").split() if w.isdigit()] == [
            led.start,
            *(s.amount for s in led.steps),
            led.answer,
        ]


def test_the_lab_experiment_runs_every_part(tmp_path, private_cache):
    report = asyncio.run(run(Settings(model=None, n=4, seed=0, out=tmp_path), QUICK))  # type: ignore[arg-type]
    titles = [t.title for t in report.tables]
    assert [str(t)[:2] for t in titles] == ["1.", "2a", "2b", "3.", "4a", "4b", "5.", "6."]
    for key in ("base_direct", "filter_kept", "prerequisite_calls_bare", "tuned_calculator", "tampered_copied"):
        assert key in report.headline
    assert (tmp_path / "summary.json").exists() and (tmp_path / "toolformer-tau.png").exists()
    lines = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
    assert len(lines) == 6 * 4 * 4  # 6 conditions, 3 x n normal and n big ledgers (n = 4)
    assert all(line["correct"] == (line["answer"] == line["truth"]) for line in lines)
    # a second run reads every model from the cache and gives the same figures
    again = asyncio.run(run(Settings(model=None, n=4, seed=0, out=None), replace(QUICK)))  # type: ignore[arg-type]
    assert again.headline == report.headline


@pytest.mark.slow
def test_smollm2_proposes_calls_and_the_filter_reads_them():
    """The same sampling and filtering on the embedded SmolLM2 (base weights), over one English story."""
    from toollab.models import local_weights
    from toollab.toolformer.text import prompted

    loaded = local_weights.load()
    lm = LM(loaded.model, loaded.tokenizer, batch=8)
    story = english(ledgers.Ledger("Fay", "plums", 18, (ledgers.Step(-1, 4, "eats"),)))
    context, ids = prompted(lm, story)
    config = filtering.FilterConfig(k=2, m=2, threshold=0.0, seed=0, max_call_tokens=12)
    candidates = asyncio.run(filtering.run_filter(lm, [ids], TEXT, Dispatcher([calculator]), config, context))
    assert len({c.position for c in candidates}) <= 2 and all(0 < c.position < len(ids) for c in candidates)
    for c in candidates:
        if not c.is_error:
            assert c.content == calculator.function(expression=c.argument) and c.l_plus < float("inf")
    written = filtering.annotate(lm, [ids], filtering.kept(candidates, -1e9), TEXT)[0]
    assert TEXT.strip_calls(written).strip() == story


@pytest.mark.slow
def test_annotate_command_writes_one_record_per_text(tmp_path):
    """The command in this process (CliRunner), so that it reuses the model the other slow tests loaded."""
    from typer.testing import CliRunner

    from toollab.interfaces.cli import app

    texts = tmp_path / "texts.txt"
    texts.write_text("Ann had 12 pens. She lost 5 of them. So Ann had 7 pens.\n\nTom read 3 books.\n")
    out = tmp_path / "annotated.jsonl"
    run = CliRunner().invoke(app, ["toolformer", "annotate", str(texts), "--out", str(out), "--k", "1", "--m", "1"])
    assert run.exit_code == 0, run.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["text"] for r in records] == [
        "Ann had 12 pens. She lost 5 of them. So Ann had 7 pens.",
        "Tom read 3 books.",
    ]
    for r in records:
        assert r["candidates"] <= 1 and len(r["calls"]) <= r["candidates"] == len(r["tried"])
        assert all(t["before"].strip() and t["before"].strip() in r["text"] for t in r["tried"])
        assert TEXT.strip_calls(r["annotated"]) == r["text"]
    bad = CliRunner().invoke(app, ["toolformer", "annotate", str(tmp_path / "missing.txt"), "--out", str(out)])
    assert bad.exit_code != 0 and "cannot read" in bad.output
    remote = ["toolformer", "annotate", str(texts), "--out", str(out), "--model", "openai:gpt-x"]
    refused = CliRunner().invoke(app, remote)
    assert refused.exit_code != 0 and "needs a local model" in refused.output


@pytest.mark.slow
def test_cleaning_scores_what_a_result_does_for_the_answer():
    """On the embedded model: a result the answer copies makes the answer far easier to predict; a conversation
    with no result before its answer is not judged (and is kept)."""
    from toollab.formats import get_format
    from toollab.harness.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
    from toollab.models import local_weights
    from toollab.toolformer.clean import BLANK, blanked, judge
    from toollab.train.data import Example

    loaded = local_weights.load()
    lm = LM(loaded.model, loaded.tokenizer, batch=2)
    call = ToolCall(id="c1", name="calculator", arguments={"expression": "17 * 23"})
    used = Example(
        (calculator.spec,),
        (
            UserMessage(content="What is 17 * 23?"),
            AssistantMessage(content="", tool_calls=[call]),
            ToolResultMessage(call_id="c1", name="calculator", content="391"),
            AssistantMessage(content="The answer is 391."),
        ),
        "test/used",
    )
    words = Example((calculator.spec,), (UserMessage(content="Hi"), AssistantMessage(content="Hello!")), "test/words")
    assert [m.content for m in blanked(used).messages if isinstance(m, ToolResultMessage)] == [BLANK]
    judged = judge(lm, [used, words], get_format("hermes"))
    assert judged[0].gain is not None and judged[0].gain > 0.3, judged[0].gain
    assert judged[1].gain is None and judged[1].keep(5.0)
    assert judged[0].keep(judged[0].gain) and not judged[0].keep(judged[0].gain + 0.01)


def test_an_arrow_outside_a_call_is_plain_text(formatted):
    """With ' has' as the arrow, every ledger's first sentence holds one outside any call: decoding goes on past
    it to the end of the sentence, and no call is made."""
    from toollab.toolformer.syntax import CallSyntax

    lm = LM(formatted.model, formatted.tokenizer)
    syntax = CallSyntax(open=" [", arrow=" has", close=" ]", spaced_digits=True)
    prompts = [[lm.tokenizer.bos_token_id, *lm.encode(name)] for name in ("Fay", "Eve", "Bob")]
    made = asyncio.run(complete(lm, prompts, syntax, Dispatcher([calculator]), end=".", max_new_tokens=12))
    for m in made:
        assert m.text.split()[0] == "has" and m.text.rstrip().endswith(".") and not m.calls, m.text
