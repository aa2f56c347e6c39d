"""An OpenAPI 3 service as toollab tools: one tool per operation, calling the service with httpx.

The tool's arguments are the operation's path, query and header parameters and the fields of its JSON body,
in one object schema. The credential goes where the document's security scheme says (a header, the query, or
a bearer token); it is never a tool argument, and nothing the model sends is forwarded as a header except the
header parameters the document declares. Error bodies reach the model with known secrets scrubbed and long
bodies cut.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from toollab.interfaces.secrets import MAX_BODY_CHARS, Scrubber, cut
from toollab.tools import Tool, ToolError, safe_name

METHODS = ("get", "post", "put", "patch", "delete")
MAX_RESULT_CHARS = 20_000


def load_spec(source: str | Path | Mapping[str, Any], *, timeout: float = 30.0) -> dict[str, Any]:
    """An OpenAPI document from a dict, a URL or a file (JSON or YAML), with its `$ref`s resolved."""
    import jsonref
    import yaml

    if isinstance(source, Mapping):
        data: Any = dict(source)
    else:
        text = str(source)
        try:
            if text.startswith(("http://", "https://")):
                response = httpx.get(text, timeout=timeout)
                response.raise_for_status()
                raw = response.text
            else:
                raw = Path(text).read_text(encoding="utf-8")
            data = yaml.safe_load(raw)  # YAML is a superset of JSON
        except (OSError, httpx.HTTPError, yaml.YAMLError) as exc:
            raise ValueError(f"cannot read the OpenAPI document {text}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("paths"), dict):
        raise ValueError("not an OpenAPI document: it has no `paths` object")
    return jsonref.replace_refs(data, proxies=False, lazy_load=False)


@dataclass(frozen=True)
class Credential:
    """Where the service's key goes, read from the document's security schemes."""

    headers: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)

    @property
    def header_names(self) -> set[str]:
        return {h.lower() for h in self.headers}


def credential_for(spec: Mapping[str, Any], key: str | None) -> Credential:
    """The first apiKey (header or query) or HTTP bearer scheme; a bearer token when the document names none."""
    if not key:
        return Credential()
    schemes = spec.get("components", {}).get("securitySchemes", {}) or {}
    for scheme in schemes.values():
        kind = scheme.get("type")
        if kind == "apiKey" and scheme.get("in") == "header":
            return Credential(headers={scheme["name"]: key})
        if kind == "apiKey" and scheme.get("in") == "query":
            return Credential(query={scheme["name"]: key})
        if kind == "http" and str(scheme.get("scheme", "")).lower() == "bearer":
            return Credential(headers={"Authorization": f"Bearer {key}"})
    return Credential(headers={"Authorization": f"Bearer {key}"})


@dataclass(frozen=True)
class _Operation:
    method: str
    path: str
    locations: dict[str, tuple[str, str]]  # argument -> (path | query | header | body, name in the request)
    body_is_whole: bool  # the JSON body is one argument named "body" (not an object with fields)


def _schema_of(parameter: Mapping[str, Any]) -> dict[str, Any]:
    schema = dict(parameter.get("schema") or {"type": "string"})
    if parameter.get("description") and "description" not in schema:
        schema["description"] = parameter["description"]
    return schema


def _operation_tool_parts(
    path: str, method: str, item: Mapping[str, Any], op: Mapping[str, Any], credential: Credential
) -> tuple[dict[str, Any], _Operation]:
    params: dict[tuple[str, str], Mapping[str, Any]] = {}
    for p in [*item.get("parameters", []), *op.get("parameters", [])]:
        params[(p["name"], p["in"])] = p  # the operation's own override the path item's
    properties: dict[str, Any] = {}
    required: list[str] = []
    locations: dict[str, tuple[str, str]] = {}
    for (name, where), p in params.items():
        if where == "cookie" or (where == "header" and name.lower() in {"authorization", *credential.header_names}):
            continue  # credentials are the gateway's business, never the model's
        if where == "query" and name in credential.query:
            continue
        arg = safe_name(name) if safe_name(name) not in locations else safe_name(f"{where}_{name}")
        properties[arg] = _schema_of(p)
        locations[arg] = (where, name)
        if p.get("required") or where == "path":
            required.append(arg)
    body_is_whole = False
    content = (op.get("requestBody") or {}).get("content", {})
    body = (content.get("application/json") or {}).get("schema")
    if body is not None:
        fields = body.get("properties") if body.get("type", "object") == "object" else None
        if fields and not set(map(safe_name, fields)) & set(locations):
            for name, schema in fields.items():
                properties[safe_name(name)] = schema
                locations[safe_name(name)] = ("body", name)
            required += [safe_name(n) for n in body.get("required", [])]
        else:
            body_is_whole = True
            properties["body"] = body
            locations["body"] = ("body", "")
            if (op.get("requestBody") or {}).get("required"):
                required.append("body")
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return schema, _Operation(method, path, locations, body_is_whole)


def openapi_tools(
    spec: str | Path | Mapping[str, Any],
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    secrets: Iterable[str | None] = (),
    timeout: float = 30.0,
    prefix: str = "",
) -> list[Tool]:
    """Tools for every operation of the document. `api_key` is sent as its security scheme says; it and
    `secrets` are scrubbed from everything the tools return."""
    doc = load_spec(spec)
    base = base_url or (doc.get("servers") or [{}])[0].get("url", "")
    if not base.startswith(("http://", "https://")):
        raise ValueError("give base_url: the document names no absolute server URL")
    credential = credential_for(doc, api_key)
    scrub = Scrubber([api_key, *secrets])
    tools = []
    for path, item in doc["paths"].items():
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            schema, operation = _operation_tool_parts(path, method, item, op, credential)
            name = safe_name(prefix + (op.get("operationId") or f"{method}_{path.strip('/')}"))
            text = "\n\n".join(p for p in (op.get("summary", ""), op.get("description", "")) if p)
            caller = _Caller(base.rstrip("/"), operation, credential, scrub, timeout)
            tools.append(Tool.from_schema(name, scrub(text or f"{method.upper()} {path}"), schema, caller))
    return tools


class OpenAPIService:
    """An OpenAPI service as a toolset (`Agent(model, [OpenAPIService(url, api_key=KEY), ...])`): the document is
    read when the agent first lists its tools, off the event loop, and read again once it is older than
    `refresh_seconds` (None: never), so a service that adds an operation is seen at the next step. The other
    arguments are `openapi_tools`'."""

    def __init__(
        self,
        spec: str | Path | Mapping[str, Any],
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        secrets: Iterable[str | None] = (),
        timeout: float = 30.0,
        prefix: str = "",
        refresh_seconds: float | None = None,
        label: str | None = None,
    ):
        self.spec = spec
        self._read = functools.partial(
            openapi_tools,
            spec,
            base_url=base_url,
            api_key=api_key,
            secrets=list(secrets),
            timeout=timeout,
            prefix=prefix,
        )
        self.refresh_seconds = refresh_seconds
        self.label = label or (str(spec) if not isinstance(spec, Mapping) else "OpenAPI document")
        self._tools: list[Tool] | None = None
        self._read_at = 0.0

    async def list_tools(self, step: object = None) -> list[Tool]:
        stale = self.refresh_seconds is not None and time.monotonic() - self._read_at >= self.refresh_seconds
        if self._tools is None or stale:
            self._tools = await asyncio.to_thread(self._read)
            self._read_at = time.monotonic()
        return self._tools


