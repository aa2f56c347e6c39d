"""Executors: where a program runs, with a lifecycle (start, run, interrupt, close), apart from the tool that uses
it. `SandboxedPython` runs each program in a fresh Python process confined by bubblewrap (or, where bwrap cannot
run, by the weaker documented fallback), keeps a few started and waiting (`warm`) so that a call does not pay a
process start, and answers the program's calls of harness functions over a pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from toollab.sandbox import bwrap, runner
from toollab.sandbox.limits import CodeResult, Isolation, Limits

# A function the program may call: receives the keyword arguments, returns a JSON value or raises (the message
# goes back to the program as a RuntimeError).
Function = Callable[[dict[str, Any]], Awaitable[Any]]
FALLBACK: Isolation = "rlimits-only (weaker: the host's file system and network stay reachable)"
_SOURCE = Path(runner.__file__).read_text(encoding="utf-8")
NOBODY = 65534  # the sandbox's user when the harness runs as root (root is exempt from the process limit)
_GRACE = 1.0  # seconds a killed process's exit and its output's end are waited for past the wall limit


class Executor(Protocol):
    """Runs programs somewhere other than the harness's own process."""

    async def start(self) -> None: ...
    async def run(
        self, code: str, functions: Mapping[str, Function] | None = None, limits: Limits | None = None
    ) -> CodeResult: ...
    async def interrupt(self) -> None: ...
    async def close(self) -> None: ...


@dataclass(eq=False)
class _Process:
    """A started runner, waiting for its request."""

    process: asyncio.subprocess.Process
    workdir: Path
    channel: int  # the runner's end numbers, as it sees them
    replies: int
    reports: asyncio.StreamReader
    answers: int  # our end of the replies pipe
    started: float = field(default_factory=time.monotonic)


