"""Continuous batching for the local backend: sequences that are decoding at the same time share each forward pass.

On a CPU a decode step reads every weight once, whatever the number of rows, so several sequences decoded
together cost little more than one (`benchmarks/serve.py`). Each sequence is a `DecodeRow`: its own prompt, its
own grammar state, its own steering, its own key-value cache taken from its model's `CachePool` (the free cache
sharing the longest prefix with its prompt, so an agent's next round reads only what is new; each `LocalModel`
keeps its own, so a new one starts cold and decodes as a fresh process would). `Batcher.decode` (async)
adds rows to the running batch: they join at the next step, after their prompt is read, and leave as soon as
they end, each answered then; every step runs as its own job on the torch thread, so other work on the model (a
call gate's scoring) runs between steps instead of waiting for the batch to drain. `Batcher.decode_now` runs
rows to the end at once, on the torch thread (the synchronous path). One row at a time is the same code.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from toollab.models import local_weights
from toollab.models.local_mentions import (
    array_items_left,
    ends_item,
    fills_pair,
    listed_next,
    pinned_next,
    salient_values,
    uncovered,
    writing_expression,
)
from toollab.models.local_steering import (
    OPERATOR_BIAS,
    PENALTY,
    Grounding,
    closed_call,
    digit_texts,
    digit_tokens,
    extra_call_cut,
    loop_token,
    non_arithmetic_tokens,
    operator_tokens,
    quote_tokens,
    repeat_token,
    runaway_number,
    same_again,
)

if TYPE_CHECKING:
    from toollab.models.local import Generation, LocalModel, TokenMatcher, TurnContext

MAX_ROWS = 16  # rows decoded together; more wait for a place
POOL_SIZE = 32  # key-value caches kept for prefix reuse


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass(eq=False)
class Slot:
    """A key-value cache and the token ids it holds."""

    cache: Any
    ids: list[int] = field(default_factory=list)


class Rows(Protocol):
    """A model's forward passes over slots: read a prompt into one, or one more token into each of several."""

    def new_cache(self) -> Any: ...

    def prefill(self, slot: Slot, ids: list[int], reuse: int) -> Any: ...

    def step(self, slots: Sequence[Slot], tokens: list[int]) -> Any: ...

    def length(self, slot: Slot) -> int: ...


class LeanRows:
    """The packed-weights path (`local_decode.LeanLlama`): a step is one batched forward pass."""

    def __init__(self, lean: Any):
        self.lean = lean

    def new_cache(self) -> Any:
        return self.lean.new_cache()

    def prefill(self, slot: Slot, ids: list[int], reuse: int) -> Any:
        slot.cache.crop(reuse)
        return self.lean.forward(ids[reuse:], slot.cache)

    def step(self, slots: Sequence[Slot], tokens: list[int]) -> Any:
        return self.lean.forward_rows(tokens, [s.cache for s in slots])

    def copy_prefix(self, slot: Slot, source: Slot, length: int) -> None:
        slot.cache.copy_prefix(source.cache, length)

    def length(self, slot: Slot) -> int:
        return int(slot.cache.length)


class HfRows:
    """transformers' own forward (float weights): one row at a time, each with its `DynamicCache`."""

    def __init__(self, model: Any):
        self.model = model

    def new_cache(self) -> Any:
        from transformers import DynamicCache

        return DynamicCache(config=self.model.config)

    def _forward(self, slot: Slot, ids: list[int]) -> Any:
        import torch

        return self.model(input_ids=torch.tensor([ids]), cache=slot.cache, use_cache=True).logits[0, -1]

    def prefill(self, slot: Slot, ids: list[int], reuse: int) -> Any:
        if reuse == 0:
            slot.cache = self.new_cache()
        else:
            slot.cache.crop(reuse - slot.cache.get_seq_length())  # transformers 5: minus the tokens to drop
        return self._forward(slot, ids[reuse:])

    def step(self, slots: Sequence[Slot], tokens: list[int]) -> Any:
        import torch

        return torch.stack([self._forward(s, [t]) for s, t in zip(slots, tokens, strict=True)])

    def length(self, slot: Slot) -> int:
        return int(slot.cache.get_seq_length())


