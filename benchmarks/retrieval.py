"""Tool retrieval at BFCL's scale, in one run: every distinct function of BFCL's single-turn data as one catalogue,
queried with every BFCL question whose ground truth names its functions.

Part 1, the retrievers (no model): recall@1/5/10 (the share of a question's needed functions in the top k), MRR
(of the best-ranked needed function), index build time, and query latency p50/p99 (one question at a time) for
BM25, dense (MiniLM off the shelf) and hybrid (reciprocal rank fusion); and, as the peer, LangGraph's bigtool
(`langgraph-bigtool`): its own `retrieve_tools` over a LangGraph `InMemoryStore` indexing "name: description" as
its README does, with the same MiniLM as the embedding (offline), so the difference is what each indexes.

Part 2, the embedded model (`--agent N`): the N items of `multiple` that `toollab eval bfcl --limit N` asks, each
asked twice: with the functions BFCL offers (2-4, the right one among them), and with the top `--k` found by the
dense index in the whole catalogue instead (the right one only if retrieved). BFCL's checker judges both; the
table gives accuracy, prompt tokens, and McNemar's test on the pairs. The retriever and k were chosen before this
ran (dense was the best on the garden services, the development bed); nothing here is tuned on BFCL.

    python benchmarks/retrieval.py [--agent 50] [--k 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import time
from collections import Counter
from typing import Any

from rich.console import Console
from rich.progress import track
from rich.table import Table

from toollab.eval.bfcl.data import SINGLE_TURN, Item, judged_by_relevance, load
from toollab.eval.bfcl.schema import parameters_schema
from toollab.eval.stats import Proportion, mcnemar_exact
from toollab.retrieval.index import BM25Index, DenseIndex, Hit, HybridIndex, ToolIndex
from toollab.tools import ToolSpec

console = Console(width=140)
Key = tuple[str, str]  # a function by its name and description (BFCL reuses names with other descriptions)


def catalogue(items: list[Item]) -> tuple[list[ToolSpec], dict[Key, str], dict[str, dict[str, Any]]]:
    """Every distinct function as a tool with a unique name; the name of each function; each tool's BFCL doc."""
    docs: dict[Key, dict[str, Any]] = {}
    for item in items:
        for fn in item.functions:
            docs.setdefault((fn["name"], fn.get("description", "")), fn)
    counts = Counter(name for name, _ in docs)
    seen: Counter[str] = Counter()
    names: dict[Key, str] = {}
    for key in docs:
        seen[key[0]] += 1
        names[key] = key[0] if counts[key[0]] == 1 else f"{key[0]}~{seen[key[0]]}"
    tools = [
        ToolSpec(names[k], fn.get("description", ""), parameters_schema(fn.get("parameters", {})))
        for k, fn in docs.items()
    ]
    return tools, names, {names[k]: fn for k, fn in docs.items()}


def needed(item: Item, names: dict[Key, str]) -> set[str]:
    """The catalogue names of the functions the item's ground truth calls."""
    offered = {fn["name"]: names[(fn["name"], fn.get("description", ""))] for fn in item.functions}
    return {offered[name] for call in item.answer for name in call if name in offered}


def question(item: Item) -> str:
    return str(item.turns[0][-1]["content"])


class BigtoolIndex:
    """LangGraph bigtool's retrieval as a `ToolIndex`: its `retrieve_tools` function over an `InMemoryStore`."""

    def __init__(self, tools: list[ToolSpec]):
        from langgraph.store.base import PutOp
        from langgraph.store.memory import InMemoryStore

        from toollab.retrieval.dense import encoder

        model = encoder()

        def embed(texts: list[str]) -> list[list[float]]:
            return [list(map(float, v)) for v in model.encode(texts, normalize_embeddings=True, batch_size=64)]

        self.store = InMemoryStore(index={"embed": embed, "dims": 384, "fields": ["description"]})
        puts = [PutOp(("tools",), t.name, {"description": f"{t.name}: {t.description}"}) for t in tools]
        self.store.batch(puts)  # one embedding batch, as the store's own bulk path does
        self._retrieve: dict[int, Any] = {}

    def add(self, tools: Any) -> None:
        raise NotImplementedError("built once for the benchmark")

    def search(self, queries: Any, k: int = 5) -> list[list[Hit]]:
        from langgraph_bigtool.tools import get_default_retrieval_tool

        if k not in self._retrieve:
            self._retrieve[k] = get_default_retrieval_tool(("tools",), limit=k)[0]
        found = [self._retrieve[k](q, store=self.store) for q in queries]
        return [[Hit(name, 1.0 / rank) for rank, name in enumerate(names, 1)] for names in found]


