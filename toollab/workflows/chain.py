"""Chain: each step processes the previous step's output, with gates (`Check`) between them where needed."""

from __future__ import annotations

from collections.abc import Sequence

from toollab.workflows.session import Session
from toollab.workflows.steps import Step, named


class Chain:
    def __init__(self, steps: Sequence[Step], *, name: str = "chain"):
        if not steps:
            raise ValueError("a chain needs at least one step")
        self.steps = list(steps)
        self.name = name

    async def run(self, session: Session, text: str, path: str) -> str:
        here = named(path, self.name)
        for step in self.steps:
            text = await step.run(session, text, here)
        return text
