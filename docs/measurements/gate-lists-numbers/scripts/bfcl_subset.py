"""Run the default local agent on some BFCL items (the code on PYTHONPATH): python bfcl_subset.py OUT IDS"""

import asyncio
import sys
from pathlib import Path

from toollab.eval.bfcl import run as bfcl_run
from toollab.eval.bfcl.data import load

out, ids = Path(sys.argv[1]), sys.argv[2].split(",")
cats = ["irrelevance", "simple_python", "multiple", "parallel", "parallel_multiple"]
items = [it for it in load(cats, 100) if it.id in ids]
config = bfcl_run.RunConfig(model="local", categories=sorted({it.category for it in items}), limit=100)
r = bfcl_run.BfclRun(config, out)
r.items = items
asyncio.run(r.run())
