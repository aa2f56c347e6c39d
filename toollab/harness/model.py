"""The one interface every model backend implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from toollab.harness.messages import AssistantMessage, Message, Usage
from toollab.harness.request import RequestParams


@dataclass(slots=True)
class ModelResponse:
    """An assistant turn plus what it cost. `raw` is the model's text before parsing, when there was one."""

    message: AssistantMessage
    usage: Usage = field(default_factory=Usage)
    raw: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def stop_reason(self) -> str | None:
        """Why the backend stopped, in its own words ("stop_reason", or OpenAI's "finish_reason")."""
        reason = self.metadata.get("stop_reason", self.metadata.get("finish_reason"))
        return None if reason is None else str(reason)


@runtime_checkable
class Model(Protocol):
    """A model takes the conversation and what this request may do (the tools offered, the tool choice, several
    calls or one), and returns one assistant turn.

    `messages` is the run's own history list: read it, never modify it (it is not copied, so that a step
    costs the same at round 800 as at round 1).
    """

    name: str

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse: ...


class ModelError(Exception):
    """A model backend failed to produce a turn. `source` attributes it: "model", "harness" or "provider"."""

    def __init__(self, message: str, *, source: str = "provider"):
        super().__init__(message)
        self.source = source
