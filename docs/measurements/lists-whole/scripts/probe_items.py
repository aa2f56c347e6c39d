"""Probe dev-set items with the default local agent: python probe_items.py SPLIT CATS SUBSTRING|ID,ID.. [LIMIT]"""

import asyncio
import json
import sys

from toollab.eval.bfcl.schema import tool_set
from toollab.eval.synth.generate import load_synth
from toollab.harness.messages import UserMessage
from toollab.harness.request import policy_of
from toollab.models.registry import load_model
from toollab.models.switches import Switches


async def main() -> None:
    split, cats, sub = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    items = [it for it in load_synth(cats, split, limit) if sub in it.turns[0][0]["content"] or it.id in sub.split(",")]
    model = load_model("local", switches=Switches())
    policy = policy_of(model)
    for it in items:
        q = it.turns[0][0]["content"]
        tools = tool_set(it.functions, keep_dots=False)
        params = policy.params(tools.specs, after_results=False, request=q)
        reply = await model.request([UserMessage(content=q)], params)
        print(it.id, q, flush=True)
        for c in reply.message.tool_calls:
            print("   got ", c.name, json.dumps(c.arguments, ensure_ascii=False))
        print("   want", json.dumps(it.answer, ensure_ascii=False)[:200], flush=True)


asyncio.run(main())
