"""Per dev item, the tools each part is shown (the code on PYTHONPATH):
python parts_tools.py SPLIT CATS LIMIT OUT.json"""

import json
import sys
from pathlib import Path

from toollab.eval.bfcl.schema import tool_set
from toollab.eval.synth.generate import load_synth
from toollab.harness.messages import UserMessage
from toollab.harness.request import policy_of
from toollab.models.local import TurnContext
from toollab.models.registry import load_model
from toollab.models.switches import Switches

split, cats, limit, out = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), sys.argv[4]
model = load_model("local", switches=Switches())
policy = policy_of(model)
res = {}
for it in load_synth(cats, split, limit):
    q = it.turns[0][0]["content"]
    specs = tool_set(it.functions, keep_dots=False).specs
    params = policy.params(specs, after_results=False, request=q)
    import dataclasses

    params = dataclasses.replace(params, tool_choice="required")
    ctx = TurnContext(request=q)
    try:
        turns = model._turns([UserMessage(content=q)], params, params.tools, "", ctx)
    except Exception as e:
        res[it.id] = repr(e)
        continue
    res[it.id] = [[t.name for t in p.tools] for _, p, _ in turns]
Path(out).write_text(json.dumps(res, indent=0))
