"""Which calls a constrained turn may or must make, mirroring the providers' `tool_choice`."""

from __future__ import annotations

from dataclasses import dataclass

MODES = ("auto", "required", "none")


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """`mode`: "auto" (free text, or calls once a call starts), "required" (at least one call, nothing else),
    "none" (no call), or a tool's name (exactly that tool). `parallel`: several calls in one turn."""

    mode: str = "auto"
    parallel: bool = True

    @property
    def tool(self) -> str | None:
        """The named tool, when the choice names one."""
        return None if self.mode in MODES else self.mode

    @classmethod
    def parse(cls, text: str, parallel: bool = True) -> ToolChoice:
        if not text.strip():
            raise ValueError(f"tool choice must be one of {', '.join(MODES)} or a tool name")
        return cls(text.strip(), parallel)
