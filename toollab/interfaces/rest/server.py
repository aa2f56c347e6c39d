"""A tool set as a REST service: `POST /tools/{name}` with the arguments as the JSON body, one endpoint per tool,
an OpenAPI document whose request schemas are the tools' own, and an API key in `X-API-Key`."""

from __future__ import annotations

import hmac
import itertools
from collections.abc import Iterable
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader
from pydantic import BaseModel

from toollab.harness import errors
from toollab.harness.dispatch import Approver, Dispatcher
from toollab.harness.messages import ToolCall
from toollab.interfaces.heap import freeze_startup_heap
from toollab.tools import Tool

API_KEY_HEADER = "X-API-Key"
# How each kind of failed call answers over HTTP.
STATUS = {
    errors.INVALID_ARGUMENTS: 422,
    errors.INVALID_JSON: 400,
    errors.TOOL_ERROR: 500,
    errors.TIMEOUT: 504,
    errors.DENIED: 403,
}


class ToolOutput(BaseModel):
    result: str


class ToolFailure(BaseModel):
    error: str
    kind: str


def rest_app(
    tools: Iterable[Tool], *, api_key: str, title: str = "toollab tools", approve: Approver | None = None
) -> FastAPI:
    """The FastAPI app; every request must carry `X-API-Key: api_key` (compared in constant time). Tools with
    side effects run only when `approve(call, tool)` says yes (403 otherwise)."""
    if not api_key:
        raise ValueError("a REST server needs an API key")
    tools = list(tools)
    dispatcher = Dispatcher(tools, approve=approve)
    ids = itertools.count(1)
    expected = api_key.encode()
    key_header = APIKeyHeader(name=API_KEY_HEADER, auto_error=False, description="The server's API key.")

    def authorised(key: str | None = Depends(key_header)) -> None:
        if key is None or not hmac.compare_digest(key.encode(), expected):
            raise HTTPException(401, "missing or wrong API key", headers={"WWW-Authenticate": API_KEY_HEADER})

    app = FastAPI(title=title, version="1", dependencies=[Depends(authorised)])

    @app.get("/tools", operation_id="list_tools", summary="The tools, as a model is shown them.")
    def list_tools() -> list[dict[str, Any]]:
        return [t.spec.to_dict() for t in tools]

    for tool in tools:
        app.add_api_route(
            f"/tools/{tool.name}",
            _endpoint(tool, dispatcher, ids),
            methods=["POST"],
            operation_id=tool.name,
            summary=tool.description.split("\n")[0][:120],
            description=tool.description,
            response_model=ToolOutput,
            responses={code: {"model": ToolFailure} for code in sorted(set(STATUS.values()))},
            openapi_extra={
                "requestBody": {"required": True, "content": {"application/json": {"schema": tool.parameters}}}
            },
        )
    return app


def _endpoint(tool: Tool, dispatcher: Dispatcher, ids: Any) -> Any:
    async def run_tool(request: Request) -> Any:
        # the body goes to the dispatcher as text: it decodes JSON and words its errors as for any caller
        body = (await request.body()).decode("utf-8", errors="replace")
        result = await dispatcher.dispatch(ToolCall(id=f"rest-{next(ids)}", name=tool.name, arguments=body))
        if result.is_error:
            kind = result.error_kind or errors.TOOL_ERROR
            return JSONResponse({"error": result.content, "kind": kind}, status_code=STATUS.get(kind, 400))
        return {"result": result.content}

    run_tool.__name__ = f"call_{tool.name}"
    return run_tool


def serve_rest(
    tools: Iterable[Tool],
    *,
    api_key: str,
    host: str = "127.0.0.1",
    port: int = 8766,
    approve: Approver | None = None,
) -> None:
    import uvicorn

    app = rest_app(tools, api_key=api_key, approve=approve)
    freeze_startup_heap()
    uvicorn.run(app, host=host, port=port, log_level="warning")