class SandboxedPython:
    """Python programs in confined processes. `isolation`: "bwrap", "fallback" or "auto" (bwrap when it runs
    here). `warm`: processes kept started and waiting. `site_packages`: let programs import the harness
    environment's installed packages (read-only); by default only the standard library is there."""

    def __init__(
        self,
        limits: Limits | None = None,
        isolation: Literal["auto", "bwrap", "fallback"] = "auto",
        warm: int = 1,
        site_packages: bool = False,
    ):
        self.limits = limits or Limits()
        self.requested = isolation
        self.warm = warm
        self.site_packages = site_packages
        self.isolation: Isolation | None = None
        self._pool: list[_Process] = []
        self._running: set[_Process] = set()
        self._interrupted: set[_Process] = set()
        self._refill: asyncio.Task[None] | None = None
        self._closed = False

    def __reduce__(self) -> tuple[type[SandboxedPython], tuple[Limits, str, int, bool]]:
        """Sent to another process (a Ray worker runs lab tasks), a sandbox arrives unstarted and keeps no process
        waiting (warm=0): each program starts its own and discards it, so nothing there is left to close."""
        return (SandboxedPython, (self.limits, self.requested, 0, self.site_packages))

    async def __aenter__(self) -> SandboxedPython:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Choose the isolation (bwrap is tried once) and start the warm processes."""
        if self.isolation is None:
            ok = self.requested != "fallback" and await asyncio.to_thread(bwrap.works)
            if self.requested == "bwrap" and not ok:
                raise RuntimeError(f"bwrap cannot run here: {bwrap.why_not()}")
            self.isolation = "bwrap" if ok else FALLBACK
        self._closed = False
        while len(self._pool) < self.warm:
            self._pool.append(await self._spawn())

    async def run(
        self, code: str, functions: Mapping[str, Function] | None = None, limits: Limits | None = None
    ) -> CodeResult:
        """Run `code` to its end or to a limit; never raises for anything the program does."""
        if self._closed:
            raise RuntimeError("the executor is closed")
        if self.isolation is None:
            await self.start()
        limits = limits or self.limits
        functions = dict(functions or {})
        proc = self._pool.pop(0) if self._pool else await self._spawn()
        self._schedule_refill()
        self._running.add(proc)
        begin = time.monotonic()
        try:
            return await self._run(proc, code, functions, limits, begin)
        finally:
            self._running.discard(proc)
            self._interrupted.discard(proc)
            await self._discard(proc)

    async def interrupt(self) -> None:
        """Stop every program running now; each run returns with what it had printed."""
        for proc in list(self._running):
            self._interrupted.add(proc)
            _kill(proc.process)

    async def close(self) -> None:
        self._closed = True
        if self._refill is not None:  # let a start under way finish (a cancelled spawn would leak its process)
            with contextlib.suppress(Exception):
                await self._refill
        await self.interrupt()
        for proc in self._pool:
            await self._discard(proc)
        self._pool.clear()

    # ---- one run -----------------------------------------------------------------------------------------

    async def _run(
        self, proc: _Process, code: str, functions: dict[str, Function], limits: Limits, begin: float
    ) -> CodeResult:
        process = proc.process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        request = {
            "code": code,
            "limits": limits.model_dump(),
            "functions": sorted(functions),
            "channel": proc.channel,
            "replies": proc.replies,
            "block_sockets": self.isolation != "bwrap",
            "paths": bwrap.site_packages() if self.site_packages else [],
        }
        result = CodeResult(isolation=self.isolation or FALLBACK)
        overflow = asyncio.Event()
        stdout, stderr = _Capture(limits.output_bytes, overflow), _Capture(limits.output_bytes, overflow)
        readers = {asyncio.create_task(stdout.read(process.stdout)), asyncio.create_task(stderr.read(process.stderr))}
        talk = asyncio.create_task(self._serve(proc, functions))
        try:
            process.stdin.write((json.dumps(request) + "\n").encode())
            await process.stdin.drain()
            process.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the runner died before its request: reported below from its exit
        stop = asyncio.create_task(overflow.wait())
        waited = asyncio.create_task(process.wait())
        done, _ = await asyncio.wait(
            {waited, talk, stop}, timeout=limits.wall_seconds, return_when=asyncio.FIRST_COMPLETED
        )
        if stop in done:
            result.limit = "output"
        elif not done:
            result.limit = "wall_time"
        report: dict[str, Any] = talk.result() if talk in done and not talk.exception() else {}
        if talk in done and not report and result.limit is None:  # the channel closed: the runner is ending
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(waited), max(0.1, _left(begin, limits)))
            if not waited.done():
                result.limit = "wall_time"
        ended_by_itself = waited.done()
        _kill(process)  # the run is over: nothing it started lives on
        with contextlib.suppress(TimeoutError):  # SIGKILL is not refused, but nothing here waits unbounded
            await asyncio.wait_for(asyncio.shield(waited), _GRACE)
        # The output ends when the last holder of the pipes is gone. Something the program started outside its
        # process group (possible in the fallback) may hold them open: the wall limit holds for it too, and what
        # was read by then is the output.
        _, reading = await asyncio.wait(readers, timeout=max(_GRACE, _left(begin, limits)))
        if reading:
            result.limit = result.limit or "wall_time"
            transport = getattr(process, "_transport", None)  # asyncio offers no public close of a process's pipes
            if transport is not None:
                transport.close()
        for task in (stop, talk, waited, *reading):
            task.cancel()
        result.stdout, result.stderr = stdout.text(), stderr.text()
        result.truncated = stdout.cut or stderr.cut
        result.seconds = time.monotonic() - begin
        result.tool_calls = int(report.get("calls", 0))
        if report:
            result.exit_code = int(report.get("exit", 0))
            result.error = report.get("error")
            result.limit = result.limit or report.get("limit")
        else:
            code_ = process.returncode
            result.exit_code = code_
            died = -code_ if code_ is not None and code_ < 0 else (code_ - 128 if code_ and code_ > 128 else 0)
            if result.limit is None and ended_by_itself and died in (signal.SIGXCPU, signal.SIGKILL):
                result.limit = "cpu_time"  # RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the hard one
            if proc in self._interrupted:
                result.error = "interrupted: the harness stopped the program"
            elif result.limit is None:
                result.error = f"the program ended without finishing (exit status {code_})"
        return result

    async def _serve(self, proc: _Process, functions: dict[str, Function]) -> dict[str, Any]:
        """Answer the program's calls until it reports its end; its report."""
        while True:
            line = await proc.reports.readline()
            if not line:
                return {}
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                message = {"call": None}
            if message.get("done"):
                return dict(message)
            name = message.get("call")
            function = functions.get(name) if isinstance(name, str) else None
            arguments = message.get("arguments")
            if function is None:
                reply: dict[str, Any] = {"error": f"no function {name!r}; there are: {', '.join(functions)}"}
            else:
                try:
                    reply = {"value": await function(arguments if isinstance(arguments, dict) else {})}
                except Exception as exc:  # the function's failure goes back to the program
                    reply = {"error": str(exc) or type(exc).__name__}
            try:
                os.write(proc.answers, (json.dumps(reply, default=str) + "\n").encode())
            except OSError:
                return {}

    # ---- processes -----------------------------------------------------------------------------------------

    def _schedule_refill(self) -> None:
        if self.warm and (self._refill is None or self._refill.done()) and not self._closed:
            self._refill = asyncio.create_task(self._top_up())

    async def _top_up(self) -> None:
        while len(self._pool) < self.warm and not self._closed:
            self._pool.append(await self._spawn())

    async def _spawn(self) -> _Process:
        workdir = Path(tempfile.mkdtemp(prefix="toollab-sandbox-"))
        as_root = os.geteuid() == 0
        if as_root:
            os.chown(workdir, NOBODY, NOBODY)
        reports_read, reports_write = os.pipe()
        replies_read, replies_write = os.pipe()
        python = bwrap.interpreter()
        if self.isolation == "bwrap":
            argv = [*bwrap.command(workdir, python, self.site_packages), python, "-I", "-S", "-c", _SOURCE]
            env: dict[str, str] = {}
        else:
            argv, env = [python, "-I", "-S", "-c", _SOURCE], {"PATH": "/usr/bin:/bin", "HOME": str(workdir)}
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            pass_fds=(reports_write, replies_read),
            cwd=workdir,
            env=env,
            start_new_session=True,  # its own process group: killed whole
            user=NOBODY if as_root else None,
            group=NOBODY if as_root else None,
            extra_groups=[] if as_root else None,
        )
        os.close(reports_write)
        os.close(replies_read)
        reader = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(reports_read, "rb"))
        return _Process(process, workdir, reports_write, replies_read, reader, replies_write)

    async def _discard(self, proc: _Process) -> None:
        _kill(proc.process)
        with contextlib.suppress(ProcessLookupError, TimeoutError):
            await asyncio.wait_for(proc.process.wait(), _GRACE)
        with contextlib.suppress(OSError):
            os.close(proc.answers)
        shutil.rmtree(proc.workdir, ignore_errors=True)


