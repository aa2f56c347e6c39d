"""What a tool may return besides text: images, audio, embedded resources, and a mix of them with text.

A tool returns one part or a list of parts and strings; the harness keeps the parts on the result (an MCP
server sends them as MCP content) and gives a text-only model their text, with a line saying what each
non-text part was, so that nothing is silently dropped.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_BYTES_AS_BASE64 = ConfigDict(frozen=True, ser_json_bytes="base64", val_json_bytes="base64")


class Text(BaseModel):
    model_config = ConfigDict(frozen=True)

    type: Literal["text"] = "text"
    text: str


class Image(BaseModel):
    """Image bytes (PNG, JPEG, ...) and their MIME type."""

    model_config = _BYTES_AS_BASE64

    type: Literal["image"] = "image"
    data: bytes
    mime_type: str = "image/png"


class Audio(BaseModel):
    """Audio bytes (WAV, MP3, ...) and their MIME type."""

    model_config = _BYTES_AS_BASE64

    type: Literal["audio"] = "audio"
    data: bytes
    mime_type: str = "audio/wav"


class EmbeddedResource(BaseModel):
    """A resource's contents carried in the result: text, or bytes (`blob`), under its URI."""

    model_config = _BYTES_AS_BASE64

    type: Literal["resource"] = "resource"
    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: bytes | None = None

    @model_validator(mode="after")
    def _one_body(self) -> EmbeddedResource:
        if (self.text is None) == (self.blob is None):
            raise ValueError("an embedded resource has text or a blob, exactly one of them")
        return self


ContentPart = Annotated[Text | Image | Audio | EmbeddedResource, Field(discriminator="type")]
PART_TYPES = (Text, Image, Audio, EmbeddedResource)


def parts_of(value: Any) -> list[ContentPart] | None:
    """`value` as content parts when it is a part or a list holding any (strings in it become text parts);
    None when it is an ordinary value (returned as text or JSON)."""
    if isinstance(value, PART_TYPES):
        return [value]
    if isinstance(value, (list, tuple)) and value and any(isinstance(v, PART_TYPES) for v in value):
        parts: list[ContentPart] = []
        for v in value:
            if isinstance(v, PART_TYPES):
                parts.append(v)
            elif isinstance(v, str):
                parts.append(Text(text=v))
            else:
                raise TypeError(f"a list of content parts may hold parts and strings, not {type(v).__name__}")
        return parts
    return None


def described(part: ContentPart) -> str:
    """One part as a text-only model reads it: text as it is, anything else as a line saying what it is."""
    if isinstance(part, Text):
        return part.text
    if isinstance(part, (Image, Audio)):
        return f"[{part.type}: {part.mime_type}, {len(part.data)} bytes]"
    kind = part.mime_type or "unknown type"
    if part.text is not None:
        return f"[resource {part.uri} ({kind})]\n{part.text}"
    return f"[resource {part.uri}: {kind}, {len(part.blob or b'')} bytes]"


def as_text(parts: Sequence[ContentPart]) -> str:
    return "\n".join(described(p) for p in parts)


def b64(data: bytes) -> str:
    """Bytes as the base64 text MCP and the providers' APIs carry."""
    return base64.b64encode(data).decode("ascii")
