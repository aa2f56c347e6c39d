"""Hypothesis strategies for messages and for the untrusted calls models send."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from toollab import AssistantMessage, SystemMessage, ToolCall, ToolResultMessage, UserMessage

text = st.text(max_size=40)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | text
json_values = st.recursive(
    json_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4), max_leaves=12
)
json_objects = st.dictionaries(text, json_values, max_size=5)
ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=12)


@st.composite
def conversations(draw, max_turns: int = 4):
    """A valid conversation: unique call ids, each call followed by its result."""
    messages = []
    if draw(st.booleans()):
        messages.append(SystemMessage(content=draw(text)))
    used: set[str] = set()
    for _ in range(draw(st.integers(1, max_turns))):
        messages.append(UserMessage(content=draw(text)))
        names = draw(st.lists(st.sampled_from(["add", "get_weather", "search"]), max_size=3))
        call_ids = draw(
            st.lists(ids.filter(lambda i: i not in used), min_size=len(names), max_size=len(names), unique=True)
        )
        used.update(call_ids)
        calls = [ToolCall(id=i, name=n, arguments=draw(json_objects)) for i, n in zip(call_ids, names, strict=True)]
        content = draw(st.none() | text.filter(bool))
        messages.append(AssistantMessage(content=content, tool_calls=calls))
        for c in calls:
            messages.append(
                ToolResultMessage(call_id=c.id, name=c.name, content=draw(text), is_error=draw(st.booleans()))
            )
    return messages


# What a model might send as one call: known and unknown names, arguments of every shape, ids repeated or missing.
raw_arguments = (
    json_values
    | json_objects
    | json_objects.map(json.dumps)
    | json_values.map(json.dumps)
    | text
    | json_objects.map(lambda o: json.dumps(o)[:-1])  # cut short
    | st.fixed_dictionaries({"city": json_values})
    | st.fixed_dictionaries({"a": json_values, "b": json_values})
    | st.fixed_dictionaries({"a": st.floats(-1e6, 1e6), "b": st.floats(-1e6, 1e6)})
)
call_names = st.sampled_from(["add", "get_weather", "finish", "boom", "slow", "nap", "Add", ""]) | text
model_calls = st.builds(
    ToolCall,
    id=st.sampled_from(["", "dup", "call_0"]) | ids,
    name=call_names,
    arguments=raw_arguments,
    parse_error=st.none() | st.none() | text,
)
