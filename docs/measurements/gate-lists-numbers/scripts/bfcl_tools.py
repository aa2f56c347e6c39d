"""Per BFCL item: the gate's decision and the tools each decoded turn is shown (the code on PYTHONPATH). A
measurement of which items a change can touch; nothing is chosen on it. python bfcl_tools.py OUT.json"""

import dataclasses
import json
import sys
from pathlib import Path

from toollab.eval.bfcl.data import load
from toollab.eval.bfcl.schema import tool_set
from toollab.eval.bfcl.single_turn import to_messages
from toollab.harness.messages import last_request
from toollab.harness.request import policy_of
from toollab.models.local import TurnContext
from toollab.models.local_gate import request_relevance
from toollab.models.registry import load_model
from toollab.models.switches import GATE, Switches

model = load_model("local", switches=Switches())
policy = policy_of(model)
res = {}
for it in load(["irrelevance", "simple_python", "multiple", "parallel", "parallel_multiple"], 100):
    messages = to_messages(it.turns[0])
    q = last_request(messages)
    specs = tool_set(it.functions, keep_dots=False).specs
    params = policy.params(specs, after_results=False, request=q)
    call = request_relevance(q, [t for t in params.tools if t.name != params.finish], "dense") >= GATE.threshold
    params = dataclasses.replace(params, tool_choice="required")
    turns = model._turns(messages, params, params.tools, "", TurnContext(request=q))
    res[it.id] = [call, [[t.name for t in p.tools] for _, p, _ in turns]]
Path(sys.argv[1]).write_text(json.dumps(res))
print(len(res))