class CachePool:
    """Caches kept between decodes, each with the ids it holds. `take(ids)` gives a cache and how much of `ids`
    it already holds: the free cache sharing the longest prefix with `ids`; or, when a cache in use shares a
    longer one (requests arriving together with the same system prompt and tools), a fresh cache with that
    prefix copied in, which costs a copy instead of reading the prompt again. At most `size` free caches are
    kept (the ones released longest ago go first)."""

    def __init__(self, rows: Rows, size: int = POOL_SIZE):
        self.rows, self.size = rows, size
        self.free: list[Slot] = []  # oldest first
        self.busy: list[Slot] = []

    def take(self, ids: list[int]) -> tuple[Slot, int]:
        def shared(slot: Slot) -> int:
            return min(common_prefix(slot.ids, ids), self.rows.length(slot))

        free = max(self.free, key=shared, default=None)
        busy = max(self.busy, key=shared, default=None)
        reuse = shared(free) if free is not None else 0
        copied = shared(busy) if busy is not None and hasattr(self.rows, "copy_prefix") else 0
        if free is not None and reuse >= copied:
            self.free.remove(free)
            slot = free
        else:
            slot = Slot(self.rows.new_cache())
            reuse = 0
            if copied > 0 and busy is not None:
                self.rows.copy_prefix(slot, busy, copied)  # type: ignore[attr-defined]
                reuse = copied
        slot.ids = list(ids)
        self.busy.append(slot)
        return slot, min(reuse, len(ids) - 1)  # at least one token is read, for the next logits

    def give(self, slot: Slot) -> None:
        self.busy.remove(slot)
        slot.ids = slot.ids[: self.rows.length(slot)]
        self.free.append(slot)
        del self.free[: max(0, len(self.free) - self.size)]

    def clear(self) -> None:
        """Forget what the caches hold (the next prompt is read whole)."""
        self.free.clear()


