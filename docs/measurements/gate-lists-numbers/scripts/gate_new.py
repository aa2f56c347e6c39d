"""Add the current code's gate score as 'var' to a scores file: python gate_new.py SPLIT CATS LIMIT IN.json OUT.json"""

import json
import sys
from pathlib import Path

from toollab.eval.bfcl.schema import tool_set
from toollab.eval.synth.generate import load_synth
from toollab.models.local_gate import request_relevance

split, cats, limit, inp, out = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), sys.argv[4], sys.argv[5]
res = json.loads(Path(inp).read_text())
for it in load_synth(cats, split, limit):
    q = it.turns[0][0]["content"]
    specs = tool_set(it.functions, keep_dots=False).specs
    res[it.id]["var"] = request_relevance(q, specs, "dense")
Path(out).write_text(json.dumps(res, indent=0))
