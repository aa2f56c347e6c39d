"""The Ray executor: jobs sharded over Ray actors that each keep the models their jobs name (loaded once per
worker), results streamed back as they finish.

Failures: a worker that dies (killed, out of memory) is restarted by Ray (`max_restarts=-1`); the job it was
running goes back to the front of the queue, so the next free worker, usually another one, takes it, and the
restarted worker rejoins when it answers again. A job whose worker dies `attempts` times becomes `on_lost`'s
stand-in result instead of stopping the run. Results that arrived are never asked for again.

Without an address, Ray starts a cluster on this machine with every server bound to 127.0.0.1 (Ray binds the
node's routable address unless told it is a single-machine cluster: RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0), no
dashboard and no usage reports; it stops with the executor.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from toollab.scale import shipping
from toollab.scale.executor import Job, OnDone, OnLost, warm_job

ATTEMPTS = 3  # a job whose worker dies this many times is given up (it is likely what kills the worker)
RESTART_SECONDS = 300.0  # how long a slot waits for its dead worker to come back before leaving the run
POLL_SECONDS = 5.0  # how long one question to a restarting worker waits before the run is looked at again
START_SECONDS = 600.0  # how long `start` waits for every worker to answer (a busy machine starts them slowly)


def _local_cluster_environment() -> None:
    """A cluster started here listens on loopback only and reports nothing anywhere: the environment for the
    processes `ray.init` starts, and Ray's own flag in this one (read at import, so set again if Ray was imported
    before)."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    from ray._private import ray_constants

    ray_constants.ENABLE_RAY_CLUSTER = False


class Worker:
    """A Ray actor: runs shipped jobs on its event loop, `max_concurrency` at a time (a local model in it batches
    them), keeping the models they name between jobs."""

    def __init__(self, threads: int):
        self.threads = threads
        try:
            import torch

            torch.set_num_threads(threads)
        except ImportError:  # a worker for remote models only
            pass

    async def run(self, payload: bytes) -> bytes:
        job = shipping.loads(payload)
        return shipping.dumps(await job())

    async def pid(self) -> int:
        return os.getpid()

    async def source(self) -> str:
        """Where this worker's toollab comes from."""
        import toollab

        return str(toollab.__file__)