class DecodeRow:
    """One sequence being decoded: its steering, grammar, stop rules and result. `advance(logits)` picks the next
    token and says whether the sequence has ended."""

    def __init__(
        self,
        model: LocalModel,
        ids: list[int],
        limit: int,
        matcher: TokenMatcher | None,
        context: TurnContext,
        sampling: tuple[float, Any] | None,
    ):
        self.model, self.ids, self.limit, self.matcher, self.sampling = model, ids, limit, matcher, sampling
        loaded = model.load()
        self.tokenizer, self.eos_ids = loaded.tokenizer, loaded.eos_ids
        self.failed = self.tokenizer(context.failed_turn or "", add_special_tokens=False)["input_ids"]
        self.source = f"{context.request}\n{context.results}" if model.grounded_calls else None
        self.steer = None
        if model.grounding and matcher is not None and context.request and model.format.envelope is not None:
            listing = model.listed and not context.results
            listed = partial(listed_next, request=context.request) if listing else None
            item_end = partial(ends_item, request=context.request) if listing else None
            self.steer = Grounding(
                self.tokenizer,
                context.request,
                context.results,
                model.grounding,
                model.format,
                context.finish,
                listed,
                context.regions,
                item_end,
                context.lists,
                partial(pinned_next, request=context.request) if listing else None,
                context.others,
                partial(array_items_left, request=context.request) if listing else None,
                context.free,
            )
        # coverage: the request's values, while a first calling turn may not end with some of them in no call;
        # listed: the request, while it may not end with an item of a list its calls took from in no call
        self.values: list[str] = []
        self.listed: str | None = None
        if matcher is not None and context.request and not context.results:
            self.values = salient_values(context.request) if model.coverage else []
            self.listed = context.request if model.listed else None
        self.finish = context.finish
        self.expression = context.expression if matcher is not None else None
        # an expression tool takes digits, operators and brackets: a number the request says in words is written
        # in digits there (grounding copied "twelve * 3", which the tool refuses)
        self.arithmetic = context.arithmetic if matcher is not None and model.grounding else None
        self.generated: list[int] = []
        self.text = ""
        self.stop_reason = "length"
        self.reuse = 0
        self.slot: Slot | None = None
        self.started = time.perf_counter()
        self.first_token = 0.0
        self.future: concurrent.futures.Future[Generation] = concurrent.futures.Future()

    def _structural(self, tokens: Sequence[int]) -> bool:
        return any(c in self.tokenizer.decode(list(tokens)) for c in '{}"<>[]')

    def advance(self, logits: Any) -> bool:
        model = self.model
        if self.steer is not None:
            self.steer.bias(logits, self.generated, self.text)
        copying = self.steer is not None and self.steer.copying  # a list the request writes: no loop guard
        if model.loop_guard and not copying:
            again = same_again(self.generated, self.failed)
            for looping in (loop_token(self.generated), repeat_token(self.generated, self._structural), again):
                if looping is not None:
                    logits[looping] -= PENALTY
            if runaway_number(self.text):
                logits[list(digit_tokens(self.tokenizer))] -= PENALTY
        can_end = (self.values or self.listed) and self.matcher is not None and self.matcher.can_end()
        if can_end and uncovered(self.text, model.format, self.finish, self.values, self.listed):
            logits[list(self.eos_ids)] -= PENALTY
        if self.expression is None and self.arithmetic and writing_expression(self.text, self.arithmetic):
            logits[list(non_arithmetic_tokens(self.tokenizer))] -= PENALTY
        if self.expression is not None and (left := self.expression.left(self.text)) is not None:
            logits[list(non_arithmetic_tokens(self.tokenizer))] -= PENALTY  # numbers and operators only
            if left:  # the expression may not close yet, nor take a number from elsewhere
                logits[list(quote_tokens(self.tokenizer))] -= PENALTY
                digits = digit_texts(self.tokenizer).items()
                logits[[i for i, t in digits if not self.expression.fits(self.text, t)]] -= PENALTY
            else:  # it holds every number it should: it closes
                logits[list(quote_tokens(self.tokenizer))] += PENALTY
            for op, tokens in operator_tokens(self.tokenizer).items() if self.expression.operators else ():
                if op in self.expression.operators:  # the request's operations, grounded like its values
                    logits[list(tokens)] += OPERATOR_BIAS
                else:  # and no other
                    logits[list(tokens)] -= PENALTY
        if self.matcher is not None:
            self.matcher.mask(logits)
        token = model._pick(logits, *(self.sampling or ()))
        if token in self.eos_ids:
            self.stop_reason = "eos"
            return True
        self.generated.append(token)
        self.text = self.tokenizer.decode(self.generated, skip_special_tokens=False)
        if self.matcher is not None:
            self.matcher.accept(token)
            if self.matcher.finished():
                self.stop_reason = "grammar"
                return True
        from toollab.models.local import stop_at

        cut = stop_at(self.text, model.stop, model.result_marker)
        if cut is not None:
            self.text, self.stop_reason = cut
            return True
        if self.steer is not None:
            self.steer.update(self.text)
        if (model.dedupe_calls or model.grounded_calls) and self.matcher is not None:
            closed = closed_call(self.text, model.format)  # judged once its JSON closes: the budget may end first
            pairs = fills_pair if model.listed else None
            before = extra_call_cut(closed, model.format, model.dedupe_calls, self.source, pairs) if closed else None
            if before is not None:
                self.text, self.stop_reason = before, "extra_call"
                return True
        return len(self.generated) >= self.limit

    def generation(self) -> Generation:
        from toollab.models.local import Generation

        truncated = self.matcher is not None and self.stop_reason == "length" and not self.matcher.can_end()
        decode = time.perf_counter() - self.started - self.first_token
        new_tokens = len(self.generated) + (self.stop_reason == "eos")
        return Generation(
            self.text,
            len(self.ids),
            self.reuse,
            new_tokens,
            self.stop_reason,
            self.first_token,
            decode,
            truncated,
            self.started + self.first_token,
        )


