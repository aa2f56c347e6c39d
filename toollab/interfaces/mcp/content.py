"""toollab's content parts (`toollab.tools.content`) as MCP content, and back."""

from __future__ import annotations

import base64

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)

from toollab.tools.content import Audio, ContentPart, Image, Text, b64
from toollab.tools.content import EmbeddedResource as EmbeddedPart

MCPContent = TextContent | ImageContent | AudioContent | EmbeddedResource


def mcp_content(part: ContentPart) -> MCPContent:
    """A toollab content part as MCP content."""
    if isinstance(part, Text):
        return TextContent(type="text", text=part.text)
    if isinstance(part, Image):
        return ImageContent(type="image", data=b64(part.data), mime_type=part.mime_type)
    if isinstance(part, Audio):
        return AudioContent(type="audio", data=b64(part.data), mime_type=part.mime_type)
    contents: TextResourceContents | BlobResourceContents
    if part.text is not None:
        contents = TextResourceContents(uri=part.uri, mime_type=part.mime_type, text=part.text)
    else:
        contents = BlobResourceContents(uri=part.uri, mime_type=part.mime_type, blob=b64(part.blob or b""))
    return EmbeddedResource(type="resource", resource=contents)


def toollab_part(content: ContentBlock) -> ContentPart | None:
    """MCP content as a toollab part (None for a kind toollab does not carry: a resource link)."""
    if isinstance(content, TextContent):
        return Text(text=content.text)
    if isinstance(content, ImageContent):
        return Image(data=base64.b64decode(content.data), mime_type=content.mime_type)
    if isinstance(content, AudioContent):
        return Audio(data=base64.b64decode(content.data), mime_type=content.mime_type)
    if isinstance(content, EmbeddedResource):
        body = content.resource
        if isinstance(body, TextResourceContents):
            return EmbeddedPart(uri=str(body.uri), mime_type=body.mime_type, text=body.text)
        return EmbeddedPart(uri=str(body.uri), mime_type=body.mime_type, blob=base64.b64decode(body.blob))
    return None
