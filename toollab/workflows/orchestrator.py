"""Orchestrator-workers: a planning step splits the task into subtasks, workers handle them at once (a worker
may be an agent with its own tools, `AgentStep`), and a last step puts their answers together."""

from __future__ import annotations

import re

from toollab.workflows.parallel import aggregated, budget_of, run_branches
from toollab.workflows.rate import TokensPerMinute
from toollab.workflows.session import Session
from toollab.workflows.steps import Step, named

_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.*\S)")


def subtasks(plan: str) -> list[str]:
    """The subtasks a plan lists: its bulleted or numbered lines, else its non-empty lines."""
    items = [m.group(1) for line in plan.splitlines() if (m := _ITEM.match(line))]
    return items or [line.strip() for line in plan.splitlines() if line.strip()]


class OrchestratorWorkers:
    """`plan` answers with the subtasks, one per line; `worker` runs on each (at most `max_workers`, the step cap:
    a longer plan is cut and the report says so); `synthesise` reads the task and the workers' report."""

    def __init__(
        self,
        plan: Step,
        worker: Step,
        synthesise: Step | None = None,
        *,
        name: str = "orchestrate",
        max_workers: int = 5,
        tokens_per_minute: int | TokensPerMinute | None = None,
        estimate: int = 1000,
    ):
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, got {max_workers}")
        self.plan = plan
        self.worker = worker
        self.synthesise = synthesise
        self.name = name
        self.max_workers = max_workers
        self.budget = budget_of(tokens_per_minute)
        self.estimate = estimate

    async def run(self, session: Session, text: str, path: str) -> str:
        here = named(path, self.name)
        planned = subtasks(await self.plan.run(session, text, here))
        if not planned:
            raise session.failed(named(here, self.plan.name), "the plan lists no subtasks", "model")
        work = {f"subtask {i}": (self.worker, task) for i, task in enumerate(planned[: self.max_workers], 1)}
        gathered = await run_branches(session, work, here, self.budget, self.estimate, None)
        if len(planned) > self.max_workers:
            gathered += f"\n\n(The plan had {len(planned)} subtasks; the first {self.max_workers} ran: max_workers.)"
        return await aggregated(session, self.synthesise, text, gathered, here)
