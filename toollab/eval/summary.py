"""A run's records reduced to what people compare: accuracy with intervals, error types, layers, operations."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from toollab.eval.records import ItemRecord
from toollab.eval.stats import Proportion


def percentile(values: Sequence[float], q: float) -> float | None:
    """The nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def failure_kind(record: ItemRecord) -> str | None:
    """Where a failed item went wrong, by layer: "harness or provider" (no model output to judge), "unreadable"
    (a call that could not be read, or was cut off), "no call", "wrong tools" (a tool missing, extra or
    wrong), or "wrong arguments" (the right tools, wrong values). None for a passed item."""
    if record.valid:
        return None
    if record.failure_source in ("harness", "provider"):
        return "harness or provider"
    if record.ops.parse_failures:
        return "unreadable"
    selection = record.layers.selection
    if not record.calls and (selection is None or selection.missing):
        return "no call"
    if selection is not None and (selection.missing or selection.extra):
        return "wrong tools"
    return "wrong arguments"


def _layers(records: Sequence[ItemRecord]) -> dict[str, Any]:
    selections = [r.layers.selection for r in records if r.layers.selection]
    arguments = [r.layers.arguments for r in records if r.layers.arguments]
    trajectories = [r.layers.trajectory for r in records if r.layers.trajectory]
    out: dict[str, Any] = {}
    if selections:
        out["selection"] = {
            "precision": _mean([s.precision for s in selections]),
            "recall": _mean([s.recall for s in selections]),
            "missing_calls": sum(s.missing for s in selections),
            "extra_calls": sum(s.extra for s in selections),
            "items_with_right_tools": sum(s.missing == 0 and s.extra == 0 for s in selections),
            "items": len(selections),
        }
    if arguments:
        right, counted = sum(a.right for a in arguments), sum(a.counted for a in arguments)
        out["arguments"] = Proportion(right, counted).to_dict()
    if trajectories:
        out["trajectory"] = {
            "in_order": _mean([t.in_order for t in trajectories]),
            "ordered_steps": _mean([t.ordered_steps for t in trajectories]),
        }
    out["task"] = Proportion(sum(r.valid for r in records), len(records)).to_dict()
    return out


def _operations(records: Sequence[ItemRecord]) -> dict[str, Any]:
    ops = [r.ops for r in records]
    latency = [o.latency_seconds for o in ops]
    calls = sum(o.calls for o in ops)
    return {
        "latency_seconds": {
            "mean": _mean(latency),
            "p50": percentile(latency, 50),
            "p90": percentile(latency, 90),
            "p99": percentile(latency, 99),
            "total": sum(latency),
        },
        "model_calls": sum(o.model_calls for o in ops),
        "input_tokens": sum(o.input_tokens for o in ops),
        "output_tokens": sum(o.output_tokens for o in ops),
        "cached_input_tokens": sum(o.cached_input_tokens for o in ops),
        "output_tokens_p50": percentile([o.output_tokens for o in ops], 50),
        "retries": sum(o.retries for o in ops),
        "timeouts": sum(o.timeouts for o in ops),
        "calls": calls,
        "parse_failures": sum(o.parse_failures for o in ops),
        "truncated": sum(o.truncated for o in ops),
        "schema_failures": sum(o.schema_failures for o in ops),
        "unknown_tools": sum(o.unknown_tools for o in ops),
        # of the calls the model wrote (`calls` counts every attempt), how many could be read, and how many were
        # also valid calls of an offered tool
        "parse_valid": Proportion(calls - sum(o.parse_failures for o in ops), calls).to_dict(),
        "schema_valid": Proportion(
            calls - sum(o.parse_failures + o.schema_failures + o.unknown_tools for o in ops), calls
        ).to_dict(),
        "stop_reasons": dict(Counter(s for o in ops for s in o.stop_reasons)),
        "failures_by_source": dict(Counter(r.failure_source for r in records if r.failure_source)),
    }


def summarize(records: Sequence[ItemRecord], config: dict[str, Any]) -> dict[str, Any]:
    by_category: dict[str, list[ItemRecord]] = defaultdict(list)
    for r in records:
        by_category[r.category].append(r)
    categories: dict[str, dict[str, Any]] = {}
    for name in sorted(by_category, key=lambda c: (c.startswith("multi"), c.startswith("live"), c)):
        group = by_category[name]
        categories[name] = {
            "accuracy": Proportion(sum(r.valid for r in group), len(group)).to_dict(),
            "error_types": dict(Counter(r.error_type for r in group if not r.valid).most_common()),
            "failure_kinds": dict(Counter(k for r in group if (k := failure_kind(r))).most_common()),
            "layers": _layers(group),
            "operations": _operations(group),
        }
    accuracies = [c["accuracy"]["value"] for c in categories.values()]
    return {
        "config": config,
        "items": len(records),
        "accuracy": Proportion(sum(r.valid for r in records), len(records)).to_dict(),
        # BFCL's own summaries average categories without weighting them by size
        "category_mean": sum(accuracies) / len(accuracies) if accuracies else None,
        "failure_kinds": dict(Counter(k for r in records if (k := failure_kind(r))).most_common()),
        "categories": categories,
        "layers": _layers(records) if records else {},
        "operations": _operations(records) if records else {},
    }
