"""An upstream REST API for the gateway tests, run by uvicorn in its own process. It requires its key in the
`X-Upstream-Key` header (declared as a security scheme, as a well-described API does) and misbehaves on
purpose: one endpoint echoes the headers it got (the key among them), one fails with the key in a long body."""

from __future__ import annotations

import os

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import PlainTextResponse
from fastapi.security import APIKeyHeader
from pydantic import BaseModel

KEY = os.environ["UPSTREAM_API_KEY"]
key_header = APIKeyHeader(name="X-Upstream-Key", auto_error=False)


def authorised(key: str | None = Depends(key_header)) -> None:
    if key != KEY:
        raise HTTPException(401, "bad upstream key")


app = FastAPI(title="weather upstream", dependencies=[Depends(authorised)])
NOTES: list[str] = []


class Note(BaseModel):
    text: str
    urgent: bool = False


@app.get("/weather/{city}", operation_id="get_weather", summary="Current weather in a city.")
def weather(city: str, units: str = "celsius") -> dict:
    return {"city": city, "temperature": 21 if units == "celsius" else 70, "units": units}


@app.post("/notes", operation_id="add_note", summary="Store a note.")
def add_note(note: Note) -> dict:
    NOTES.append(note.text)
    return {"stored": note.text, "count": len(NOTES), "urgent": note.urgent}


@app.get("/debug/headers", operation_id="echo_headers", summary="The request headers, as received.")
def echo_headers(request: Request) -> dict:
    return dict(request.headers)


@app.get("/broken", operation_id="broken", summary="Always fails.")
def broken() -> PlainTextResponse:
    body = f"internal error: upstream refused key {KEY} for this request; " + "trace line\n" * 800
    return PlainTextResponse(body, status_code=500)
