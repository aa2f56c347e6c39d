"""A tokens-per-minute budget: how many model requests a parallel step runs at once.

Providers limit tokens per minute; running every branch at once past that limit buys 429s, not speed. Before a
branch starts it reserves its estimated tokens; it starts when the tokens spent in the last `window` seconds plus
those reserved by branches in flight leave room for it (a branch larger than the whole budget runs alone); when
it ends, its real usage replaces the estimate. So the budget, not a fixed number, sets the concurrency.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable


class TokensPerMinute:
    def __init__(self, limit: int, *, window: float = 60.0, clock: Callable[[], float] = time.monotonic):
        if limit < 1:
            raise ValueError(f"a tokens-per-minute budget must be at least 1, got {limit}")
        self.limit = limit
        self.window = window
        self.clock = clock
        self._spent: deque[tuple[float, int]] = deque()  # (when, tokens) of finished requests
        self._reserved = 0
        self._in_flight = 0
        self._changed = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.most_in_flight = 0  # the highest concurrency the budget allowed (reported by benchmarks)

    def _spent_in_window(self) -> int:
        now = self.clock()
        while self._spent and self._spent[0][0] <= now - self.window:
            self._spent.popleft()
        return sum(tokens for _, tokens in self._spent)

    def _fits(self, tokens: int) -> bool:
        spent = self._spent_in_window()
        if self._in_flight == 0 and not spent:
            return True  # alone, anything runs
        return spent + self._reserved + tokens <= self.limit

    async def acquire(self, tokens: int) -> None:
        """Wait until `tokens` fit the budget, then reserve them."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # an Event waits on one loop; a budget outlives a run (`run_sync` twice)
            self._loop, self._changed = loop, asyncio.Event()
        while not self._fits(tokens):
            self._changed.clear()
            expiry = self._spent[0][0] + self.window - self.clock() if self._spent else None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout=None if expiry is None else max(expiry, 0.001))
        self._reserved += tokens
        self._in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self._in_flight)

    def release(self, reserved: int, used: int) -> None:
        """A request that reserved `reserved` tokens ended having used `used`."""
        self._reserved -= reserved
        self._in_flight -= 1
        if used:
            self._spent.append((self.clock(), used))
        self._changed.set()
