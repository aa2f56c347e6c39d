"""What a sandboxed run may use, and what a run reports back."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# Which limit ended a run early: the result names it so that the model (and the user) know what to change.
Limit = Literal["cpu_time", "wall_time", "memory", "file_size", "processes", "open_files", "output"]

# How strongly a run was confined: bwrap (namespaces: own file system view, no network, own process tree) or the
# documented fallback where bwrap cannot run (rlimits, a scrubbed environment, sockets refused in Python).
Isolation = Literal["bwrap", "rlimits-only (weaker: the host's file system and network stay reachable)"]


class Limits(BaseModel):
    """Resource limits of one run. Memory is the address space (RLIMIT_AS), so it counts what Python maps."""

    model_config = {"frozen": True}

    cpu_seconds: float = Field(default=5.0, gt=0)
    wall_seconds: float = Field(default=10.0, gt=0)
    memory_mb: int = Field(default=512, ge=64)
    file_size_mb: int = Field(default=16, ge=1)
    processes: int = Field(default=16, ge=1)  # counted for the sandbox's own user: a fork bomb stops here
    open_files: int = Field(default=64, ge=16)
    output_bytes: int = Field(default=64_000, ge=256)  # stdout and stderr each are cut to this


class CodeResult(BaseModel):
    """What running a program in a sandbox gave: its output (cut to the limit), how it ended, and how it was
    confined. `limit` names the limit that stopped it, if one did; `error` is its uncaught exception, if any."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    error: str | None = None
    limit: Limit | None = None
    truncated: bool = False
    seconds: float = 0.0
    isolation: Isolation = "bwrap"
    tool_calls: int = 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.limit is None and self.error is None

    def observation(self) -> str:
        """The result as the model reads it: output first, then what went wrong and what is allowed."""
        parts = [self.stdout.rstrip()] if self.stdout.strip() else []
        if self.stderr.strip() and not self.ok:
            parts.append("stderr:\n" + self.stderr.rstrip())
        if self.truncated:
            parts.append("[output cut: the sandbox keeps the first part of what a program prints]")
        if self.limit is not None:
            parts.append(f"[stopped: the {self.limit.replace('_', ' ')} limit was reached]")
        elif self.error is not None:
            parts.append(f"[error: {self.error}]")
        return "\n".join(parts) if parts else "[no output: print what you want to see]"
