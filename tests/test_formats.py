from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toollab import AssistantMessage, SystemMessage, ToolCall, ToolResultMessage, ToolSpec, UserMessage, add
from toollab.formats import FORMATS, get_format
from toollab.models.local import stop_at

names = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)
keys = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(-1e6, 1e6, allow_nan=False) | texts
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=8
)
calls = st.lists(
    st.builds(lambda n, a: ToolCall(name=n, arguments=a), names, st.dictionaries(keys, values, max_size=4)),
    min_size=1,
    max_size=3,
)


def schema_for(call: ToolCall) -> ToolSpec:
    """A spec whose parameter types match the call (qwen3_coder reads string parameters by the schema)."""
    kinds = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}
    props = {k: ({"type": kinds[type(v)]} if type(v) in kinds else {}) for k, v in call.arguments.items()}
    return ToolSpec(call.name, "", {"type": "object", "properties": props})


def same_calls(parsed, original):
    assert [(c.name, c.arguments) for c in parsed] == [(c.name, c.arguments) for c in original]
    assert not any(c.parse_error for c in parsed)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(set(FORMATS) - {"code"})), calls, st.sampled_from(["", "Let me check. ", "ok\n\n"]))
def test_render_then_parse_gives_the_same_calls(name, original, prefix):
    if name == "qwen3_coder":  # one call per name there: the schema decides how a value is read
        original = list({c.name: c for c in original}.values())
    fmt = get_format(name)
    tools = [schema_for(c) for c in original]
    text = prefix + fmt.render_calls(original)
    parsed = fmt.parse(text, tools)
    same_calls(parsed.tool_calls, original)
    assert parsed.raw == text
    assert parsed.content == (prefix.strip() or None)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=80), st.sampled_from(["", "Let me add. "]))
def test_the_code_format_gives_back_the_program(code, prefix):
    from hypothesis import assume

    assume("```" not in code and not code.endswith("`") and code.strip() == code and code)
    program = ToolSpec("python", "", {"type": "object", "properties": {"code": {"type": "string"}}})
    original = [ToolCall(name="python", arguments={"code": code})]  # one program a turn, the format's one call
    text = prefix + get_format("code").render_calls(original)
    parsed = get_format("code").parse(text, [program])
    same_calls(parsed.tool_calls, original)
    assert parsed.content == (prefix.strip() or None)


