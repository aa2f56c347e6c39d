"""The JSONL event log: one JSON object a line, flushed as it happens, so a killed run can be resumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

# Event names, in the order a run writes them.
RUN_START = "run_start"
MODEL_REQUEST = "model_request"
MODEL_RESPONSE = "model_response"
TOOL_CALL = "tool_call"
TOOL_RESULT = "tool_result"
MESSAGE = "message"  # a message the harness adds itself (the request for a final answer)
ROUND_END = "round_end"
RUN_RESUMED = "run_resumed"
RUN_END = "run_end"


class EventLog:
    """Appends events to a JSONL file. Each line is flushed at once: a killed process loses at most one line."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = self.path.open("a", encoding="utf-8")

    def __call__(self, event: dict[str, Any]) -> None:
        if self._file is None:
            raise ValueError(f"event log {self.path} is closed")
        self._file.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def drop_torn_tail(path: str | Path) -> None:
    """Cut a last line that the killed process left unfinished, so that events appended later stay readable."""
    path = Path(path)
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    with path.open("r+b") as f:
        f.truncate(data.rfind(b"\n") + 1)


def read_jsonl(path: str | Path, key: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, each holding `key`. A torn last line (the process died mid-write) is
    skipped; any other bad line raises ValueError."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                break
            raise ValueError(f"{path}:{number}: not a JSON line") from None
        if not isinstance(record, dict) or key not in record:
            raise ValueError(f"{path}:{number}: a JSON line without {key!r}")
        records.append(record)
    return records


def read_events(path: str | Path) -> list[dict[str, Any]]:
    """All events of a log. A torn last line (the process died mid-write) is skipped; any other bad line raises."""
    return read_jsonl(path, "event")
