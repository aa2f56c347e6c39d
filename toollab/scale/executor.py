"""Executors: run a list of zero-argument async jobs, report each result as it arrives, return them in order.

A job is the unit that may run elsewhere: for the Ray executor it must pickle (closures and partials do, with
cloudpickle), and a model inside it travels as the arguments `load_model` was given (`toollab.scale.shipping`),
so each worker loads it once. Jobs must therefore not share mutable state with the caller: what they find
goes in their result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
Job = Callable[[], Awaitable[T]]
OnDone = Callable[[int, T], None]  # (the job's index, its result), in the order results arrive
OnLost = Callable[[int, str], T]  # a stand-in result for a job whose worker died on every attempt

EXECUTORS = ("local", "ray")


class Executor(Protocol):
    """Where jobs run. `remote`: whether they run in other processes (the caller then loads no model itself)."""

    remote: bool
    description: str

    async def run(
        self, jobs: Sequence[Job[Any]], on_done: OnDone[Any] | None = None, on_lost: OnLost[Any] | None = None
    ) -> list[Any]: ...

    def start(self) -> None:
        """Get ready to run jobs (connect, start workers); `run` does it on first use. Raises ConnectionError when
        the place cannot be reached."""
        ...

    async def warm(self, model: object) -> None:
        """Load `model`'s weights where its jobs will run (on every worker), before the clock of the first item."""
        ...

    def close(self) -> None: ...


def load_weights(model: object) -> None:
    """Load a model's weights now (local models; others have none)."""
    load = getattr(model, "load", None)
    if callable(load):
        load()


async def warm_job(model: object) -> None:
    """`load_weights` as a job (what `warm` ships to each worker)."""
    load_weights(model)


class InProcess:
    """Jobs on this process's event loop, `concurrency` at a time (a local model decodes those in flight together
    in one batch)."""

    remote = False

    def __init__(self, concurrency: int = 1):
        self.concurrency = max(1, concurrency)
        self.description = f"in process, {self.concurrency} at a time"

    async def run(
        self, jobs: Sequence[Job[Any]], on_done: OnDone[Any] | None = None, on_lost: OnLost[Any] | None = None
    ) -> list[Any]:
        limiter = asyncio.Semaphore(self.concurrency)

        async def one(index: int, job: Job[Any]) -> Any:
            async with limiter:
                result = await job()
            if on_done is not None:
                on_done(index, result)
            return result

        return list(await asyncio.gather(*(one(i, job) for i, job in enumerate(jobs))))

    def start(self) -> None:
        pass

    async def warm(self, model: object) -> None:
        load_weights(model)

    def close(self) -> None:
        pass


def executor_for(
    name: str = "local",
    *,
    concurrency: int = 1,
    workers: int | None = None,
    address: str | None = None,
    worker_cpus: float = 1,
) -> Executor:
    """The executor a command's options name: "local" (this process) or "ray" (`address` None: a Ray cluster on
    this machine, bound to 127.0.0.1; else the cluster there). With Ray, `concurrency` is per worker."""
    if name == "local":
        if workers is not None or address is not None:
            raise ValueError("--workers and --address apply to --executor ray")
        return InProcess(concurrency)
    if name == "ray":
        from toollab.scale.ray_cluster import RayExecutor  # Ray is imported only when asked for

        return RayExecutor(workers=workers, concurrency=concurrency, address=address, worker_cpus=worker_cpus)
    raise ValueError(f"unknown executor {name!r}: {' or '.join(EXECUTORS)}")
