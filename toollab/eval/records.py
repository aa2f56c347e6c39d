"""What an evaluation records per item, as typed models: a line of results.jsonl is an `ItemRecord`'s JSON.

The JSON is what toollab wrote before records were typed (`evals/` and `tests/data` keep runs from then and
still read): fields added since have defaults, and a field absent from single-turn items is left out.
"""

from __future__ import annotations

from typing import Any, TypedDict

from pydantic import BaseModel, Field

from toollab.eval.layers import ArgumentScore, Selection, Trajectory
from toollab.harness.messages import Message


class Layers(BaseModel):
    """Where an item stands beyond pass or fail; None where a layer does not apply to the item."""

    selection: Selection | None = None
    arguments: ArgumentScore | None = None
    trajectory: Trajectory | None = Field(default=None, exclude_if=lambda v: v is None)  # multi-turn only


class Operations(BaseModel):
    """What an item cost and what became of the calls the model wrote."""

    latency_seconds: float
    model_calls: int
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    retries: int = 0
    timeouts: int = 0
    calls: int = 0  # every call written, readable or not
    parse_failures: int = 0  # truncated calls included
    truncated: int = 0  # constrained calls cut off at max_new_tokens (absent from runs before constrained decoding)
    schema_failures: int = 0
    unknown_tools: int = 0
    stop_reasons: list[str] = Field(default_factory=list)


class CallRecord(BaseModel):
    """A single-turn call as BFCL names it."""

    name: str
    arguments: dict[str, Any]


class RecordHead(TypedDict):
    """Which item a record is of and which run made it: the first fields of every record."""

    id: str
    category: str
    model: str
    format: str


class ItemRecord(BaseModel):
    """One evaluated item. `calls`: single-turn, the calls read from the answer; multi-turn, per turn, per model
    request, the calls that ran as BFCL's call strings. `failure_source` says who failed: "model", "provider" or
    "harness" (None when the item passed)."""

    id: str
    category: str
    model: str
    format: str
    prompt: str = ""
    transcript: list[Message] | None = Field(default=None, exclude_if=lambda v: v is None)  # multi-turn only
    raw: list[str | None] = Field(default_factory=list)
    calls: list[CallRecord] | list[list[list[str]]] = Field(default_factory=list)
    valid: bool
    error_type: str | None = None
    errors: list[str] = Field(default_factory=list)
    layers: Layers = Field(default_factory=Layers)
    ops: Operations
    failure_source: str | None = None
