"""Score a probe file of `probe_items.py` against the dev set's answers, strings compared as BFCL's checker
compares them (case, spaces and punctuation aside): python score_probe.py FILE [SPLIT] [-v]"""

import itertools
import json
import re
import sys

from toollab.eval.synth.generate import load_synth

split = sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("-") else "dev"


def norm(v):
    if isinstance(v, str):
        return re.sub(r"[ ,./\-_*^]", "", v).lower()
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v


def match(got, want):
    ((name, params),) = want.items()
    if got[0] != name:
        return False
    args = got[1]
    for k, opts in params.items():
        if k in args:
            v = args[k]
            if not any(
                norm(v) == norm(o)
                or (isinstance(o, (int, float)) and isinstance(v, (int, float)) and abs(v - o) < 1e-9)
                for o in opts
            ):
                return False
        elif "" not in opts:
            return False
    return all(k in params for k in args)


items = []
cur = None
with open(sys.argv[1]) as probe:
    lines = probe.readlines()
for line in lines:
    if line.startswith("   got "):
        n, a = line[7:].split(None, 1)
        cur["got"].append((n, json.loads(a)))
    elif line.startswith("   want"):
        pass
    elif line.strip():
        id_, q = line.strip().split(" ", 1)
        cur = {"id": id_, "q": q, "got": []}
        items.append(cur)
cats = sorted({it["id"].rsplit("_", 2)[0] for it in items})
answers = {i.id: i.answer for i in load_synth(cats, split, 1000)}
right = 0
for it in items:
    want = answers[it["id"]]
    ok = len(it["got"]) == len(want) and any(
        all(match(g, w) for g, w in zip(p, want, strict=False)) for p in itertools.permutations(it["got"])
    )
    right += ok
    if not ok and "-v" in sys.argv:
        print("WRONG", it["id"], it["q"])
        [print("    got", g) for g in it["got"]]
print(right, len(items))
