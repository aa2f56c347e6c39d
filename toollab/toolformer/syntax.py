"""How a call is written inline in text: an opening, the expression, an arrow, the result and a closing.

The ledger world writes `[ 1 8 - 4 = 1 4 ]` (digits as tokens); plain text writes Toolformer's
`[Calculator(18 - 4) → 14]`. Both go to the same `calculator` tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toollab.toolformer.ledgers import CLOSE, EQUALS, OPEN, digits

_SPACED_DIGITS = re.compile(r"(?<=\d) (?=\d)")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")  # how a tool writes a number


@dataclass(frozen=True)
class CallSyntax:
    """`open` starts a call (its first token is the one whose probability picks positions), `arrow` ends the
    expression (decoding pauses there and the tool writes the result), `close` ends the call."""

    open: str
    arrow: str
    close: str
    spaced_digits: bool = False  # numbers are written one token per digit
    tool: str = "calculator"

    def argument(self, written: str) -> str:
        """The tool's argument from the expression as the model wrote it ("1 8 - 4" -> "18 - 4")."""
        text = written.strip()
        return _SPACED_DIGITS.sub("", text) if self.spaced_digits else text

    def result(self, content: str) -> str | None:
        """The tool's result as the text writes it ("14" -> " 1 4"); None when it is not a whole number the
        world can write."""
        if not self.spaced_digits:
            return f" {content.strip()}"
        match = NUMBER.fullmatch(content.strip())
        if match is None or float(match.group()) != int(float(match.group())) or float(match.group()) < 0:
            return None
        return f" {digits(int(float(match.group())))}"

    def call(self, written: str, result: str | None) -> str:
        """The call as text: the opening, the written expression, the arrow, the result (if any) and the closing."""
        if self.spaced_digits:  # words are whole tokens: spaces around the expression keep them apart
            written = f" {written.strip()}"
        return f"{self.open}{written}{self.arrow}{result or ''}{self.close}"

    def written(self, text: str) -> str | None:
        """The expression of the call `text` ends inside of (after its last opening, up to the arrow), or None
        when `text` is not paused at an arrow inside a call."""
        at = text.rfind(self.open.strip())
        if at < 0 or not text.rstrip().endswith(self.arrow.strip()) or self.close.strip() in text[at:]:
            return None
        inner = text[at + len(self.open.strip()) :]
        return inner[: inner.rstrip().rfind(self.arrow.strip())]

    def strip_calls(self, text: str) -> str:
        """The text with every call removed (what a reader of the answer sees)."""
        o, c = re.escape(self.open.strip()), re.escape(self.close.strip())
        return re.sub(rf"\s*{o}.*?{c}", "", text, flags=re.S)


LEDGER = CallSyntax(open=f" {OPEN}", arrow=f" {EQUALS}", close=f" {CLOSE}", spaced_digits=True)
TEXT = CallSyntax(open=" [Calculator(", arrow=") →", close="]")
