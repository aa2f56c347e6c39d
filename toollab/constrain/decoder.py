"""Grammar-constrained decoding for the local backend: compiled grammars cached per tool set and tokenizer, and
a per-decode matcher that masks the logits before each token is picked.

Applying a full bitmask to the logits on CPU is the known hot spot (about 0.2 ms a token against a 22 us mask
fill). In greedy decoding most steps pick a token the grammar allows anyway, so the matcher first checks the
model's own top token against the mask and applies the mask only when that token is not allowed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toollab.constrain.grammars import structural_tag
from toollab.formats import Format
from toollab.harness.request import RequestParams


@dataclass
class GrammarStats:
    """What constraining one decode cost."""

    compile_seconds: float = 0.0
    cache_hit: bool = False
    tokenizer_seconds: float = 0.0  # building xgrammar's view of the tokenizer (first use of a tokenizer only)
    mask_seconds: list[float] = field(default_factory=list)  # fill plus apply, per token
    full_masks: int = 0  # steps where the model's top token was not allowed and the whole mask was applied

    def to_dict(self) -> dict[str, Any]:
        return {
            "compile_seconds": self.compile_seconds,
            "cache_hit": self.cache_hit,
            "tokenizer_seconds": self.tokenizer_seconds,
            "mask_seconds": self.mask_seconds,
            "full_masks": self.full_masks,
        }


class GrammarMatcher:
    """One decode's grammar state: `mask` before picking, `accept` after. Used on the torch thread only."""

    def __init__(self, compiled: Any, vocab_size: int, stop_ids: Sequence[int], stats: GrammarStats, greedy: bool):
        import xgrammar as xgr

        self._xgr = xgr
        self._matcher = xgr.GrammarMatcher(compiled)
        self._bitmask = xgr.allocate_token_bitmask(1, vocab_size)
        self._words = self._bitmask[0]
        self._filled = False  # the bitmask already holds the next step's mask
        # the bitmask with every stop token's bit cleared: what is left is what could still be written
        self._not_stop = self._words.clone().fill_(-1)
        for token in stop_ids:
            self._not_stop[token >> 5] &= ~(1 << (token & 31))
        self.stats = stats
        self.greedy = greedy

    def _fill(self) -> None:
        if not self._filled:
            self._matcher.fill_next_token_bitmask(self._bitmask)
            self._filled = True

    def mask(self, logits: Any) -> None:
        """Set the logits of tokens the grammar forbids to -inf (in place; 1-D logits)."""
        started = time.perf_counter()
        self._fill()
        self._filled = False
        if self.greedy:
            top = int(logits.argmax())
            if (int(self._words[top >> 5]) >> (top & 31)) & 1:
                self.stats.mask_seconds.append(time.perf_counter() - started)
                return  # the greedy pick is allowed: the rest of the mask cannot change it
        self.stats.full_masks += 1
        self._xgr.apply_token_bitmask_inplace(logits.view(1, -1), self._bitmask)
        self.stats.mask_seconds.append(time.perf_counter() - started)

    def accept(self, token: int) -> None:
        if not self._matcher.accept_token(token):
            raise RuntimeError(f"the grammar refused token {token}, which its own mask allowed")

    def finished(self) -> bool:
        """The grammar has ended: only a stop token may follow, so the turn ends here (without spending a
        forward pass on the stop token)."""
        if self._matcher.is_terminated():
            return True
        if not self._matcher.is_completed():
            return False
        self._fill()
        return not bool((self._words & self._not_stop).any())

    def can_end(self) -> bool:
        """The text so far is a complete sentence of the grammar (so stopping here loses nothing)."""
        return bool(self._matcher.is_completed())


class _Compiled:
    """Compiled grammars for one tokenizer (xgrammar's TokenizerInfo takes about 0.2 s to build: once)."""

    def __init__(self, tokenizer: Any, vocab_size: int, stop_ids: Sequence[int]):
        import xgrammar as xgr

        self.info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size, stop_token_ids=list(stop_ids))
        self.compiler = xgr.GrammarCompiler(self.info, max_threads=1, cache_enabled=False)
        self.tokenizer = tokenizer  # held, so that its id() (the cache key) is never reused
        self.grammars: dict[str, Any] = {}
        self.lock = threading.Lock()

    def get(self, tag: dict[str, Any], stats: GrammarStats) -> Any:
        """The compiled grammar of `tag`; `stats.compile_seconds` is what getting it cost (a lookup when cached)."""
        started = time.perf_counter()
        key = json.dumps(tag)  # not sort_keys: that would put every schema's properties in alphabetical order
        with self.lock:
            compiled = self.grammars.get(key)
            stats.cache_hit = compiled is not None
            if compiled is None:
                compiled = self.grammars[key] = self.compiler.compile_structural_tag(key)
        stats.compile_seconds = time.perf_counter() - started
        return compiled


class ToolGrammar:
    """Constrains a local model's turns to well-formed, schema-valid calls of the offered tools.

    Give it to `LocalModel(constraint=...)`. Each turn's grammar follows that request's `RequestParams` (tool
    choice, one call or several) and the model's wire format. Grammars are compiled once per tool set, format,
    choice and tokenizer.
    """

    def __init__(self) -> None:
        self._by_tokenizer: dict[int, _Compiled] = {}
        self._lock = threading.Lock()

    def _compiled(self, tokenizer: Any, vocab_size: int, stop_ids: Sequence[int], stats: GrammarStats) -> _Compiled:
        with self._lock:
            entry = self._by_tokenizer.get(id(tokenizer))
            if entry is None:
                started = time.perf_counter()
                entry = self._by_tokenizer[id(tokenizer)] = _Compiled(tokenizer, vocab_size, stop_ids)
                stats.tokenizer_seconds = time.perf_counter() - started
            return entry

    def start(
        self,
        params: RequestParams,
        format: Format,
        tokenizer: Any,
        vocab_size: int,
        stop_ids: Sequence[int],
        greedy: bool,
    ) -> GrammarMatcher:
        """A fresh matcher for one decode of a turn asked for with `params`, in `format`."""
        stats = GrammarStats()
        tag = structural_tag(format, params)
        compiled = self._compiled(tokenizer, vocab_size, stop_ids, stats).get(tag, stats)
        return GrammarMatcher(compiled, vocab_size, stop_ids, stats, greedy)