@dataclass
class _Caller:
    base: str
    operation: _Operation
    credential: Credential
    scrub: Scrubber
    timeout: float

    async def __call__(self, arguments: dict[str, Any]) -> str:
        op = self.operation
        path = op.path
        query: dict[str, Any] = dict(self.credential.query)
        headers: dict[str, str] = dict(self.credential.headers)
        body: Any = None
        for arg, value in arguments.items():
            where, name = op.locations[arg]
            if where == "path":
                path = path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
            elif where == "query":
                query[name] = value if not isinstance(value, bool) else str(value).lower()
            elif where == "header":
                headers[name] = str(value)
            elif op.body_is_whole:
                body = value
            else:
                body = {**(body or {}), name: value}
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as client:
                response = await client.request(
                    op.method.upper(), self.base + path, params=query, headers=headers, json=body
                )
        except httpx.HTTPError as exc:
            raise ToolError(self.scrub(f"The service could not be reached ({type(exc).__name__}: {exc}).")) from None
        text = self.scrub(_readable(response))
        if response.is_success:
            return cut(text, MAX_RESULT_CHARS)
        raise ToolError(
            f"The service answered {response.status_code} {response.reason_phrase}: {cut(text, MAX_BODY_CHARS)}"
        )


def _readable(response: httpx.Response) -> str:
    """A JSON body compactly, other text as it is."""
    try:
        return json.dumps(response.json(), ensure_ascii=False, separators=(",", ":"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return response.text
