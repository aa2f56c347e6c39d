"""The call gate's trade-off: accuracy on items that need a call against accuracy on items that need none.

A run made with every first turn forced to call (tool choice "required") says, for each item, what calling gives
it. A gate that calls on an item gets that outcome; one that does not call fails an item that needed a call and
passes an irrelevance item. So one forced run plus each item's gate score gives the whole curve, for every
signal and threshold, without running the model again. Fitted on the dev set, never on BFCL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toollab.eval.bfcl.data import Item, judged_by_relevance
from toollab.eval.bfcl.schema import tool_set
from toollab.eval.bfcl.single_turn import to_messages
from toollab.eval.records import CallRecord, ItemRecord
from toollab.harness.request import GATE_SIGNALS, Gate, RequestParams

IRRELEVANCE_FLOOR = 0.8  # the target for irrelevance accuracy


@dataclass(frozen=True)
class Point:
    threshold: float
    calls_right: float  # accuracy on the items that need a call
    irrelevance: float  # accuracy on the items that need none

    @property
    def balanced(self) -> float:
        return (self.calls_right + self.irrelevance) / 2


async def gate_scores(items: Sequence[Item], model: Any, signals: Sequence[str] = GATE_SIGNALS) -> dict[str, dict]:
    """Each item's score under each signal, on its first turn, as the local model's gate measures it."""
    from toollab.models.local_gate import gate_score

    out: dict[str, dict[str, float]] = {}
    for item in items:
        specs = tool_set(item.functions, keep_dots=model.format.dotted_names).specs
        messages = to_messages(item.turns[0])
        prompt = model.prompt(messages, specs)
        out[item.id] = {
            s: await gate_score(model, messages, RequestParams(specs, gate=Gate(s, 0.0)), prompt) for s in signals
        }
    return out


def curve(
    records: Sequence[ItemRecord],
    scores: dict[str, dict[str, float]],
    signal: str,
    answered: frozenset[str] = frozenset(),
) -> list[Point]:
    """The trade-off over every threshold that changes a decision (from calling on everything to on nothing).
    `answered`: the items whose forced calls are turned down after decoding whatever the score (`founded`), which
    then fail if they needed a call and pass if they needed none."""
    needs = [
        (scores[r.id][signal], r.valid and r.id not in answered) for r in records if not judged_by_relevance(r.category)
    ]
    spare = [(scores[r.id][signal], r.id in answered) for r in records if judged_by_relevance(r.category)]
    if not needs or not spare:
        raise ValueError("the curve needs items that need a call and irrelevance items")
    thresholds = sorted({s for s, _ in needs} | {s for s, _ in spare})
    points = []
    for t in [thresholds[0], *(t + 1e-9 for t in thresholds)]:
        calls_right = sum(valid for s, valid in needs if s >= t) / len(needs)
        irrelevance = sum(s < t or turned for s, turned in spare) / len(spare)
        points.append(Point(t, calls_right, irrelevance))
    return points


def unfounded_items(items: Sequence[Item], records: dict[str, ItemRecord]) -> frozenset[str]:
    """The items whose forced first-turn calls `founded` turns down (`local_mentions.turned_down`)."""
    from toollab.harness.messages import ToolCall, last_request
    from toollab.models.local_mentions import turned_down

    turned = set()
    for item in items:
        specs = tool_set(item.functions, keep_dots=True).specs  # the records name calls as BFCL does
        calls = [
            ToolCall(id=str(k), name=c.name, arguments=c.arguments)
            for k, c in enumerate(records[item.id].calls)
            if isinstance(c, CallRecord)
        ]
        if turned_down(calls, specs, last_request(to_messages(item.turns[0]))):
            turned.add(item.id)
    return frozenset(turned)


def operating_point(points: Sequence[Point], floor: float = IRRELEVANCE_FLOOR) -> Point:
    """The most accurate point on calls that keeps irrelevance accuracy at `floor` or above (the best balanced
    point when none does)."""
    kept = [p for p in points if p.irrelevance >= floor]
    if kept:
        return max(kept, key=lambda p: (p.calls_right, p.irrelevance))
    return max(points, key=lambda p: p.balanced)


def plot(curves: dict[str, list[Point]], chosen: dict[str, Point], path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 4.5))
    for signal, points in curves.items():
        axis.plot([100 * p.irrelevance for p in points], [100 * p.calls_right for p in points], label=signal)
        point = chosen[signal]
        axis.scatter([100 * point.irrelevance], [100 * point.calls_right], zorder=3)
    axis.axvline(100 * IRRELEVANCE_FLOOR, color="grey", linestyle=":", linewidth=1)
    axis.set_xlabel("irrelevance accuracy, % (no call when none fits)")
    axis.set_ylabel("accuracy on items that need a call, %")
    axis.set_xlim(0, 101)
    axis.set_ylim(0, 101)
    axis.legend(title="gate signal")
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)


def scores_sync(items: Sequence[Item], model: Any, signals: Sequence[str] = GATE_SIGNALS) -> dict[str, dict]:
    return asyncio.run(gate_scores(items, model, signals))