def test_published_shapes():
    call = [ToolCall(name="get_weather", arguments={"city": "Paris"})]
    assert get_format("hermes").render_calls(call) == (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    )
    assert get_format("qwen3_coder").render_calls(call) == (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
    )
    assert (
        get_format("mistral").render_calls(call)
        == '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    )
    assert get_format("llama3_json").render_calls(call * 2) == (
        '{"name": "get_weather", "parameters": {"city": "Paris"}}; '
        '{"name": "get_weather", "parameters": {"city": "Paris"}}'
    )
    assert get_format("pythonic").render_calls(call) == "[get_weather(city='Paris')]"
    assert get_format("text").render_calls(call) == 'CALL {"tool": "get_weather", "args": {"city": "Paris"}}'
    assert get_format("deepseek_v3").render_calls(call) == (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )


def parse(name, text, tools=(add.spec,)):
    return get_format(name).parse(text, tools)


def test_sloppy_but_readable_output_is_accepted():
    fenced = parse("hermes", 'Here:\n```json\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n```')
    assert [(c.name, c.arguments) for c in fenced.tool_calls] == [("add", {"a": 1, "b": 2})]
    assert fenced.content == "Here:"
    as_string = parse("hermes", '<tool_call>{"name": "add", "arguments": "{\\"a\\": 1}"}</tool_call>')
    assert as_string.tool_calls[0].arguments == '{"a": 1}'  # decoded at dispatch, like any string arguments
    unclosed = parse("hermes", '<tool_call>\n{"name": "add", "arguments": {}}\n')
    assert unclosed.tool_calls[0].name == "add" and unclosed.tool_calls[0].parse_error is None
    empty = parse("hermes", '<tool_call>{"name": "add"}</tool_call>')
    assert empty.tool_calls[0].arguments == {}
    assert parse("mistral", '[TOOL_CALLS]add[ARGS]{"a": 1}[TOOL_CALLS]add[ARGS]{"a": 2}').tool_calls[1].arguments == {
        "a": 2
    }
    assert parse("pythonic", "```python\n[add(a=1, b=2)]\n```").tool_calls[0].arguments == {"a": 1, "b": 2}
    assert parse("pythonic", "add(a=1)").tool_calls[0].name == "add"
    assert parse("pythonic", "[math.factorial(number=5)]").tool_calls[0].name == "math.factorial"
    keywords = parse("pythonic", "[or(class=1, lambda_=2)]").tool_calls[0]  # names that are Python keywords
    assert (keywords.name, keywords.arguments) == ("or", {"class": 1, "lambda_": 2})
    assert parse("llama3_json", '<|python_tag|>{"name": "add", "parameters": {"a": 1}}').tool_calls[0].arguments == {
        "a": 1
    }
    v31 = parse(
        "deepseek_v3", '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>add<｜tool▁sep｜>{"a": 1}<｜tool▁call▁end｜>'
    )
    assert v31.tool_calls[0].arguments == {"a": 1}
    assert parse("text", "thinking...\nANSWER: 42").content == "42"
    assert parse("text", "I will CALL her later.").tool_calls == []


def test_unreadable_calls_become_parse_errors_never_dropped():
    cases = {
        "hermes": '<tool_call>{"name": "add", "arguments": {"a": 1,}}</tool_call>',
        "qwen3_coder": "<tool_call>\n<function=add>\nstray text\n</function>\n</tool_call>",
        "mistral": '[TOOL_CALLS]add[ARGS]{"a": }',
        "llama3_json": "<|python_tag|>add(a=1)",
        "deepseek_v3": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>add\n"
        "```json\n{a: 1}\n```<｜tool▁call▁end｜>",
        "pythonic": "[add(1, 2)]",
        "text": "CALL {tool: add}",
    }
    for name, text in cases.items():
        parsed = parse(name, text)
        assert len(parsed.tool_calls) == 1, name
        error = parsed.tool_calls[0].parse_error
        assert error and "Expected" in error, (name, error)
    assert parse("hermes", '<tool_call>{"name": "add", "arguments": {"a": 1,}}</tool_call>').tool_calls[0].name == "add"


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FORMATS)), st.text(max_size=200))
def test_parse_never_raises(name, text):
    parsed = get_format(name).parse(text, [add.spec])
    assert parsed.raw == text


def test_conversation_rendering_for_a_chat_template():
    fmt = get_format("hermes")
    messages = [
        SystemMessage(content="Be brief."),
        UserMessage(content="1+2?"),
        AssistantMessage(tool_calls=[ToolCall(id="a", name="add", arguments={"a": 1, "b": 2})]),
        ToolResultMessage(call_id="a", name="add", content="3.0"),
        AssistantMessage(content="3", raw="It is 3"),
    ]
    chat = fmt.to_chat(messages, [add.spec])
    assert [m["role"] for m in chat] == ["system", "user", "assistant", "user", "assistant"]
    assert chat[0]["content"].startswith("Be brief.\n\n# Tools") and '"name": "add"' in chat[0]["content"]
    assert chat[2]["content"] == fmt.render_calls(messages[2].tool_calls)
    assert chat[3]["content"] == "<tool_response>\n3.0\n</tool_response>"
    assert chat[4]["content"] == "It is 3"  # the raw text the model wrote, verbatim
    no_system = fmt.to_chat(messages[1:], [add.spec])
    assert no_system[0]["role"] == "system" and no_system[0]["content"].startswith("# Tools")
    assert fmt.to_chat(messages[1:2], [])[0] == {"role": "user", "content": "1+2?"}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_the_result_marker_is_how_the_format_writes_results(name):
    fmt = get_format(name)
    shown = fmt.render_results([ToolResultMessage(call_id="c1", name="add", content="3.0")])
    if fmt.result_marker is None:  # results shown bare: nothing marks a result the model invents
        assert shown == "3.0"
    else:
        assert fmt.result_marker in shown  # (pythonic writes the tool's name before it)


def test_decoding_stops_where_the_model_starts_inventing_a_result():
    assert stop_at("The sum is 3.", ("\n\n",), "<tool_response>") is None
    assert stop_at("Done.<tool_response>\n3.0", ("\n\n",), "<tool_response>") == ("Done.", "invented_result")
    assert stop_at("Done.\n\n<tool_response>", ("\n\n",), "<tool_response>") == ("Done.", "stop")
    assert stop_at("<tool_response>", ("<tool",), "<tool_response>") == ("", "invented_result")  # a tie: inventing
    assert stop_at("x RESULT {", (), None) is None
