"""A run's results file: one `ItemRecord` a line, appended and flushed as each item finishes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from pydantic import ValidationError

from toollab.eval.records import ItemRecord
from toollab.harness.jsonl import drop_torn_tail, json_line, read_jsonl


class ResultsFile:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    def read(self) -> list[ItemRecord]:
        """Every record; a line torn by a killed process is skipped (its item runs again). A finished run kept
        as `results.jsonl.gz` (as in the repository's evals/) is read from there."""
        packed = self.path.with_name(self.path.name + ".gz")
        if not self.path.exists() and packed.exists():
            with gzip.open(packed, "rt", encoding="utf-8") as f:
                lines = [(number, json.loads(line)) for number, line in enumerate(f, 1) if line.strip()]
            return self._records(packed, lines)
        if not self.path.exists():
            return []
        return self._records(self.path, read_jsonl(self.path))

    @staticmethod
    def _records(path: Path, lines: list[tuple[int, object]]) -> list[ItemRecord]:
        records = []
        for number, value in lines:
            try:
                records.append(ItemRecord.model_validate(value))
            except ValidationError as exc:
                raise ValueError(f"{path}:{number}: not an evaluation record ({exc.errors()[0]['msg']})") from None
        return records

    def done_ids(self) -> set[str]:
        return {r.id for r in self.read()}

    def repair(self) -> None:
        """Cut a line torn by a killed process, so appended records start on a line of their own."""
        if self.path.exists():
            drop_torn_tail(self.path)

    def append(self, record: ItemRecord) -> None:
        with self.path.open("ab") as f:
            f.write(json_line(record.model_dump(mode="json", fallback=repr)))
            f.flush()
