"""What a server offers besides tools: resources (data a client reads by URI) and prompts (message templates a
user picks), with completion of their arguments. `toollab mcp serve FILE.py:ATTR` serves a `Served` as one
MCP server; `toollab.interfaces.mcp.server.mcp_server` takes the same parts.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from toollab.tools.content import ContentPart
from toollab.tools.tool import Tool

Completer = Callable[[str], "Iterable[str] | Awaitable[Iterable[str]]"]
"""The values an argument may take that begin like `partial` (what the user has typed so far), best first."""

PromptMessages = str | Sequence[str | ContentPart]
_PARAMETER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Resource:
    """Data a client reads by URI. `read` returns text or bytes (sync or async). A URI with `{name}` parts is a
    template: `read` gets each part as a keyword argument (`test://items/{id}` -> `read(id="7")`), and
    `complete` may map a part's name to its `Completer`."""

    uri: str
    read: Callable[..., str | bytes | Awaitable[str | bytes]]
    name: str = ""
    description: str = ""
    mime_type: str = "text/plain"
    complete: Mapping[str, Completer] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if "://" not in self.uri:
            raise ValueError(f"a resource URI needs a scheme (like test://...), got {self.uri!r}")
        unknown = set(self.complete) - set(self.parameters)
        if unknown:
            raise ValueError(f"resource {self.uri}: completion for {sorted(unknown)}, which the URI does not hold")

    @property
    def parameters(self) -> list[str]:
        return _PARAMETER.findall(self.uri)

    @property
    def is_template(self) -> bool:
        return bool(self.parameters)

    @property
    def title(self) -> str:
        return self.name or self.uri.split("://", 1)[1]


@dataclass(frozen=True)
class Prompt:
    """A message template a user picks by name. `render` takes the prompt's arguments as keyword arguments (its
    signature says which; strings, required unless they have a default) and returns the user's message, or
    several (text and content parts, each its own message). `complete` maps an argument to its `Completer`."""

    name: str
    render: Callable[..., PromptMessages | Awaitable[PromptMessages]]
    description: str = ""
    complete: Mapping[str, Completer] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", self.name):
            raise ValueError(f"prompt name {self.name!r} must be 1-64 letters, digits, '_', '.' or '-'")


@dataclass(frozen=True)
class Served:
    """Everything one server offers: tools, resources and prompts."""

    tools: Sequence[Tool] = ()
    resources: Sequence[Resource] = ()
    prompts: Sequence[Prompt] = ()

    def __post_init__(self) -> None:
        for kind, names in (("resource", [r.uri for r in self.resources]), ("prompt", [p.name for p in self.prompts])):
            repeated = sorted({n for n in names if names.count(n) > 1})
            if repeated:
                raise ValueError(f"two {kind}s are named {repeated[0]!r}")
