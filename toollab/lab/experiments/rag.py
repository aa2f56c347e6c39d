"""Agentic retrieval against fixed pipelines on a generated company handbook: does letting the model choose how
to search (literal, dense, filters, rephrasing, a hypothetical answer, sub-questions, reranking, expanding a hit)
answer more questions, cite the right passages, and at what cost in calls and tokens?

With the default model (`sim`) the reader is the handbook's simulated reader (`toollab.lab.handbook.reader`: it
reads perfectly what it is shown, so this measures what each strategy puts in front of it); with `--model local`
the embedded model does everything: chooses the tools, rewrites, and answers. `--n` is the number of questions
(the five kinds in turn).
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from toollab.eval.stats import Proportion, mcnemar_exact
from toollab.harness import Agent, RunResult
from toollab.harness.model import Model
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, mean, save, table
from toollab.lab.handbook.reader import SimulatedReader, normal
from toollab.lab.handbook.world import KINDS, Question, handbook, questions
from toollab.lab.simulated.model import SimulatedModel
from toollab.rag import AGENT, PIPELINES, SYSTEM_PROMPT, DocumentIndex, pipeline, rag_tools, search_first

MAX_STEPS = 6
_CITED = re.compile(r"\[([^\]\s]+#\d+)\]")


@dataclass
class Answered:
    question: str
    kind: str
    expected: str
    condition: str
    answer: str | None
    correct: bool
    cited_right: bool  # cites at least one passage the answer rests on
    status: str
    model_requests: int
    tool_calls: int
    tools: list[str]
    input_tokens: int
    output_tokens: int
    seconds: float


def evidence_ids(index: DocumentIndex, q: Question) -> set[str]:
    return {p.id for p in index.passages for phrase in q.evidence if normal(phrase) in normal(p.text)}


def record(q: Question, condition: str, result: RunResult, gold: set[str], seconds: float) -> Answered:
    cited = set(_CITED.findall(result.answer or ""))
    calls = [c.name for c in result.tool_calls if c.name != "finish"]
    return Answered(q.text, q.kind, q.expected, condition, result.answer, q.right(result.answer),
                    bool(cited & gold), str(result.status), len(result.rounds), len(calls), calls,
                    result.usage.input_tokens, result.usage.output_tokens, seconds)  # fmt: skip


async def answer_all(model: Model, index: DocumentIndex, asked: list[Question], s: Settings) -> list[Answered]:
    conditions = [AGENT, *PIPELINES]
    out = []
    total = len(asked) * len(conditions)
    for q in asked:
        gold = evidence_ids(index, q)
        for condition in conditions:
            started = time.perf_counter()
            if condition == AGENT:
                agent = Agent(model, rag_tools(index, model), system_prompt=SYSTEM_PROMPT, max_steps=MAX_STEPS,
                              policy=search_first(model))  # fmt: skip
                result = await agent.run(q.text)
            else:
                result = await pipeline(condition, index, model).run(q.text)
            out.append(record(q, condition, result, gold, time.perf_counter() - started))
            if s.on_progress is not None:
                s.on_progress(len(out), total)
    return out


async def run(s: Settings) -> Report:
    book = handbook(s.seed)
    asked = questions(book, s.n, s.seed)
    with tempfile.TemporaryDirectory() as scratch:
        folder = book.write((s.out or Path(scratch)) / "handbook")
        index, problems = DocumentIndex.build(folder)
    assert not problems, problems  # the lab's own documents always read
    model: Model = SimulatedReader(book, asked) if isinstance(s.model, SimulatedModel) else s.model
    name = getattr(model, "name", type(model).__name__)
    answered = await answer_all(model, index, asked, s)
    report = Report("rag", name)
    conditions = [AGENT, *PIPELINES]
    by = {c: [a for a in answered if a.condition == c] for c in conditions}
    rows = []
    for c in conditions:
        got = by[c]
        right = Proportion(sum(a.correct for a in got), len(got))
        cited = Proportion(sum(a.cited_right for a in got), len(got))
        rows.append([c, cell(right), cell(cited), mean(a.model_requests for a in got), mean(a.tool_calls for a in got),
                     mean(a.input_tokens + a.output_tokens for a in got), mean(a.seconds for a in got)])  # fmt: skip
        report.headline[f"accuracy {c}"] = right.value
        report.headline[f"cited right {c}"] = cited.value
    report.tables.append(table(
        f"{len(asked)} handbook questions, {len(index.passages)} passages in 3 collections (95% Wilson); {name}",
        ["strategy", "right answer", "cites its evidence", "model requests", "tool calls", "tokens", "seconds"],
        rows,
    ))  # fmt: skip
    groups = {k: {c: Proportion(sum(a.correct for a in by[c] if a.kind == k), sum(a.kind == k for a in by[c]))
                  for c in conditions} for k in KINDS}  # fmt: skip
    report.tables.append(table(
        "Right answers by kind of question", ["kind", *conditions],
        [[k, *(f"{g.k}/{g.n}" for g in groups[k].values())] for k in KINDS],
    ))  # fmt: skip
    agent_right = [a.correct for a in by[AGENT]]
    paired = []
    for c in PIPELINES:
        other = [a.correct for a in by[c]]
        only_agent = sum(x and not y for x, y in zip(agent_right, other, strict=True))
        only_other = sum(y and not x for x, y in zip(agent_right, other, strict=True))
        paired.append([c, only_agent, only_other, f"{mcnemar_exact(only_agent, only_other):.3g}"])
    columns = ["pipeline", "only the agent right", "only the pipeline right", "p"]
    report.tables.append(table("The agent against each pipeline, paired (exact McNemar)", columns, paired))
    used: dict[str, int] = {}
    for a in by[AGENT]:
        for t in a.tools:
            used[t] = used.get(t, 0) + 1
    report.tables.append(table("Tools the agent chose (calls over all questions)", ["tool", "calls"],
                               sorted(used.items(), key=lambda kv: -kv[1])))  # fmt: skip
    report.notes.append(
        f"Agent: {len(rag_tools(index, model))} tools, at most {MAX_STEPS} steps; pipelines retrieve 3 passages "
        "(hybrid = BM25 and MiniLM fused by reciprocal rank; rerank = 20 candidates rescored by BM25 and MiniLM "
        "together, no cross-encoder ships offline)."
    )
    save(report, s)
    if s.out is not None:
        path = s.out / "answers.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for a in answered:
                f.write(json.dumps(asdict(a), ensure_ascii=False) + "\n")
        report.files.append(path)
        report.files.append(bar_plot(s.out / "accuracy.png", f"Right answers by kind ({name})", groups))
    return report
