"""Which items of a finished run `decompose` cannot change, so that only the others need running again.

`decompose` acts only on a request that `request_parts` splits; every other item decodes exactly as without it.
So the records whose request does not split are copied into DEST; resuming a run with `--switches decompose=on`
(and, for the pairs, once more without it) in DEST's folder then runs only the rest.

    python docs/measurements/decompose/unsplit_items.py DEST/results.jsonl SOURCE/results.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toollab.models.local_parts import request_parts


def request_of(prompt: str) -> str:
    """The user's request in a record's prompt."""
    return prompt.split("<|im_start|>user\n")[-1].split("<|im_end|>")[0]


def main(dest: str, source: str) -> None:
    kept, rerun = [], []
    for line in Path(source).read_text().splitlines(keepends=True):
        record = json.loads(line)
        (rerun if len(request_parts(request_of(record["prompt"]))) > 1 else kept).append((record["id"], line))
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    Path(dest).write_text("".join(line for _, line in kept))
    print(len(kept), "kept;", len(rerun), "to run:", [i for i, _ in rerun])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
