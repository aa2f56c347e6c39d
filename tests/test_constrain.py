"""Grammars of constrained turns: what each format and tool choice accepts and refuses (xgrammar, no model)."""

from __future__ import annotations

import json

import pytest
import xgrammar as xgr

from toollab.constrain import constrainable, pythonic_grammar, structural_tag
from toollab.formats import get_format
from toollab.harness import ToolCall
from toollab.harness.request import RequestParams
from toollab.tools import ToolSpec

ADD = ToolSpec(
    "add",
    "Add two numbers.",
    {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
)
UNITS = ToolSpec(
    "math.convert",
    "Convert units.",
    {
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "unit": {"type": "string", "enum": ["km", "mi"]},
            "exact": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["value", "unit"],
        "additionalProperties": False,
    },
)
TOOLS = [ADD, UNITS]


def choice(mode: str, parallel: bool = True, tools=TOOLS) -> RequestParams:
    return RequestParams(tools, mode, parallel)


def accepts(format: str, params: RequestParams, text: str) -> bool:
    grammar = xgr.Grammar.from_structural_tag(json.dumps(structural_tag(get_format(format), params)))
    return xgr.testing._is_grammar_accept_string(grammar, text)


def written(format: str, *calls: tuple[str, dict]) -> str:
    """Calls as the format itself writes them (the grammar must accept what the parser reads)."""
    return get_format(format).render_calls([ToolCall(name=name, arguments=args) for name, args in calls])


ADD_CALL = ("add", {"a": 1, "b": 2})
CONVERT_CALL = ("math.convert", {"value": 3, "unit": "km"})


def calls(format: str, *which: int) -> str:
    return written(format, *[(ADD_CALL, CONVERT_CALL)[i] for i in which])


def test_the_formats_with_an_envelope_are_the_constrainable_ones():
    assert constrainable() == ["hermes", "pythonic", "text", "code"]


@pytest.mark.parametrize("format", ["hermes", "text", "pythonic"])
def test_each_tool_choice_accepts_exactly_what_it_should(format):
    one, two = calls(format, 0), calls(format, 0, 1)
    prose = "I can answer that without a tool."
    assert accepts(format, choice("auto"), one)
    assert accepts(format, choice("auto"), prose)
    assert accepts(format, choice("auto"), f"Let me add. {one}")
    assert accepts(format, choice("auto"), two)
    assert not accepts(format, choice("auto"), f"{one}\nand some text after the call")
    assert accepts(format, choice("required"), one) and accepts(format, choice("required"), two)
    assert not accepts(format, choice("required"), prose)
    assert not accepts(format, choice("required"), f"Let me add. {one}")
    assert not accepts(format, choice("required", parallel=False), two)
    assert accepts(format, choice("none"), prose) and not accepts(format, choice("none"), one)
    if format == "hermes":  # nor any tag: broken calls the shipped adapter wrote as answers
        for broken in ('<tool_call id="add">', "<tool_call\n>", "<tool_callog>", "<tool_ call>", "<function-name>"):
            assert not accepts(format, choice("none"), one.replace("<tool_call>", broken))
            assert not accepts(format, choice("auto"), f"Sure. {one.replace('<tool_call>', broken)}")
        assert not accepts(format, choice("none"), "banana</tool_call>")
        assert accepts(format, choice("none"), "The opposite of 'up' is 'down' (and 3 > 2).")
    assert accepts(format, choice("math.convert"), calls(format, 1))
    assert not accepts(format, choice("math.convert"), one)


@pytest.mark.parametrize("format", ["hermes", "text"])
def test_json_arguments_must_match_the_schema_exactly(format):
    def write(name, args):
        return written(format, (name, args))

    required = choice("required")
    assert accepts(format, required, write("math.convert", {"value": 3, "unit": "mi", "exact": True, "tags": ["x"]}))
    assert not accepts(format, required, write("math.convert", {"value": 3}))  # a required field missing
    assert not accepts(format, required, write("math.convert", {"value": 3.5, "unit": "km"}))  # wrong type
    assert not accepts(format, required, write("math.convert", {"value": 3, "unit": "m"}))  # not in the enum
    assert not accepts(format, required, write("add", {"a": 1, "b": 2, "c": 3}))  # an extra field
    assert not accepts(format, required, write("subtract", {"a": 1, "b": 2}))  # not an offered tool
    pretty = '<tool_call>\n{"name": "add", "arguments": {\n    "a": 1,\n    "b": 2\n}}\n</tool_call>'
    assert not accepts("hermes", required, pretty)  # no pretty-printing: it costs a small model tokens


def test_pythonic_values_are_python_literals_of_the_schema_types():
    required = choice("required")
    ok = [
        "[math.convert(value=3, unit='km')]",
        "[math.convert(value=-3, unit='mi', exact=True, tags=['a', \"b\"])]",
        "[add(a=1.5, b=2e3)]",
    ]
    bad = [
        "[math.convert(unit='km')]",  # required value missing
        "[math.convert(value=3.0, unit='km')]",  # a float for an integer
        "[math.convert(value=3, unit='m')]",  # not in the enum
        "[math.convert(value=3, unit='km', exact=true)]",  # JSON, not Python
        "[math.convert(3, 'km')]",  # positional
        "[add(a=1, b=2, c=3)]",  # an extra argument
        "[math.convert(unit='km', value=3)]",  # out of the schema's order
    ]
    assert all(accepts("pythonic", required, s) for s in ok)
    assert not any(accepts("pythonic", required, s) for s in bad)


def test_pythonic_grammar_is_plain_ebnf():
    grammar = pythonic_grammar([ADD], parallel=False)
    assert grammar.startswith('root ::= "[" ') and "add(" in grammar
    assert xgr.testing._is_grammar_accept_string(xgr.Grammar.from_ebnf(grammar), "[add(a=1, b=2)]")


def test_bad_choices_and_formats_are_clear_errors():
    with pytest.raises(ValueError, match="names no offered tool"):
        structural_tag(get_format("hermes"), choice("subtract"))
    with pytest.raises(ValueError, match="supports the formats hermes, pythonic, text, code, not 'mistral'"):
        structural_tag(get_format("mistral"), choice("auto"))
    with pytest.raises(ValueError, match="tool choice must be"):
        RequestParams(TOOLS, " ")


FINISH = ToolSpec(
    "finish",
    "Ends the task.",
    {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    },
)


@pytest.mark.parametrize("format", ["hermes", "text", "pythonic"])
@pytest.mark.parametrize("mode", ["auto", "required"])
def test_a_turn_holds_calls_or_a_finish_alone(format, mode):
    params = RequestParams([*TOOLS, FINISH], mode, parallel=True, finish="finish")
    finish = written(format, ("finish", {"answer": "8"}))
    assert accepts(format, params, calls(format, 0, 1))
    assert accepts(format, params, finish)
    if format == "pythonic":
        both = written(format, ADD_CALL, ("finish", {"answer": "8"}))
    else:
        both = f"{calls(format, 0)}\n{finish}"
    assert not accepts(format, params, both)
    assert not accepts(format, params, f"{finish}\n{finish}")
    assert accepts(format, params, "It is 8.") == (mode == "auto")
    alone = RequestParams([FINISH], mode, finish="finish")  # only the finish offered
    assert accepts(format, alone, finish) and not accepts(format, alone, f"{finish}\n{finish}")


def test_the_code_format_holds_a_turn_to_prose_or_prose_then_one_program():
    from toollab.harness.code_actions import CODE_ACTION

    program = ToolSpec(CODE_ACTION, "Run a program.", {"type": "object", "properties": {"code": {"type": "string"}}})
    block = written("code", (CODE_ACTION, {"code": "x = add(a=1, b=2)\nprint(x * 2)"}))
    assert block == "```python\nx = add(a=1, b=2)\nprint(x * 2)\n```"
    auto, required = RequestParams([program], "auto"), RequestParams([program], "required")
    assert accepts("code", auto, block) and accepts("code", auto, f"First I add.\n{block}")
    assert accepts("code", auto, "It is 6.") and not accepts("code", required, "It is 6.")
    assert accepts("code", required, block) and not accepts("code", required, f"Text.\n{block}")
    assert not accepts("code", auto, f"{block}\n{block}")  # one program a turn
    assert not accepts("code", auto, f"{block}\nand text after it")
    assert not accepts("code", RequestParams([program], "none"), block)
    parsed = get_format("code").parse(f"First I add.\n{block}", [program])
    assert parsed.content == "First I add." and parsed.tool_calls[0].name == CODE_ACTION
    assert parsed.tool_calls[0].arguments == {"code": "x = add(a=1, b=2)\nprint(x * 2)"}
    assert get_format("code").parse("It is 6.", [program]).tool_calls == []
