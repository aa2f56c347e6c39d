"""Self-consistency for calls: several candidates of one calling turn, and the calls most of them make.

Wang et al. (2023) vote over sampled reasoning paths' final answers; for a calling turn the answer is the set of
calls (names and arguments, in any order). The greedy candidate comes first and wins ties, so voting only changes
a turn when most samples agree on something else.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from toollab.harness.arguments import UnreadableArguments
from toollab.harness.messages import AssistantMessage

VOTE_TEMPERATURE = 0.7  # how the candidates after the greedy one are sampled


def call_key(message: AssistantMessage) -> tuple[tuple[str, str], ...] | None:
    """The calls a candidate makes, so that the same calls compare equal; None for no calls or an unreadable
    one (a candidate that fails votes for nothing)."""
    if not message.tool_calls or any(c.parse_error for c in message.tool_calls):
        return None
    try:
        return tuple(sorted((c.name, json.dumps(c.args_as_dict(), sort_keys=True)) for c in message.tool_calls))
    except UnreadableArguments:
        return None


def majority(candidates: Sequence[AssistantMessage]) -> tuple[int, int]:
    """The candidate to keep and how many candidates make its calls (0 when it makes none): the first candidate
    whose calls most candidates make, or the first candidate when none makes readable calls or its own calls have
    as many votes as any."""
    keys = [call_key(m) for m in candidates]
    counts = Counter(k for k in keys if k is not None)
    best = max(counts.values(), default=0)
    own = counts[keys[0]] if keys[0] is not None else 0
    if own == best:
        return 0, own
    return next(i for i, k in enumerate(keys) if k is not None and counts[k] == best), best