class Batcher:
    """Decodes rows of one loaded model together (see the module's docstring)."""

    def __init__(self, rows: Rows, lock: threading.Lock, max_rows: int = MAX_ROWS):
        self.rows, self.lock, self.max_rows = rows, lock, max_rows
        self.pending: list[DecodeRow] = []
        self.active: list[DecodeRow] = []
        self._guard = threading.Lock()  # pending and the running flag, shared with the submitting threads
        self._running = False
        self.steps = 0  # batched steps run, and rows they carried (their mean is the batch size)
        self.row_steps = 0

    # ---- the torch thread ------------------------------------------------------------------------------

    def _start(self, row: DecodeRow) -> bool:
        """Read the row's prompt into a cache; pick its first token. True when it has already ended."""
        row.started = time.perf_counter()
        row.slot, row.reuse = row.model.pool.take(row.ids)
        logits = self.rows.prefill(row.slot, row.ids, row.reuse)
        row.first_token = time.perf_counter() - row.started
        return row.advance(logits)

    @staticmethod
    def _release(row: DecodeRow) -> None:
        """The row's cache back to its model's pool (holding its prompt and what it generated)."""
        if row.slot is not None:
            row.slot.ids = row.ids + row.generated  # give() cuts it to what the cache holds
            row.model.pool.give(row.slot)
            row.slot = None

    def _end(self, row: DecodeRow) -> None:
        self._release(row)
        if not row.future.done():
            row.future.set_result(row.generation())

    def _admit(self, rows: Sequence[DecodeRow]) -> list[DecodeRow]:
        """Start each row (reading its prompt); the ones still decoding after their first token."""
        going = []
        for row in rows:
            if self._start(row):
                self._end(row)
            else:
                going.append(row)
        return going

    def _step(self, active: list[DecodeRow]) -> list[DecodeRow]:
        """One token for every active row; the rows still decoding."""
        assert all(r.slot is not None for r in active)
        logits = self.rows.step([r.slot for r in active], [r.generated[-1] for r in active])  # type: ignore[misc]
        self.steps += 1
        self.row_steps += len(active)
        going = []
        for row, row_logits in zip(active, logits, strict=True):
            if row.advance(row_logits):
                self._end(row)
            else:
                going.append(row)
        return going

    def decode_now(self, rows: Sequence[DecodeRow]) -> list[Generation]:
        """Run `rows` to the end together, here (call on the torch thread)."""
        import torch

        with self.lock, torch.inference_mode():
            try:
                active = self._admit(rows)
                while active:
                    active = self._step(active)
            finally:
                for row in rows:  # after a failure: the caches go back all the same
                    self._release(row)
        return [row.future.result() for row in rows]

    def _tick(self) -> None:
        """One step of the running batch: admit waiting rows (reading their prompts), then one token each."""
        import torch

        try:
            with self.lock, torch.inference_mode():
                with self._guard:
                    room = max(0, self.max_rows - len(self.active))
                    admitted, self.pending = self.pending[:room], self.pending[room:]
                self.active += self._admit([r for r in admitted if not r.future.cancelled()])
                for row in [r for r in self.active if r.future.cancelled()]:  # their callers gave up
                    self.active.remove(row)
                    self._end(row)
                if self.active:
                    self.active = self._step(self.active)
        except BaseException as exc:  # every waiting caller gets the error
            self._fail(exc)
        finally:
            with self._guard:
                self._running = bool(self.active or self.pending)
                if self._running:
                    local_weights.submit_torch(self._tick)

    def _fail(self, exc: BaseException) -> None:
        with self._guard:
            rows, self.pending = [*self.active, *self.pending], []
        self.active = []
        for row in rows:
            self._release(row)
            if not row.future.done():
                row.future.set_exception(exc)

    # ---- any thread ------------------------------------------------------------------------------------

    async def decode(self, rows: Sequence[DecodeRow]) -> list[Generation]:
        """Add `rows` to the running batch; their generations, each as soon as it ends."""
        with self._guard:
            self.pending.extend(rows)
            if not self._running:
                self._running = True
                local_weights.submit_torch(self._tick)
        return list(await asyncio.gather(*(asyncio.wrap_future(r.future) for r in rows)))


def batcher_for(model: Any, lean: Any, lock: threading.Lock) -> Batcher:
    rows: Rows = LeanRows(lean) if lean is not None else HfRows(model)
    return Batcher(rows, lock)
