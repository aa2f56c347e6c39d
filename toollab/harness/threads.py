"""Worker threads for sync tools.

Why not `loop.run_in_executor` with a ThreadPoolExecutor: its hand-off (a concurrent Future chained to an asyncio
one) measured 120 us per call here against 65 us for this queue (benchmarks/overhead.py shows the effect per
step), and its threads are joined at interpreter exit, so a sync tool that timed out and never returns would
hang the process on exit. These workers are daemon threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any

MAX_THREADS = 64  # sync tools often block on I/O; asyncio's default pool has only cores + 4 threads

_Job = tuple[asyncio.AbstractEventLoop, asyncio.Future[Any], contextvars.Context, Callable[[], Any]]


def _deliver(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.cancelled():  # the call timed out or was cancelled meanwhile
        return
    if error is None:
        future.set_result(value)
    else:
        future.set_exception(error)


class ToolThreads:
    """A pool of daemon threads, grown on demand up to `max_threads`, that runs sync functions for a loop."""

    def __init__(self, max_threads: int = MAX_THREADS):
        self.max_threads = max_threads
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0

    def run(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run `fn` in a worker thread (with the caller's context variables); await the returned future."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._lock:
            if self._idle == 0 and self._threads < self.max_threads:
                self._threads += 1
                threading.Thread(target=self._work, name=f"toollab-tool-{self._threads}", daemon=True).start()
            elif self._idle:
                self._idle -= 1
        self._jobs.put((loop, future, contextvars.copy_context(), fn))
        return future

    def _work(self) -> None:
        while True:
            loop, future, context, fn = self._jobs.get()
            value, error = None, None
            try:
                value = context.run(fn)
            except BaseException as exc:  # delivered to the awaiting call, which turns it into an error result
                error = exc
            if isinstance(error, StopIteration):  # asyncio futures refuse StopIteration; it would hang the call
                error = RuntimeError(f"the tool raised StopIteration({error})")
            # RuntimeError: the loop closed while the tool ran (its call already has a timeout or cancelled result)
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_deliver, future, value, error)
            del loop, future, context, fn, value, error
            with self._lock:
                self._idle += 1


_shared: ToolThreads | None = None
_shared_lock = threading.Lock()


def tool_threads() -> ToolThreads:
    """The process-wide pool, created on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ToolThreads()
        return _shared
