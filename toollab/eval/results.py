"""A run's results file: one JSON record per finished item, appended and flushed as it finishes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from toollab.harness.events import drop_torn_tail, read_jsonl


class ResultsFile:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    def read(self) -> list[dict[str, Any]]:
        """Every record; a line torn by a killed process is skipped (its item runs again). A finished run kept
        as `results.jsonl.gz` (as in the repository's evals/) is read from there."""
        packed = self.path.with_name(self.path.name + ".gz")
        if not self.path.exists() and packed.exists():
            with gzip.open(packed, "rt", encoding="utf-8") as f:
                return [json.loads(line) for line in f if line.strip()]
        if not self.path.exists():
            return []
        return read_jsonl(self.path, "id")

    def done_ids(self) -> set[str]:
        return {r["id"] for r in self.read()}

    def repair(self) -> None:
        """Cut a line torn by a killed process, so appended records start on a line of their own."""
        if self.path.exists():
            drop_torn_tail(self.path)

    def append(self, record: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False, default=repr) + "\n")
            f.flush()
