"""Gate scores of synth items: python gate_scores.py SPLIT CATS LIMIT OUT.json"""

import json
import sys
from pathlib import Path

from toollab.eval.bfcl.schema import tool_set
from toollab.eval.synth.generate import load_synth
from toollab.models.local_gate import request_relevance

split, cats, limit, out = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), sys.argv[4]
res = {}
for it in load_synth(cats, split, limit):
    q = it.turns[0][0]["content"]
    specs = tool_set(it.functions, keep_dots=False).specs
    res[it.id] = {"q": q, "cat": it.category, "score": request_relevance(q, specs, "dense")}
Path(out).write_text(json.dumps(res, indent=0))
t = 0.2883
by = {}
for r in res.values():
    by.setdefault(r["cat"], []).append(r["score"] >= t)
for c, v in by.items():
    print(c, f"{sum(v)}/{len(v)} pass")
