"""Statistics and layer metrics of the evaluation, against values worked out by hand."""

from __future__ import annotations

import pytest

from toollab.eval import layers
from toollab.eval.records import CallRecord, ItemRecord, Layers, Operations
from toollab.eval.stats import Proportion, mcnemar_exact, wilson_interval
from toollab.eval.summary import percentile


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (81, 100, 0.7222, 0.8749)],
)
def test_wilson_interval_matches_published_values(k, n, low, high):
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_wilson_interval_of_nothing_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("only_a", "only_b", "p"),
    [(0, 0, 1.0), (5, 0, 0.0625), (0, 5, 0.0625), (10, 2, 79 / 4096 * 2), (3, 3, 1.0), (1, 0, 1.0)],
)
def test_mcnemar_exact_two_sided(only_a, only_b, p):
    assert mcnemar_exact(only_a, only_b) == pytest.approx(p)


def test_proportion_text_and_dict():
    p = Proportion(5, 10)
    assert str(p) == "50.0% [23.7, 76.3] (5/10)"
    assert p.to_dict()["value"] == 0.5 and Proportion(0, 0).value == 0.0


def test_percentile_nearest_rank():
    assert percentile([], 50) is None
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile([7.0], 99) == 7.0


def test_selection_counts_missing_and_extra_calls():
    got = layers.selection(["a", "a", "c"], ["a", "b"])
    assert got == layers.Selection(precision=1 / 3, recall=0.5, missing=1, extra=2)
    assert layers.selection([], []) == layers.Selection(precision=1.0, recall=1.0, missing=0, extra=0)
    assert layers.selection([], ["a"]).recall == 0.0


def test_arguments_pair_calls_and_count_each_argument():
    expected = [("f", {"x": [1], "unit": ["m", ""]}), ("g", {"s": ["New York"]})]
    calls = [("g", {"s": "new york"}), ("f", {"x": 1.0, "extra": True})]
    # x right (1 == 1.0), unit optional and left out, extra counts wrong; s right up to case and spaces
    assert layers.arguments(calls, expected) == layers.ArgumentScore(right=2, counted=3, accuracy=2 / 3)
    missing_call = layers.arguments([], expected)
    assert missing_call.right == 0 and missing_call.counted == 2


def test_value_matches_follows_bfcl_string_rules():
    assert layers.value_matches("San Francisco, CA", ["san francisco ca"])
    assert layers.value_matches([1, 2], [[1.0, 2.0]])
    assert not layers.value_matches(True, [1])
    assert not layers.value_matches("Paris", ["London"])


def test_trajectory_order_and_dependent_steps():
    expected = ["cd", "mkdir", "mv"]
    assert layers.trajectory(expected, expected).in_order == 1.0
    swapped = layers.trajectory(["mkdir", "cd", "mv"], expected)
    assert swapped.in_order == pytest.approx(2 / 3)
    assert swapped.ordered_steps == 0.5  # cd->mkdir broken, mkdir->mv kept
    assert layers.trajectory([], expected) == layers.Trajectory(
        in_order=0.0, ordered_steps=0.0, calls=0, expected_calls=3
    )


def test_failure_kinds_place_each_failure_in_a_layer():
    from toollab.eval.summary import failure_kind

    def record(valid=False, source="model", parse=0, calls=(), selection=None):
        return ItemRecord(
            id="x_0",
            category="simple_python",
            model="m",
            format="hermes",
            valid=valid,
            failure_source=None if valid else source,
            ops=Operations(latency_seconds=0.1, model_calls=1, parse_failures=parse),
            calls=[CallRecord(name=name, arguments={}) for name in calls],
            layers=Layers(selection=selection and layers.Selection(**selection)),
        )

    sel = {"precision": 1.0, "recall": 1.0, "missing": 0, "extra": 0}
    assert failure_kind(record(valid=True)) is None
    assert failure_kind(record(source="provider")) == "harness or provider"
    assert failure_kind(record(parse=1)) == "unreadable"
    assert failure_kind(record(selection={**sel, "missing": 1, "recall": 0.0})) == "no call"
    assert failure_kind(record(calls=["g"], selection={**sel, "missing": 1, "extra": 1})) == "wrong tools"
    assert failure_kind(record(calls=["f"], selection=sel)) == "wrong arguments"
