"""Keeping credentials out of what a model or a log sees: scrub known secrets from text, and cut long bodies."""

from __future__ import annotations

import base64
import urllib.parse
from collections.abc import Iterable

REDACTED = "[redacted]"
MAX_BODY_CHARS = 2_000


def _forms(secret: str) -> set[str]:
    """The secret as it may appear in text: plain, URL-encoded, and inside HTTP basic auth (base64)."""
    forms = {secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}
    forms.add(base64.b64encode(secret.encode()).decode())
    return {f for f in forms if f}


class Scrubber:
    """Replaces every known secret in a text by [redacted]. Secrets shorter than 8 characters are refused: they
    would redact ordinary words, and are too weak to be keys anyway."""

    def __init__(self, secrets: Iterable[str | None] = ()):
        self.forms: list[str] = []
        for secret in secrets:
            if secret:
                if len(secret) < 8:
                    raise ValueError("a secret to scrub must have at least 8 characters")
                self.forms += _forms(secret)
        self.forms.sort(key=len, reverse=True)  # longer forms first, so none is left half-replaced

    def __call__(self, text: str) -> str:
        for form in self.forms:
            text = text.replace(form, REDACTED)
        return text


def cut(text: str, limit: int = MAX_BODY_CHARS) -> str:
    """`text`, or its first `limit` characters with a note of how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more characters cut]"
