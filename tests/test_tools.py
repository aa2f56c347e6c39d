from __future__ import annotations

import enum
from typing import Annotated, Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field

from toollab import Tool, tool


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Place(BaseModel):
    """A place on earth."""

    city: str
    country: str | None = None


class Tree(BaseModel):
    value: int
    children: list[Tree] = []


def walk(schema, path=()):
    """Yield (path, subschema) for every schema object in a JSON Schema."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key in ("properties", "$defs"):
        for name, sub in schema.get(key, {}).items():
            yield from walk(sub, (*path, key, name))
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            yield from walk(sub, (*path, key, i))
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from walk(schema[key], (*path, key))


def assert_provider_friendly(schema: dict) -> None:
    """What OpenAI and Anthropic require of a function's parameters, plus our own promises."""
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and isinstance(schema["properties"], dict)
    for path, sub in walk(schema):
        assert "title" not in sub or path[-2:-1] == ("properties",), path
        assert "const" not in sub, path
        if sub.get("type") == "object" and "properties" in sub:
            assert sub.get("additionalProperties") is False, path
        if "$ref" in sub:
            assert sub["$ref"].startswith("#/$defs/") and sub["$ref"][8:] in schema.get("$defs", {}), path


def test_google_docstring_gives_descriptions_and_schema():
    @tool
    def weather(place: Place, unit: Unit = Unit.CELSIUS, days: list[int] | None = None) -> str:
        """Get the weather forecast.

        Longer explanation for the model.

        Args:
            place: Where to look.
            unit: Temperature unit.
            days: Which days ahead, 0 is today.

        Returns:
            The forecast.
        """
        return "sunny"

    assert weather.name == "weather"
    assert weather.description == "Get the weather forecast.\n\nLonger explanation for the model."
    props = weather.parameters["properties"]
    assert props["place"]["description"] == "Where to look."
    assert props["place"]["properties"]["city"] == {"type": "string"}
    assert props["place"]["additionalProperties"] is False
    assert props["unit"]["enum"] == ["celsius", "fahrenheit"] and props["unit"]["default"] == "celsius"
    assert props["days"]["anyOf"] == [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]
    assert props["days"]["default"] is None
    assert weather.parameters["required"] == ["place"]
    assert_provider_friendly(weather.parameters)


def test_numpy_and_rest_docstrings():
    @tool
    def numpy_style(x: int, mode: Literal["a", "b"] = "a") -> int:
        """Double a number.

        Parameters
        ----------
        x : int
            The number.
        mode : str
            How.
        """
        return 2 * x

    @tool
    def rest_style(x: int, flag: Literal["only"]) -> int:
        """Triple a number.

        :param x: The number.
        :param flag: A fixed flag.
        """
        return 3 * x

    assert numpy_style.description == "Double a number."
    assert numpy_style.parameters["properties"]["x"] == {"type": "integer", "description": "The number."}
    assert numpy_style.parameters["properties"]["mode"]["enum"] == ["a", "b"]
    assert rest_style.parameters["properties"]["x"]["description"] == "The number."
    assert rest_style.parameters["properties"]["flag"]["enum"] == ["only"]  # a single Literal: enum, not const
    assert_provider_friendly(numpy_style.parameters)
    assert_provider_friendly(rest_style.parameters)


def test_recursive_models_keep_defs_and_others_are_inlined():
    @tool
    def plant(tree: Tree, where: Place) -> str:
        """Plant a tree."""
        return "ok"

    schema = plant.parameters
    assert schema["properties"]["tree"] == {"$ref": "#/$defs/Tree"}
    assert "Place" not in schema.get("$defs", {})
    assert schema["$defs"]["Tree"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}
    assert_provider_friendly(schema)
    # the validator follows the refs
    assert plant.check({"tree": {"value": 1, "children": [{"value": 2}]}, "where": {"city": "Oslo"}}) == []
    problems = plant.check({"tree": {"value": 1, "children": [{"value": "x"}]}, "where": {"city": "Oslo"}})
    assert [p.path for p in problems] == ["tree.children[0].value"]


def test_annotated_field_description_and_no_parameters():
    @tool
    def ping() -> str:
        """Check the service."""
        return "pong"

    @tool
    def search(query: Annotated[str, Field(description="What to look for", min_length=1)]) -> str:
        return query

    assert ping.parameters == {"type": "object", "properties": {}, "additionalProperties": False}
    assert search.parameters["properties"]["query"] == {
        "description": "What to look for",
        "minLength": 1,
        "type": "string",
    }
    assert search.description == ""
    assert_provider_friendly(search.parameters)


async def test_async_tools_are_recognised_and_tools_stay_callable():
    @tool(timeout=2, side_effects=True, exclusive=True, idempotent=True, name="renamed")
    async def act(x: int) -> int:
        """Act."""
        return x + 1

    assert act.is_async and act.name == "renamed" and act.timeout == 2
    assert act.side_effects and act.exclusive and act.idempotent
    assert await act(1) == 2

    def plain() -> int:
        return 1

    assert not tool(plain).is_async


def test_bind_converts_nested_models_and_enums():
    seen = {}

    @tool
    def weather(place: Place, unit: Unit = Unit.CELSIUS) -> str:
        """Weather."""
        seen.update(place=place, unit=unit)
        return "ok"

    weather.bind({"place": {"city": "Oslo"}, "unit": "fahrenheit"})()
    assert seen == {"place": Place(city="Oslo"), "unit": Unit.FAHRENHEIT}


def test_raw_schema_tools_take_one_dict():
    schema = {"type": "object", "properties": {"user-id": {"type": "string"}}, "required": ["user-id"]}
    t = Tool.from_schema("get-user", "Fetch a user.", schema, lambda args: args["user-id"].upper())
    assert t.bind({"user-id": "ab"})() == "AB"
    assert t.spec.to_dict() == {"name": "get-user", "description": "Fetch a user.", "parameters": schema}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Tool.from_schema("bad name", "", {"type": "object"}, print), "must be 1-64"),
        (lambda: Tool.from_schema("x" * 65, "", {"type": "object"}, print), "must be 1-64"),
        (lambda: Tool.from_schema("t", "", {"type": "array"}, print), "JSON object schema"),
        (lambda: Tool.from_schema("t", "", {"type": "object", "properties": 3}, print), "invalid JSON Schema"),
        (lambda: Tool.from_schema("t", "", {"type": "object"}, print, timeout=0), "timeout must be positive"),
    ],
)
def test_bad_tool_definitions_are_refused_clearly(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_functions_that_cannot_be_described_are_refused():
    def star(*args: int) -> None: ...
    def private(_x: int) -> None: ...
    def positional(x: int, /) -> None: ...

    for fn, message in ((star, r"\*args"), (private, "may not start"), (positional, "positional-only")):
        with pytest.raises(TypeError, match=message):
            tool(fn)


def test_an_object_with_an_async_call_is_an_async_tool():
    import asyncio

    from toollab.harness import Dispatcher
    from toollab.models import call

    class Fetch:
        async def __call__(self, arguments):
            await asyncio.sleep(0)
            return f"fetched {arguments['url']}"

    t = Tool.from_schema(
        "fetch", "Fetch a URL.", {"type": "object", "properties": {"url": {"type": "string"}}}, Fetch()
    )
    assert t.is_async
    result = asyncio.run(Dispatcher([t]).dispatch(call("fetch", {"url": "x"}, "c")))
    assert result.content == "fetched x" and not result.is_error
