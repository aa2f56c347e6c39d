"""Score the default local agent on requests written by hand for the dev set's tools, in forms people use that the
dev set's generator does not write ("as well as", "what about ...", cases side by side, a question joined by
"and"): each line of forms.jsonl is a request, and the calls it wants (tool, arguments). A turn is right when it
makes as many calls as wanted and each wanted call is among them (numbers compared as numbers; arguments not
listed are not checked). A line may bring its own tools, written by hand ("functions"), for shapes no dev tool has
(a list of numbers). None of it comes from BFCL.

    .venv/bin/python docs/measurements/cases/forms.py docs/measurements/cases/forms.jsonl
    PYTHONPATH=/path/to/other/checkout .venv/bin/python docs/measurements/cases/forms.py ...   # another revision
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from toollab.eval.bfcl.schema import tool_set
from toollab.eval.synth.generate import families, function_doc
from toollab.harness.arguments import UnreadableArguments
from toollab.harness.messages import ToolCall, UserMessage
from toollab.harness.request import policy_of
from toollab.models.registry import load_model
from toollab.models.switches import Switches


def matches(call: ToolCall, tool: str, arguments: dict[str, Any]) -> bool:
    if call.name != tool:
        return False
    try:
        got = call.args_as_dict()
    except UnreadableArguments:  # model output: a wrong call, not a crash of the scorer
        return False
    for key, want in arguments.items():
        value = got.get(key)
        if isinstance(want, (int, float)) and not isinstance(want, bool):
            if not isinstance(value, (int, float)) or abs(float(value) - want) > 1e-9:
                return False
        elif value != want:
            return False
    return True


async def main(path: str) -> None:
    model = load_model("local", switches=Switches())
    policy = policy_of(model)
    docs = {fn.name: function_doc(fn) for family in families("dev") for fn in family.functions}
    with open(path) as lines:
        rows = [json.loads(line) for line in lines]
    right = 0
    for row in rows:
        # the dev set's tools by name, or tools written by hand with the row ("functions", BFCL's shape)
        wanted = [docs[name] for name in dict.fromkeys(t for t, _ in row["want"])] if "functions" not in row else []
        tools = tool_set(row.get("functions", wanted), keep_dots=False)
        params = policy.params(tools.specs, after_results=False, request=row["request"])
        reply = await model.request([UserMessage(content=row["request"])], params)
        calls = list(reply.message.tool_calls)
        ok = len(calls) == len(row["want"]) and all(any(matches(c, t, a) for c in calls) for t, a in row["want"])
        right += ok
        print("RIGHT" if ok else "WRONG", row["request"])
        for call in calls:
            print("     ", call.name, json.dumps(call.arguments))
    print(f"{right} / {len(rows)} right")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
