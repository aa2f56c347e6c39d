"""Parallel: independent steps at once, then an aggregation step that is told exactly what came back.

A branch that fails does not sink the others, and is never hidden: the aggregation reads "2 of 3 branches
answered" and which failed with what error, the result lists the failures, and its status is `partial`. Only
when every branch fails does the step fail. Concurrency is set by a tokens-per-minute budget when one is given
(`toollab.workflows.rate`), else by `max_concurrency` (all at once by default).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from toollab.harness.messages import Usage
from toollab.workflows.rate import TokensPerMinute
from toollab.workflows.session import Failure, Session, StepError, branch_usage
from toollab.workflows.steps import Step, named


def budget_of(tokens_per_minute: int | TokensPerMinute | None) -> TokensPerMinute | None:
    """A budget from a number of tokens per minute (or a budget itself, shared between steps)."""
    if tokens_per_minute is None or isinstance(tokens_per_minute, TokensPerMinute):
        return tokens_per_minute
    return TokensPerMinute(tokens_per_minute)


def report(answers: Mapping[str, str], failed: Mapping[str, str], order: list[str]) -> str:
    """What the branches gave, in their order, headed by how many answered and which failed."""
    lines = [f"{len(answers)} of {len(order)} branches answered."]
    lines += [f"Failed: {name}: {failed[name]}" for name in order if name in failed]
    lines += [f"\n## {name}\n{answers[name]}" for name in order if name in answers]
    return "\n".join(lines)


async def run_branches(
    session: Session,
    branches: Mapping[str, tuple[Step, str]],
    here: str,
    budget: TokensPerMinute | None,
    estimate: int,
    max_concurrency: int | None,
) -> str:
    """Run each branch's step on its input at once (within the budget); the `report` of what came back (each
    failure also recorded in the session). Anything but a step failure (a gate, the request cap, a bug) cancels
    the rest and propagates."""
    answers: dict[str, str] = {}
    failed: dict[str, str] = {}
    limit = asyncio.Semaphore(max_concurrency) if max_concurrency else None

    async def one(name: str, step: Step, text: str) -> None:
        meter = [Usage()]
        branch_usage.set(meter)  # this task's own context: only its requests count
        if limit is not None:
            await limit.acquire()
        if budget is not None:
            await budget.acquire(estimate)
        try:
            answers[name] = await step.run(session, text, named(here, name))
        except StepError as exc:
            failed[name] = exc.error
            session.failures.append(Failure(exc.step, exc.error))
        finally:
            if budget is not None:
                budget.release(estimate, meter[0].total_tokens)
            if limit is not None:
                limit.release()

    async with asyncio.TaskGroup() as group:
        for name, (step, text) in branches.items():
            group.create_task(one(name, step, text))
    if not answers:
        errors = "; ".join(f"{n}: {failed[n]}" for n in branches)
        raise session.failed(here, f"every branch failed ({errors})", "harness")
    return report(answers, failed, list(branches))


async def aggregated(session: Session, step: Step | None, task: str, gathered: str, here: str) -> str:
    """The aggregation step's answer to the task and the branches' report (the report itself without one)."""
    if step is None:
        return gathered
    return await step.run(session, f"Task:\n{task}\n\n{gathered}", here)


class Parallel:
    """Runs `branches` (name -> step, each on the input) at once; `aggregate` reads the report of what came back
    (`report`) and writes the output (without it, the report is the output). `tokens_per_minute` with
    `estimate` (tokens a branch's request takes) sets how many run at once."""

    def __init__(
        self,
        branches: Mapping[str, Step],
        aggregate: Step | None = None,
        *,
        name: str = "parallel",
        tokens_per_minute: int | TokensPerMinute | None = None,
        estimate: int = 1000,
        max_concurrency: int | None = None,
    ):
        if not branches:
            raise ValueError("a parallel step needs at least one branch")
        self.branches = dict(branches)
        self.aggregate = aggregate
        self.name = name
        self.budget = budget_of(tokens_per_minute)
        self.estimate = estimate
        self.max_concurrency = max_concurrency

    async def run(self, session: Session, text: str, path: str) -> str:
        here = named(path, self.name)
        work = {name: (step, text) for name, step in self.branches.items()}
        gathered = await run_branches(session, work, here, self.budget, self.estimate, self.max_concurrency)
        return await aggregated(session, self.aggregate, text, gathered, here)
