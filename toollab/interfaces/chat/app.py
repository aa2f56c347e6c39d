"""The FastAPI app of `toollab serve`: `/v1/chat/completions` and `/v1/models`, an optional bearer key, errors
in OpenAI's shape (400 for a request that does not fit, 401 for a wrong key, 502 when the model fails)."""

from __future__ import annotations

import hmac
import time
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse

from toollab.harness.model import Model, ModelError
from toollab.interfaces.chat.request import BadRequest, ChatRequest, read
from toollab.interfaces.chat.response import chunks, completion, sse


def error(status: int, message: str, kind: str, param: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "param": param, "code": None}}, status)


def chat_app(model: Model, *, name: str | None = None, api_key: str | None = None) -> FastAPI:
    """Serve `model` under `name` (its own name by default). With `api_key`, every request must carry
    `Authorization: Bearer api_key` (compared in constant time)."""
    served = str(name or getattr(model, "name", None) or "toollab")
    app = FastAPI(title="toollab chat completions")
    created = int(time.time())

    @app.middleware("http")
    async def check_key(request: Request, call_next: Any) -> Any:
        if api_key is not None:
            given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(given.encode(), api_key.encode()):
                return error(401, "missing or wrong API key (Authorization: Bearer ...)", "invalid_request_error")
        return await call_next(request)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"] if p != "body")
        return error(400, f"{where}: {first['msg']}", "invalid_request_error", where or None)

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": served, "object": "model", "created": created,
                                            "owned_by": "toollab"}]}  # fmt: skip

    @app.post("/v1/chat/completions", response_model=None)
    async def chat(body: ChatRequest) -> JSONResponse | StreamingResponse | dict[str, Any]:
        try:
            messages, params = read(body)
        except BadRequest as exc:
            return error(400, str(exc), "invalid_request_error", exc.param)
        try:
            response = await model.request(messages, params)
        except ModelError as exc:
            return error(502 if exc.source == "provider" else 500, str(exc), "server_error")
        if body.stream:
            include = body.stream_options is not None and body.stream_options.include_usage
            return StreamingResponse(sse(chunks(response, served, include)), media_type="text/event-stream")
        return completion(response, served)

    return app
