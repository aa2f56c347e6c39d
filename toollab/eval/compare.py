"""Two runs on the same items, compared pair by pair: which items only one got right, and McNemar's exact test
of whether that difference could be chance."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from toollab.eval.results import ResultsFile
from toollab.eval.stats import Proportion, mcnemar_exact


def _verdicts(run: str | Path) -> dict[str, tuple[str, bool]]:
    path = Path(run)
    records = ResultsFile(path / "results.jsonl" if path.is_dir() else path).read()
    if not records:
        raise ValueError(f"{run}: no results (expected a run folder or its results.jsonl)")
    return {r.id: (r.category, r.valid) for r in records}


def _row(pairs: list[tuple[bool, bool]]) -> dict[str, Any]:
    only_a = sum(a and not b for a, b in pairs)
    only_b = sum(b and not a for a, b in pairs)
    n = len(pairs)
    return {
        "n": n,
        "a": Proportion(sum(a for a, _ in pairs), n).to_dict(),
        "b": Proportion(sum(b for _, b in pairs), n).to_dict(),
        "both": sum(a and b for a, b in pairs),
        "only_a": only_a,
        "only_b": only_b,
        "neither": sum(not a and not b for a, b in pairs),
        "difference": (only_b - only_a) / n if n else 0.0,
        "p_value": mcnemar_exact(only_a, only_b),
    }


def compare_runs(run_a: str | Path, run_b: str | Path) -> dict[str, Any]:
    """Per category and overall, on the items both runs hold; items only one holds are counted, not compared."""
    a, b = _verdicts(run_a), _verdicts(run_b)
    shared = [i for i in a if i in b]
    if not shared:
        raise ValueError(f"{run_a} and {run_b} have no item in common")
    by_category: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for item in shared:
        by_category[a[item][0]].append((a[item][1], b[item][1]))
    return {
        "categories": {c: _row(pairs) for c, pairs in sorted(by_category.items())},
        "all": _row([(a[i][1], b[i][1]) for i in shared]),
        "only_in_a": len(a) - len(shared),
        "only_in_b": len(b) - len(shared),
    }
