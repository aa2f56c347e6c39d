"""A model behind an OpenAI-compatible endpoint: `/v1/chat/completions` with tools, every tool choice, streaming
and usage, so that any framework that speaks the Chat Completions API can use a local model whose calls always
parse (`toollab serve`)."""

from toollab.interfaces.chat.app import chat_app

__all__ = ["chat_app"]
