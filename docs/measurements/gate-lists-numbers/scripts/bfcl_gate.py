"""Gate scores of BFCL items (measurement of which decisions a gate change flips; nothing chosen on it):
python bfcl_gate.py OUT.json"""

import json
import sys
from pathlib import Path

from toollab.eval.bfcl.data import load
from toollab.eval.bfcl.schema import tool_set
from toollab.eval.bfcl.single_turn import to_messages
from toollab.harness.messages import last_request
from toollab.models.local_gate import request_relevance

res = {}
for it in load(["irrelevance", "simple_python", "multiple", "parallel", "parallel_multiple"], 100):
    specs = tool_set(it.functions, keep_dots=False).specs
    res[it.id] = request_relevance(last_request(to_messages(it.turns[0])), specs, "dense")
Path(sys.argv[1]).write_text(json.dumps(res))
print(len(res))
