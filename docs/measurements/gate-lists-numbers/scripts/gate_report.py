"""Gate decisions before (score) and after (var) at a threshold: python gate_report.py A.json[,B.json] [T] [-v]"""

import json
import sys
from pathlib import Path

t = float(sys.argv[2]) if len(sys.argv) > 2 else 0.2883
res = {}
for f in sys.argv[1].split(","):
    res.update(json.loads(Path(f).read_text()))
by = {}
for r in res.values():
    new = r["var"]
    by.setdefault(r["cat"], [0, 0, 0])
    by[r["cat"]][0] += 1
    by[r["cat"]][1] += r["score"] >= t
    by[r["cat"]][2] += new >= t
for c, (n, a, b) in by.items():
    print(f"{c:28} n={n:4} pass {a:4} -> {b:4}")
if "-v" in sys.argv:
    for r in res.values():
        if (r["score"] >= t) != (r["var"] >= t):
            print(round(r["score"], 3), round(r["var"], 3), r["cat"], r["q"])
