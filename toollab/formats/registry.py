"""Formats by name."""

from __future__ import annotations

from toollab.formats.base import Format
from toollab.formats.code_block import CodeBlock
from toollab.formats.deepseek_v3 import DeepSeekV3
from toollab.formats.hermes import Hermes
from toollab.formats.llama3_json import Llama3Json
from toollab.formats.mistral import Mistral
from toollab.formats.pythonic import Pythonic
from toollab.formats.qwen3_coder import Qwen3Coder
from toollab.formats.text_protocol import TextProtocol

DEFAULT_FORMAT = "hermes"  # what Qwen-family models and most fine-tunes write; local models use it unless told
FORMATS: dict[str, type[Format]] = {
    cls.name: cls for cls in (Hermes, Qwen3Coder, Mistral, Llama3Json, DeepSeekV3, Pythonic, TextProtocol, CodeBlock)
}


def get_format(name: str | None = None) -> Format:
    """The format called `name` (DEFAULT_FORMAT when None)."""
    try:
        return FORMATS[name or DEFAULT_FORMAT]()
    except KeyError:
        raise ValueError(f"unknown format {name!r}; known: {', '.join(FORMATS)}") from None
