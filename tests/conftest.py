from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from toollab import AssistantMessage, Message, ToolResultMessage


def assert_history_consistent(messages: Sequence[Message]) -> None:
    """Every call has exactly one result, the results follow their turn in call order, and ids are unique."""
    seen: set[str] = set()
    i = 0
    while i < len(messages):
        m = messages[i]
        if isinstance(m, AssistantMessage) and m.tool_calls:
            ids = [c.id for c in m.tool_calls]
            assert all(ids), f"empty call id in {m}"
            assert not (set(ids) & seen) and len(set(ids)) == len(ids), f"repeated call ids {ids}"
            seen.update(ids)
            results = messages[i + 1 : i + 1 + len(ids)]
            assert [r.call_id for r in results if isinstance(r, ToolResultMessage)] == ids, (ids, results)
            i += 1 + len(ids)
        else:
            assert not isinstance(m, ToolResultMessage), f"result without a call: {m}"
            i += 1


@dataclass(frozen=True)
class BfclTexts:
    """What BFCL writes, over all its categories, lower-cased where it is prose: what our data must not hold."""

    names: frozenset[str]  # function names
    descriptions: frozenset[str]  # function descriptions
    parameter_descriptions: frozenset[str]
    questions: frozenset[str]  # every message of every turn


@functools.cache
def bfcl_texts() -> BfclTexts:
    """Read once per test process: every category of BFCL loads in a few seconds."""
    from toollab.eval.bfcl.data import CATEGORIES, load_category

    names, descriptions, parameters, questions = set(), set(), set(), set()
    for category in CATEGORIES:
        for item in load_category(category):
            for f in item.functions:
                names.add(f["name"])
                descriptions.add(f.get("description", "").strip().lower())
                properties = f.get("parameters", {}).get("properties", {}).values()
                parameters |= {v.get("description", "").strip().lower() for v in properties if isinstance(v, dict)}
            questions |= {m["content"].strip().lower() for turn in item.turns for m in turn if m.get("content")}
    return BfclTexts(
        frozenset(names), frozenset(descriptions - {""}), frozenset(parameters - {""}), frozenset(questions)
    )


def results_by_id(messages: Sequence[Any]) -> dict[str, ToolResultMessage]:
    return {m.call_id: m for m in messages if isinstance(m, ToolResultMessage)}


def toollab(*args: str, cwd=None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command line in a subprocess, with a wide terminal and no inherited environment."""
    return subprocess.run(
        [sys.executable, "-m", "toollab", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        # PYTHONFAULTHANDLER: a crash in native code (an abort at exit) prints every thread's Python stack
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin", "PYTHONFAULTHANDLER": "1"},
    )


# A raw MCP initialize request over streamable HTTP, for tests of what a server refuses.
MCP_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """`python -m MODULE ARGS` (toollab by default) in its own process, ready once its port accepts connections;
    killed at exit."""

    def __init__(
        self,
        *args: str,
        port: int,
        env: dict[str, str] | None = None,
        ready_timeout: float = 60,
        module: str = "toollab",
        cwd: str | None = None,
    ):
        import os

        self.args = args
        self.module = module
        self.cwd = cwd
        self.port = port
        self.env = {**os.environ, **(env or {})}
        self.ready_timeout = ready_timeout
        self.process: subprocess.Popen | None = None

    def start(self) -> ServerProcess:
        import socket
        import time

        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module, *self.args],
            env=self.env,
            cwd=self.cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.process.stderr.read()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server not ready on port {self.port}")

    def stop(self) -> str:
        """Kill the server; returns what it wrote to stdout and stderr."""
        if self.process is None:
            return ""
        self.process.kill()
        out, err = self.process.communicate(timeout=10)
        self.process = None
        return out + err

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# The longest files start first, so that under `make test`'s two processes (pytest-xdist, a file whole in one
# process) they run beside the many short ones instead of after them.
# test_train_adapter.py last of them: it waits for the quick run that test_train.py's process makes first
LONGEST_FIRST = (
    "test_train.py",
    "test_scale.py",
    "test_steering.py",
    "test_lab_experiments.py",
    "test_train_adapter.py",
)


def pytest_collection_modifyitems(items: list[Any]) -> None:
    def rank(item: Any) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: each file keeps its own order


def quick_train(data: Path, out: Path, *extra: str) -> subprocess.Popen[bytes]:
    """`toollab train --quick` in a subprocess, its output piped."""
    command = [sys.executable, "-m", "toollab", "train", "--data", str(data), "--out", str(out), "--quick", *extra]
    env = os.environ | {"OMP_NUM_THREADS": "2"}  # the same threads in every run: the same arithmetic
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with `data/` (a few generated examples) and `whole/`, one uninterrupted quick training on it: made
    once for the whole session, whichever pytest-xdist worker asks first, so that the training tests can sit in
    several files that run side by side."""
    from toollab.train.data import DataConfig, write_data

    shared = tmp_path_factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") else None
    folder = (shared or tmp_path_factory.getbasetemp()) / "quick-run"
    with FileLock(str(folder) + ".lock"):
        if not (folder / "whole" / "train.json").is_file():
            write_data(folder / "data", DataConfig(10, 0, 2, 2, heldout=1), model=None)  # tasks: 1,200 tokens
            run = quick_train(folder / "data", folder / "whole")
            output, _ = run.communicate(timeout=600)
            assert run.returncode == 0, output.decode()
    return folder
