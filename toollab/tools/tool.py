"""The `Tool` type and the `@tool` decorator."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack, overload

from pydantic import BaseModel, ValidationError

from toollab.tools.docstrings import parse_docstring
from toollab.tools.schema import arguments_model, clean_schema
from toollab.tools.validation import ArgumentProblem, ArgumentValidator, format_path, show

# What OpenAI and Anthropic accept as a function name.
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def safe_name(name: str) -> str:
    """A tool name every provider accepts (^[A-Za-z0-9_-]{1,64}$): other characters become '_' (as BFCL's own
    handlers turn dots into '_'), and the name is cut at 64."""
    return _INVALID_NAME_CHARS.sub("_", name)[:64] or "_"


class ToolError(Exception):
    """Raise inside a tool to send `message` to the model as the error result, verbatim."""


class InvalidArguments(Exception):
    """Arguments that do not fit the tool; carries the problems for the model."""

    def __init__(self, problems: list[ArgumentProblem]):
        super().__init__("; ".join(map(str, problems)))
        self.problems = problems


class ToolOptions(TypedDict, total=False):
    """What `@tool(...)` and `Tool.from_function` accept besides the function."""

    name: str | None
    description: str | None
    timeout: float | None
    side_effects: bool
    exclusive: bool
    idempotent: bool


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What a model is told about a tool: its name, description and JSON Schema of arguments."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass(eq=False)
class Tool:
    """A function a model may ask to run.

    `function` receives the validated arguments: as keyword arguments for tools made with `@tool`, as one dict
    for tools made with `Tool.from_schema` (MCP, OpenAPI and BFCL tools, whose names need not be identifiers).

    Options: `timeout` in seconds; `side_effects` (runs only when the agent's approver says yes); `exclusive`
    (never runs beside another call); `idempotent` (safe to run again when a resumed run finds it unfinished);
    `validate=False` passes arguments on unchecked, for a tool whose backend judges its own input (BFCL's
    environments do, and scoring must see what they do with a call that breaks the schema).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any]
    timeout: float | None = None
    side_effects: bool = False
    exclusive: bool = False
    idempotent: bool = False
    validate: bool = True
    _arguments_model: type[BaseModel] | None = field(default=None, repr=False)
    _validator: ArgumentValidator = field(init=False, repr=False)
    is_async: bool = field(init=False)
    spec: ToolSpec = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ValueError(f"tool name {self.name!r} must be 1-64 letters, digits, '_' or '-'")
        if not isinstance(self.parameters, dict) or self.parameters.get("type", "object") != "object":
            raise ValueError(f"tool {self.name!r}: the argument schema must be a JSON object schema")
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(f"tool {self.name!r}: timeout must be positive, got {self.timeout!r}")
        self._validator = ArgumentValidator(self.parameters)
        # an object with an async __call__ is async too (inspect does not see through it)
        self.is_async = inspect.iscoroutinefunction(self.function) or inspect.iscoroutinefunction(
            type(self.function).__call__
        )
        self.spec = ToolSpec(self.name, self.description, self.parameters)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], **options: Unpack[ToolOptions]) -> Tool:
        """A tool of a function: name and descriptions from it and its docstring unless given."""
        doc = parse_docstring(fn)
        model = arguments_model(fn, doc.params)
        description = options.get("description")
        return cls(
            name=options.get("name") or fn.__name__,
            description=description if description is not None else doc.description,
            parameters=clean_schema(model.model_json_schema()),
            function=fn,
            timeout=options.get("timeout"),
            side_effects=options.get("side_effects", False),
            exclusive=options.get("exclusive", False),
            idempotent=options.get("idempotent", False),
            _arguments_model=model,
        )

    @classmethod
    def from_schema(
        cls,
        name: str,
        description: str,
        parameters: dict[str, Any],
        function: Callable[[dict[str, Any]], Any],
        **options: Any,
    ) -> Tool:
        """A tool from a raw JSON Schema; `function` is called with the validated arguments dict."""
        return cls(name=name, description=description, parameters=parameters, function=function, **options)

    def check(self, arguments: dict[str, Any]) -> list[ArgumentProblem]:
        """Problems with `arguments` against the schema the model saw; empty when they fit (or are not checked)."""
        return self._validator.problems(arguments) if self.validate else []

    def bind(self, arguments: dict[str, Any]) -> Callable[[], Any | Awaitable[Any]]:
        """A zero-argument callable that runs the tool on already-checked arguments.

        For `@tool` functions pydantic turns nested objects into their models and enum values into members;
        a custom validator in a user's model may still refuse them, which raises `InvalidArguments`.
        """
        if self._arguments_model is None:
            return functools.partial(self.function, arguments)
        try:
            parsed = self._arguments_model.model_validate(arguments)
        except ValidationError as exc:
            raise InvalidArguments(
                [
                    ArgumentProblem(format_path(e["loc"]), f"got {show(e.get('input'))}; {e['msg']}")
                    for e in exc.errors()
                ]
            ) from None
        kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        return functools.partial(self.function, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly, as if it were not a tool."""
        return self.function(*args, **kwargs)


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(**options: Unpack[ToolOptions]) -> Callable[[Callable[..., Any]], Tool]: ...
def tool(
    fn: Callable[..., Any] | None = None, /, **options: Unpack[ToolOptions]
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a tool of a sync or async function: `@tool` or `@tool(timeout=5, side_effects=True)`."""
    if fn is not None:
        return Tool.from_function(fn, **options)
    return lambda f: Tool.from_function(f, **options)
