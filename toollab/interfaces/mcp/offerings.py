"""Resources, prompts, completion and resource subscriptions of a toollab MCP server (`toollab.tools.served`)."""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Sequence
from typing import Any

from fastmcp import FastMCP
from fastmcp.prompts import Message
from fastmcp.prompts import Prompt as FastMCPPrompt
from fastmcp.resources import Resource as FastMCPResource
from fastmcp.resources import ResourceTemplate as FastMCPTemplate
from mcp.types import (
    CompletionArgument,
    CompletionContext,
    EmptyResult,
    PromptReference,
    ResourceTemplateReference,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)

from toollab.interfaces.mcp.content import mcp_content
from toollab.tools.content import PART_TYPES
from toollab.tools.served import Completer, Prompt, PromptMessages, Resource, Served


async def _awaited(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def add_resource(server: FastMCP, resource: Resource) -> None:
    """A resource, or a resource template when its URI has `{name}` parts."""
    name, description, mime_type = resource.title, resource.description, resource.mime_type
    if resource.is_template:
        server.add_template(
            FastMCPTemplate.from_function(
                resource.read, resource.uri, name=name, description=description, mime_type=mime_type
            )
        )
    else:
        server.add_resource(
            FastMCPResource.from_function(
                resource.read, resource.uri, name=name, description=description, mime_type=mime_type
            )
        )


def messages(rendered: PromptMessages) -> list[Message]:
    """A prompt's rendering as user messages: one for a string, one per item of a list."""
    items = [rendered] if isinstance(rendered, str) else list(rendered)
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(Message(item))
        elif isinstance(item, PART_TYPES):
            out.append(Message(mcp_content(item)))
        else:
            raise TypeError(f"a prompt renders strings and content parts, not {type(item).__name__}")
    return out


def add_prompt(server: FastMCP, prompt: Prompt) -> None:
    @functools.wraps(prompt.render)  # keeps the signature: the prompt's arguments
    async def render(**arguments: Any) -> list[Message]:
        return messages(await _awaited(prompt.render(**arguments)))

    server.add_prompt(FastMCPPrompt.from_function(render, name=prompt.name, description=prompt.description))


def completion_handler(served: Served) -> Any:
    """Answers `completion/complete` from the prompts' and resource templates' completers."""
    prompts = {p.name: p.complete for p in served.prompts}
    templates = {r.uri: r.complete for r in served.resources if r.is_template}

    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> list[str]:
        completers = prompts.get(ref.name, {}) if isinstance(ref, PromptReference) else templates.get(ref.uri, {})
        completer: Completer | None = completers.get(argument.name)
        if completer is None:
            return []
        return [str(v) for v in await _awaited(completer(argument.value))]

    return complete


class Subscriptions:
    """Which sessions follow which resource URIs (`resources/subscribe`); `updated(uri)` tells them it changed."""

    def __init__(self) -> None:
        self._followers: dict[str, weakref.WeakSet[Any]] = {}

    def follow(self, uri: str, session: Any) -> None:
        self._followers.setdefault(uri, weakref.WeakSet()).add(session)

    def leave(self, uri: str, session: Any) -> None:
        self._followers.get(uri, weakref.WeakSet()).discard(session)

    def following(self, uri: str) -> Sequence[Any]:
        return list(self._followers.get(uri, ()))

    async def updated(self, uri: str) -> None:
        for session in self.following(uri):
            await session.send_resource_updated(uri)

    def serve(self, server: FastMCP) -> None:
        """Answer subscribe and unsubscribe requests (which also declares the capability)."""

        async def subscribe(context: Any, params: SubscribeRequestParams) -> EmptyResult:
            self.follow(str(params.uri), context.session)
            return EmptyResult()

        async def unsubscribe(context: Any, params: UnsubscribeRequestParams) -> EmptyResult:
            self.leave(str(params.uri), context.session)
            return EmptyResult()

        low_level = server._mcp_server  # fastmcp has no public hook for these two requests
        low_level.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
        low_level.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)


def serve_offerings(server: FastMCP, served: Served, subscriptions: Subscriptions) -> None:
    for resource in served.resources:
        add_resource(server, resource)
    for prompt in served.prompts:
        add_prompt(server, prompt)
    if any(p.complete for p in served.prompts) or any(r.complete for r in served.resources):
        server.add_completion_handler(completion_handler(served))
    if served.resources:
        subscriptions.serve(server)
