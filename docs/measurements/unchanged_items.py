"""Copy the records of a finished run that a change cannot alter, so that only the others need running again.

Greedy decoding gives the same output for the same prompt, so an item a change does not reach decodes as before:
- `listed`: the rule acts only where a call has just been completed, so a record whose every prefix of calls (up
  to the rule's limit) leaves no item of a list they took from uncovered decodes as without it;
- `unsplit`: `decompose` acts only on a request that `request_parts` splits;
- `uncut`: a larger token budget (`--max-new-tokens`) changes only an item with a turn that stopped at the old one.
The records the change cannot alter are copied into DEST; resuming the run with the change in DEST's folder
then runs only the rest (and, for the pairs, the source run's own records of them are the "before").

    python docs/measurements/unchanged_items.py listed|unsplit|uncut DEST/results.jsonl SOURCE/results.jsonl [MORE...]

A record's id seen in an earlier SOURCE is skipped in later ones.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toollab.harness.messages import ToolCall
from toollab.models.local_mentions import MAX_COVERED_CALLS, unlisted
from toollab.models.local_parts import request_parts


def request_of(prompt: str) -> str:
    """The user's request in a record's prompt."""
    return prompt.split("<|im_start|>user\n")[-1].split("<|im_end|>")[0]


def listed(record: dict[str, Any]) -> bool:
    request = request_of(record["prompt"])
    calls = [
        ToolCall(name=c["name"], arguments=c["arguments"])
        for c in record["calls"] or []
        if isinstance(c.get("arguments"), dict)
    ]
    return not any(unlisted(calls[:k], request) for k in range(1, min(len(calls), MAX_COVERED_CALLS - 1) + 1))


def unsplit(record: dict[str, Any]) -> bool:
    return len(request_parts(request_of(record["prompt"]))) < 2


def uncut(record: dict[str, Any]) -> bool:
    """A record that keeps no stop reasons (the dev set's multi-step tasks) cannot show it was not cut: run it."""
    reasons = record["ops"]["stop_reasons"]
    return bool(reasons) and "length" not in reasons


UNCHANGED: dict[str, Callable[[dict[str, Any]], bool]] = {"listed": listed, "unsplit": unsplit, "uncut": uncut}


def lines_of(source: str) -> list[str]:
    opener = gzip.open if source.endswith(".gz") else open
    with opener(source, "rt", encoding="utf-8") as f:
        return f.read().splitlines(keepends=True)


def main(change: str, dest: str, sources: list[str]) -> None:
    kept, rerun, seen = [], [], set()
    for line in (line for source in sources for line in lines_of(source)):
        record = json.loads(line)
        if record["id"] not in seen:
            seen.add(record["id"])
            (kept if UNCHANGED[change](record) else rerun).append((record["id"], line))
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    Path(dest).write_text("".join(line for _, line in kept))
    print(len(kept), "kept;", len(rerun), "to run:", [i for i, _ in rerun])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