class RayExecutor:
    remote = True

    def __init__(
        self, workers: int | None = None, concurrency: int = 1, address: str | None = None, worker_cpus: float = 1
    ):
        self.address = address
        self.concurrency = max(1, concurrency)
        self.worker_cpus = worker_cpus
        self.requested = workers
        self.workers: list[Any] = []
        self._started_cluster = False
        self.retried = 0  # jobs sent again after their worker died
        self.description = f"Ray ({address or 'a local cluster on 127.0.0.1'})"

    def start(self) -> None:
        """Connect (or start the local cluster) and start the workers; `run` does it on first use."""
        if self.workers:
            return
        if self.address is None:
            _local_cluster_environment()
        else:
            _reachable(self.address)
        import ray
        from ray.exceptions import GetTimeoutError

        if not ray.is_initialized():
            if self.address is None:
                ray.init(address="local", include_dashboard=False, log_to_driver=False, configure_logging=False)
            else:
                ray.init(address=self.address, log_to_driver=False, configure_logging=False)
            self._started_cluster = True  # ours to shut down (a cluster elsewhere: only our connection to it)
        cpus = ray.cluster_resources().get("CPU", 1)
        count = self.requested or max(1, int(cpus // self.worker_cpus))
        if count * self.worker_cpus > cpus:  # Ray would wait for CPUs that never come
            self.close()
            raise ValueError(
                f"{count} workers x {self.worker_cpus:g} CPUs need {count * self.worker_cpus:g} CPUs; the cluster has "
                f"{cpus:g} (fewer --workers or --worker-cpus)"
            )
        actor = ray.remote(max_restarts=-1, max_task_retries=0)(Worker)
        threads = max(1, int(self.worker_cpus))
        self.workers = [
            actor.options(num_cpus=self.worker_cpus, max_concurrency=self.concurrency).remote(threads)
            for _ in range(count)
        ]
        try:  # every worker up before the clock of the first job starts
            ray.get([w.pid.remote() for w in self.workers], timeout=START_SECONDS)
        except GetTimeoutError:
            self.close()
            raise TimeoutError(
                f"{count} Ray workers did not start within {START_SECONDS:g} s (is the cluster short of CPUs?)"
            ) from None
        if self.address is None:
            self._same_source(ray.get(self.workers[0].source.remote()))
        self.description = f"Ray ({self.address or 'local cluster on 127.0.0.1'}), {count} workers x {self.concurrency}"

    def _same_source(self, theirs: str) -> None:
        """Workers on this machine must run the toollab this process runs: Ray puts the driver's working directory
        first on its workers' `sys.path`, so a run started in one checkout with PYTHONPATH naming another had its
        jobs run by the checkout it was started in."""
        import toollab

        ours = str(toollab.__file__)
        if os.path.realpath(theirs) != os.path.realpath(ours):
            self.close()
            raise RuntimeError(
                f"the Ray workers import toollab from {theirs}, this process from {ours}: start the run from the "
                "checkout it should measure (Ray puts this process's working directory first on its workers' path)"
            )

    async def run(
        self, jobs: Sequence[Job[Any]], on_done: OnDone[Any] | None = None, on_lost: OnLost[Any] | None = None
    ) -> list[Any]:
        from ray.exceptions import RayActorError

        self.start()  # blocks the loop once, before any job: Ray's init wants the main thread
        results: dict[int, Any] = {}
        queue = deque(range(len(jobs)))
        attempts = [0] * len(jobs)
        changed = asyncio.Event()  # a job finished or came back to the queue

        def deliver(index: int, result: Any) -> None:
            results[index] = result
            if on_done is not None:
                on_done(index, result)
            changed.set()

        async def slot(worker: Any) -> None:
            while len(results) < len(jobs):
                if not queue:  # the rest are running elsewhere; one may yet come back
                    changed.clear()
                    await changed.wait()
                    continue
                index = queue.popleft()
                try:
                    payload = await worker.run.remote(shipping.dumps(jobs[index]))
                except RayActorError as exc:
                    attempts[index] += 1
                    if attempts[index] >= ATTEMPTS:
                        if on_lost is None:
                            raise
                        deliver(
                            index, on_lost(index, f"its worker died {attempts[index]} times ({type(exc).__name__})")
                        )
                    else:
                        queue.appendleft(index)  # for the next free worker
                        self.retried += 1
                        changed.set()
                    if not await _back(worker, lambda: len(results) == len(jobs)):
                        return
                    continue
                deliver(index, shipping.loads(payload))

        async with asyncio.TaskGroup() as group:
            for worker in self.workers:
                for _ in range(self.concurrency):
                    group.create_task(slot(worker))
        if len(results) < len(jobs):
            raise RuntimeError(f"every Ray worker left the run; {len(jobs) - len(results)} jobs did not finish")
        return [results[i] for i in range(len(jobs))]

    async def warm(self, model: object) -> None:
        self.start()
        payload = shipping.dumps(partial(warm_job, model))
        await asyncio.gather(*(w.run.remote(payload) for w in self.workers))

    async def pids(self) -> list[int]:
        """The workers' process ids (tests kill one to check that the run survives it)."""
        return list(await asyncio.gather(*(w.pid.remote() for w in self.workers)))

    def close(self) -> None:
        """Stop the workers, and the cluster (or the connection) this executor started."""
        if not self.workers and not self._started_cluster:
            return
        import ray

        for worker in self.workers:
            ray.kill(worker)
        self.workers = []
        if self._started_cluster:
            ray.shutdown()
            self._started_cluster = False


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast, with the reason, when nothing listens at a cluster's host:port (Ray itself retries for minutes);
    "auto" and other forms go to Ray as they are."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ConnectionError(f"no Ray cluster answers at {address}: {exc.strerror or exc}") from None


async def _back(worker: Any, finished: Callable[[], bool]) -> bool:
    """Wait until a worker Ray is restarting answers again; False if it does not within RESTART_SECONDS, or once
    the run is `finished` without it (a slot must not hold the run open for a worker nothing waits for)."""
    from ray.exceptions import RayActorError

    async def pid() -> int:
        return int(await worker.pid.remote())  # queued while the actor restarts: it may not answer for long

    deadline = time.monotonic() + RESTART_SECONDS
    while time.monotonic() < deadline and not finished():
        try:
            await asyncio.wait_for(pid(), timeout=POLL_SECONDS)
            return True
        except (RayActorError, TimeoutError):
            await asyncio.sleep(0.5)
    return False
