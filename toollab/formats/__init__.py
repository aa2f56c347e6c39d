"""Wire formats: how each model family writes messages and tool calls. One schema, many serializations."""

from toollab.formats.anthropic_messages import from_anthropic, to_anthropic, tools_to_anthropic
from toollab.formats.base import Format
from toollab.formats.openai_chat import from_openai, to_openai, tools_to_openai
from toollab.formats.registry import DEFAULT_FORMAT, FORMATS, get_format

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "Format",
    "from_anthropic",
    "from_openai",
    "get_format",
    "to_anthropic",
    "to_openai",
    "tools_to_anthropic",
    "tools_to_openai",
]
