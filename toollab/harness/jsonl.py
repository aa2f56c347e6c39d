"""JSON Lines files that a killed process may have left torn: the event log and the evaluation's results.

Lines are written whole and flushed at once, so a killed process loses at most the line it was writing; readers
skip a torn last line, and writers cut it before appending.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def json_line(record: Any) -> bytes:
    """One record as a UTF-8 line. Text stays readable (no \\u escapes), except when it holds lone surrogates,
    which a model can send through a provider's JSON and which UTF-8 cannot encode: that line is written with
    escapes, which read back to the same text (except a high and a low surrogate side by side, which JSON reads
    as the one character they encode)."""
    try:
        return (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode()
    except UnicodeEncodeError:
        return (json.dumps(record, default=str) + "\n").encode()


def drop_torn_tail(path: str | Path) -> None:
    """Cut a last line that a killed process left unfinished, so that lines appended later stay readable."""
    path = Path(path)
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    with path.open("r+b") as f:
        f.truncate(data.rfind(b"\n") + 1)


def read_jsonl(path: str | Path) -> list[tuple[int, Any]]:
    """The JSON values of a JSONL file with their line numbers. A torn last line (the process died mid-write) is
    skipped; any other line that is not JSON raises ValueError."""
    # split on "\n" alone: str.splitlines() also splits on U+0085 and U+2028, which JSON strings hold unescaped
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    last = max((i for i, line in enumerate(lines, 1) if line.strip()), default=0)
    records: list[tuple[int, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError:
            if number == last:
                break
            raise ValueError(f"{path}:{number}: not a JSON line") from None
    return records
