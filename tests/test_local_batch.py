"""Continuous batching on the embedded model: rows decoded together give what each gives alone, and share the
forward passes; a row whose caller gave up leaves the batch."""

from __future__ import annotations

import asyncio
import copy

import pytest
import torch

from toollab.constrain import ToolGrammar
from toollab.harness.messages import UserMessage
from toollab.harness.request import RequestParams
from toollab.models.local import LocalModel
from toollab.tools import calculator

pytestmark = pytest.mark.slow

QUESTIONS = ["What is 17 * 23?", "What is 2 + 2?", "Compute 1.5 * 4.", "What is (5 + 3) * 2?"]


@pytest.fixture(scope="module")
def model() -> LocalModel:
    model = LocalModel(max_new_tokens=40, constraint=ToolGrammar())
    model.load()
    return model


def test_a_batched_step_gives_each_row_the_logits_it_gets_alone(model):
    lean = model.load().lean
    if lean is None:  # a CPU without bfloat16 loads float32 weights, which decode without the lean int4 pass
        pytest.skip("the model loaded without the lean int4 pass on this CPU")
    tokenizer = model.load().tokenizer
    caches, tokens = [], []
    for text in ("The capital of France is", "Write a poem about the sea and", "1, 2, 3,"):
        cache = lean.new_cache()
        tokens.append(int(lean.forward(tokenizer(text, add_special_tokens=False)["input_ids"], cache).argmax()))
        caches.append(cache)
    lengths = [c.length for c in caches]  # three different lengths
    alone = [lean.forward([t], copy.deepcopy(c)) for t, c in zip(tokens, caches, strict=True)]
    together = lean.forward_rows(tokens, caches)
    for one, row in zip(alone, together, strict=True):
        torch.testing.assert_close(row, one, atol=1e-3, rtol=1e-3)
    assert [c.length for c in caches] == [n + 1 for n in lengths] and len(set(lengths)) == 3


def test_requests_that_arrive_together_decode_together_and_answer_as_alone(model):
    params = RequestParams(tools=[calculator.spec], tool_choice="required", parallel=False)

    async def ask(questions):
        return await asyncio.gather(*(model.request([UserMessage(content=q)], params) for q in questions))

    model.forget_cache()
    alone = [asyncio.run(ask([q]))[0] for q in QUESTIONS]
    batcher = model.load().batcher
    steps, rows = batcher.steps, batcher.row_steps
    model.forget_cache()
    together = asyncio.run(ask(QUESTIONS))
    assert [r.message.tool_calls[0].arguments for r in together] == [r.message.tool_calls[0].arguments for r in alone]
    assert [r.usage.output_tokens for r in together] == [r.usage.output_tokens for r in alone]
    assert (batcher.row_steps - rows) / (batcher.steps - steps) > 2  # rows shared the steps


def test_a_request_cancelled_mid_decode_leaves_the_batch_and_the_others_finish(model):
    params = RequestParams(tools=[calculator.spec], tool_choice="required", parallel=False)
    batcher = model.load().batcher

    async def main():
        tasks = [asyncio.create_task(model.request([UserMessage(content=q)], params)) for q in QUESTIONS]
        await asyncio.sleep(0.3)
        tasks[0].cancel()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        for _ in range(100):  # the batch drops the cancelled row at its next step
            if not batcher.active and not batcher.pending:
                break
            await asyncio.sleep(0.05)
        return done

    done = asyncio.run(main())
    assert isinstance(done[0], asyncio.CancelledError)
    assert all(r.message.tool_calls for r in done[1:])
    assert not batcher.active and not batcher.pending


def test_a_turns_decode_seconds_count_rows_decoded_together_once():
    from toollab.models.local import Generation, decode_wall_seconds

    def row(started: float, seconds: float) -> Generation:
        return Generation("", 10, 0, 5, "eos", 0.1, seconds, decode_started=started)

    assert decode_wall_seconds([row(100.0, 2.0), row(100.5, 2.0)]) == pytest.approx(2.5)  # overlapping rows
    assert decode_wall_seconds([row(100.0, 1.0), row(103.0, 1.0)]) == pytest.approx(4.0)  # the span between them too
    assert decode_wall_seconds([]) == 0.0