def retrievers(tools: list[ToolSpec]) -> dict[str, tuple[ToolIndex, float]]:
    out: dict[str, tuple[ToolIndex, float]] = {}
    started = time.perf_counter()
    bm25 = BM25Index(tools)
    bm25.search(["warm up"], k=1)  # bm25s builds its index at the first search
    out["BM25"] = (bm25, time.perf_counter() - started)
    from toollab.retrieval.dense import encoder

    encoder()  # loading MiniLM is not building the index
    started = time.perf_counter()
    dense = DenseIndex(tools)
    out["dense (MiniLM)"] = (dense, time.perf_counter() - started)
    out["hybrid (RRF)"] = (HybridIndex([bm25, dense]), out["BM25"][1] + out["dense (MiniLM)"][1])
    started = time.perf_counter()
    bigtool = BigtoolIndex(tools)
    out["LangGraph bigtool (MiniLM)"] = (bigtool, time.perf_counter() - started)
    return out


def part_one(queries: list[tuple[str, set[str]]], indexes: dict[str, tuple[ToolIndex, float]]) -> None:
    table = Table(title=f"{len(queries)} BFCL questions over the catalogue", title_justify="left")
    for c in ("retriever", "recall@1", "recall@5", "recall@10", "MRR", "build s", "query p50 ms", "query p99 ms"):
        table.add_column(c, justify="left" if c == "retriever" else "right")
    for label, (index, build) in indexes.items():
        recall = {1: 0.0, 5: 0.0, 10: 0.0}
        reciprocal = 0.0
        latencies = []
        for text, wanted in track(queries, description=label, console=console):
            started = time.perf_counter()
            (hits,) = index.search([text], k=10)
            latencies.append(1000 * (time.perf_counter() - started))
            ranked = [h.name for h in hits]
            for k in recall:
                recall[k] += len(wanted & set(ranked[:k])) / len(wanted)
            reciprocal += next((1 / r for r, name in enumerate(ranked, 1) if name in wanted), 0.0)
        cuts = statistics.quantiles(latencies, n=100)
        n = len(queries)
        table.add_row(
            label,
            *(f"{100 * recall[k] / n:.1f}%" for k in recall),
            f"{reciprocal / n:.3f}",
            f"{build:.2f}",
            f"{cuts[49]:.2f}",
            f"{cuts[98]:.2f}",
        )
    console.print(table)


async def part_two(items: list[Item], index: ToolIndex, docs: dict[str, dict[str, Any]], k: int) -> None:
    from toollab.eval.bfcl.single_turn import run_single_turn
    from toollab.eval.records import RecordHead
    from toollab.models.registry import load_model
    from toollab.models.switches import Switches

    model = load_model("local")
    policy = Switches().policy()
    rows: dict[str, list[Any]] = {"offered": [], "retrieved": []}
    found = index.search([question(i) for i in items], k=k)
    for item, hits in track(list(zip(items, found, strict=True)), description="the embedded model", console=console):
        head = RecordHead(id=item.id, category=item.category, model="local", format="hermes")
        retrieved = dataclasses.replace(item, functions=[docs[h.name] for h in hits])
        for label, asked in (("offered", item), ("retrieved", retrieved)):
            rows[label].append(await run_single_turn(asked, model, head, policy, keep_dots=False))
    table = Table(title=f"The embedded model on {len(items)} `multiple` items", title_justify="left")
    for c in ("tools shown", "accuracy", "prompt tokens (mean)", "tools (mean)"):
        table.add_column(c, justify="left" if c == "tools shown" else "right")
    for label, records in rows.items():
        shown = [len(i.functions) for i in items] if label == "offered" else [k] * len(items)
        name = "BFCL's offered functions" if label == "offered" else f"dense top {k} of {len(docs)}"
        table.add_row(
            name,
            str(Proportion(sum(r.valid for r in records), len(records))),
            f"{statistics.mean(r.ops.input_tokens for r in records):.0f}",
            f"{statistics.mean(shown):.1f}",
        )
    console.print(table)
    only_offered = sum(a.valid and not b.valid for a, b in zip(rows["offered"], rows["retrieved"], strict=True))
    only_retrieved = sum(b.valid and not a.valid for a, b in zip(rows["offered"], rows["retrieved"], strict=True))
    console.print(
        f"only offered right {only_offered}, only retrieved right {only_retrieved}, "
        f"McNemar p = {mcnemar_exact(only_offered, only_retrieved):.3g}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", type=int, default=0, help="`multiple` items for part 2 (0: skip it)")
    parser.add_argument("--k", type=int, default=3, help="tools retrieved for the model in part 2")
    args = parser.parse_args()
    items = [i for c in SINGLE_TURN for i in load([c], None)]
    tools, names, docs = catalogue(items)
    queries = [(question(i), needed(i, names)) for i in items if not judged_by_relevance(i.category) and i.answer]
    queries = [(q, wanted) for q, wanted in queries if wanted]
    console.print(f"catalogue: {len(tools)} functions ({len({n for n, _ in names})} names) from {len(items)} items")
    indexes = retrievers(tools)
    part_one(queries, indexes)
    if args.agent:
        multiple = load(["multiple"], args.agent)  # the fixed sample `toollab eval bfcl --limit N` asks
        asyncio.run(part_two(multiple, indexes["dense (MiniLM)"][0], docs, args.k))


if __name__ == "__main__":
    main()
