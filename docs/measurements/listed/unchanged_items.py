"""Which items of a finished run the `listed` rule cannot change, so that only the others need running again.

Under greedy decoding the rule acts only where a call has just been completed: a turn whose calls so far leave no
item of a list they took from uncovered decodes exactly as without the rule. So the records whose every prefix of
calls (up to the rule's limit) leaves nothing listed are copied into DEST; resuming a run with `listed=on` into
DEST's folder then runs only the rest.

    python docs/measurements/listed/unchanged_items.py DEST/results.jsonl SOURCE/results.jsonl [MORE...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toollab.harness.messages import ToolCall
from toollab.models.local_mentions import MAX_COVERED_CALLS, unlisted


def request_of(prompt: str) -> str:
    """The user's request in a record's prompt (the whole prompt for the everyday tasks' records)."""
    return prompt.split("<|im_start|>user\n")[-1].split("<|im_end|>")[0]


def main(dest: str, sources: list[str]) -> None:
    kept, rerun, seen = [], [], set()
    for source in sources:
        for line in Path(source).read_text().splitlines(keepends=True):
            record = json.loads(line)
            if record["id"] in seen:
                continue
            seen.add(record["id"])
            request = request_of(record["prompt"])
            calls = [
                ToolCall(name=c["name"], arguments=c["arguments"])
                for c in record["calls"] or []
                if isinstance(c.get("arguments"), dict)
            ]
            acts = any(unlisted(calls[:k], request) for k in range(1, min(len(calls), MAX_COVERED_CALLS - 1) + 1))
            (rerun if acts else kept).append((record["id"], line))
    Path(dest).write_text("".join(line for _, line in kept))
    print(len(kept), "kept;", len(rerun), "to run:", [i for i, _ in rerun])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