def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the process, its whole group and every process under it. Not `process.kill()`: Popen polls first,
    reaping the child under asyncio's watcher, which then reports a made-up exit status (255). The processes under
    it are found first: bwrap's own child starts a new session (outside the group), and one killed before it has
    asked to die with its parent would live on, holding the run's pipes."""
    if process.returncode is None:
        for pid in [*_descendants(process.pid), process.pid]:
            for kill in (os.killpg, os.kill):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    kill(pid, signal.SIGKILL)


def _descendants(pid: int) -> list[int]:
    """The processes under `pid`, deepest first (Linux /proc; none found elsewhere)."""
    found: list[int] = []
    try:
        children = [
            int(child)
            for task in os.listdir(f"/proc/{pid}/task")
            for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        ]
    except (OSError, ValueError):
        return found
    for child in children:
        found += [*_descendants(child), child]
    return found


def _left(begin: float, limits: Limits) -> float:
    """Seconds of the run's wall limit left."""
    return limits.wall_seconds - (time.monotonic() - begin)


class _Capture:
    """One output stream of a run: the first `cap` bytes kept, `overflow` set when it runs past them. What was read
    stays here when the reading is cancelled."""

    def __init__(self, cap: int, overflow: asyncio.Event):
        self.cap, self.overflow = cap, overflow
        self.kept = bytearray()
        self.cut = False

    async def read(self, stream: asyncio.StreamReader) -> None:
        """To the stream's end. The rest past the cap is read and dropped: an undrained pipe would keep the
        process's transport (and `wait()`) open."""
        while chunk := await stream.read(65536):
            room = self.cap - len(self.kept)
            if len(chunk) > room:
                self.kept += chunk[:room]
                if not self.cut:
                    self.cut = True
                    self.overflow.set()
                continue
            self.kept += chunk

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")
