from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import Any

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
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"},
    )
