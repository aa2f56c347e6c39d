"""One self-contained HTML report of a run: tables, plots embedded as PNG, and failing items in full.

Everything the model wrote is escaped: model output is untrusted and must not become markup.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollab.eval.records import ItemRecord, Operations

FAILING_SHOWN = 3  # failing items shown in full per category


def _png(figure: Any) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    return f'<img alt="" src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}">'


def _plots(summary: dict[str, Any], records: Sequence[ItemRecord]) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    categories = list(summary["categories"])
    if not categories:
        return []
    out = []
    accuracy = [summary["categories"][c]["accuracy"] for c in categories]
    figure, axis = plt.subplots(figsize=(7, 0.6 * len(categories) + 1.2))
    values = [100 * a["value"] for a in accuracy]
    errors = [
        [max(0.0, 100 * (a["value"] - a["low"])) for a in accuracy],
        [max(0.0, 100 * (a["high"] - a["value"])) for a in accuracy],
    ]
    labels = [f"{c}\n{100 * a['value']:.1f}% ({a['k']}/{a['n']})" for c, a in zip(categories, accuracy, strict=True)]
    axis.barh(labels, values, xerr=errors, color="#4c78a8", capsize=3)
    axis.set_xlim(0, 100)
    axis.invert_yaxis()
    axis.set_xlabel("accuracy, % (bars: Wilson 95% interval)")
    out.append(_png(figure))

    grouped: dict[str, list[Operations]] = defaultdict(list)
    for r in records:
        grouped[r.category].append(r.ops)
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 0.45 * len(categories) + 1.6))
    positions = list(range(1, len(categories) + 1))
    left.boxplot([[o.latency_seconds for o in grouped[c]] for c in categories], orientation="horizontal")
    right.boxplot([[o.output_tokens for o in grouped[c]] for c in categories], orientation="horizontal")
    left.set_yticks(positions, categories)
    right.set_yticks(positions, [""] * len(categories))
    for side in (left, right):
        side.invert_yaxis()
    left.set_xlabel("latency per item, s")
    right.set_xlabel("output tokens per item")
    out.append(_png(figure))

    figure, axis = plt.subplots(figsize=(7, 3))
    axis.hist([r.ops.input_tokens for r in records], bins=30, color="#72b7b2")
    axis.set_xlabel("input tokens per item")
    axis.set_ylabel("items")
    out.append(_png(figure))
    return out


def _pct(p: dict[str, Any] | None) -> str:
    if not p or not p.get("n"):
        return "–"
    return f"{100 * p['value']:.1f}% <small>[{100 * p['low']:.1f}, {100 * p['high']:.1f}] {p['k']}/{p['n']}</small>"


def _num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    header = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{header}</tr>{body}</table>"


def _category_rows(summary: dict[str, Any]) -> list[list[str]]:
    rows = []
    for name, c in [*summary["categories"].items(), ("all", summary)]:
        layers, ops = c["layers"], c["operations"]
        selection = layers.get("selection") or {}
        rows.append(
            [
                f"<b>{html.escape(name)}</b>",
                _pct(c["accuracy"]),
                _pct(ops.get("parse_valid")),
                _pct(ops.get("schema_valid")),
                f"{_num(selection.get('precision'))} / {_num(selection.get('recall'))}",
                _pct(layers.get("arguments")),
                _num(ops["latency_seconds"]["p50"]),
                _num(ops["latency_seconds"]["p90"]),
                str(ops["input_tokens"]),
                str(ops["output_tokens"]),
            ]
        )
    return rows


def _failing(records: Sequence[ItemRecord]) -> str:
    shown: dict[str, int] = defaultdict(int)
    parts = []
    for r in records:
        if r.valid or shown[r.category] >= FAILING_SHOWN:
            continue
        shown[r.category] += 1
        calls = json.dumps(r.model_dump(mode="json")["calls"], ensure_ascii=False, indent=1, default=repr)
        parts.append(
            f"<h3>{html.escape(r.id)} <small>{html.escape(str(r.error_type))}</small></h3>"
            f"<p>{html.escape('; '.join(r.errors))}</p>"
            f"<details><summary>prompt</summary><pre>{html.escape(r.prompt)}</pre></details>"
            f"<p>raw output</p><pre>{html.escape(chr(10).join(x or '' for x in r.raw))}</pre>"
            f"<p>parsed calls</p><pre>{html.escape(calls)}</pre>"
        )
    return "".join(parts) or "<p>No failing items.</p>"


STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}th{background:#f3f3f3}
pre{background:#f7f7f7;padding:.6em;white-space:pre-wrap;max-height:30em;overflow:auto}small{color:#666}"""


def render(summary: dict[str, Any], records: Sequence[ItemRecord]) -> str:
    config = summary["config"]
    dataset = "BFCL" if config.get("dataset", "bfcl") == "bfcl" else f"dev set ({config.get('split')})"
    title = f"{dataset}: {config.get('model')} ({config.get('format') or 'default format'})"
    errors = [
        [html.escape(name), html.escape(str(kind)), str(count)]
        for name, c in summary["categories"].items()
        for kind, count in c["error_types"].items()
    ]
    kinds = [
        [html.escape(name), html.escape(kind), str(count)]
        for name, c in summary["categories"].items()
        for kind, count in c["failure_kinds"].items()
    ]
    ops = summary.get("operations", {})
    operations = [
        [html.escape(k), html.escape(json.dumps(ops.get(k)))]
        for k in (
            "model_calls",
            "retries",
            "timeouts",
            "parse_failures",
            "truncated",
            "schema_failures",
            "unknown_tools",
            "failures_by_source",
            "stop_reasons",
            "cached_input_tokens",
        )
    ]
    head = [
        "category",
        "accuracy [95% CI]",
        "calls readable",
        "calls schema-valid",
        "tool P / R",
        "arguments",
        "p50 s",
        "p90 s",
        "tokens in",
        "tokens out",
    ]
    return (
        f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><style>{STYLE}</style>"
        f"<h1>{html.escape(title)}</h1><p>{summary['items']} items. Configuration: "
        f"<code>{html.escape(json.dumps(config))}</code></p>"
        f"<h2>Accuracy by category</h2>{_table(head, _category_rows(summary))}"
        + "".join(_plots(summary, records))
        + f"<h2>Where items failed</h2>{_table(['category', 'failure kind', 'items'], kinds)}"
        + f"<h2>Error types</h2>{_table(['category', 'BFCL error type', 'items'], errors)}"
        f"<h2>Operations</h2>{_table(['figure', 'value'], operations)}"
        f"<h2>Failing items</h2>{_failing(records)}"
    )


def write_report(path: str | Path, summary: dict[str, Any], records: Sequence[ItemRecord]) -> None:
    Path(path).write_text(render(summary, records), encoding="utf-8")
