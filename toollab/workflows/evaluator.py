"""Evaluator-optimizer: draft, critique, revise, until the evaluator accepts or the round cap is reached."""

from __future__ import annotations

from collections.abc import Callable

from toollab.workflows.session import Session
from toollab.workflows.steps import Step, named

ACCEPTING = ("ACCEPT", "PASS", "APPROVE")


def accepts(verdict: str) -> bool:
    """The default reading of a verdict: it starts with ACCEPT, PASS or APPROVE (any case)."""
    return verdict.strip().upper().startswith(ACCEPTING)


def revision_request(task: str, draft: str, critique: str) -> str:
    return (
        f"{task}\n\nYour previous answer:\n{draft}\n\nA reviewer's critique:\n{critique}\n\nWrite an improved answer."
    )


def review_request(task: str, draft: str) -> str:
    return f"Task:\n{task}\n\nAnswer to review:\n{draft}"


class EvaluatorOptimizer:
    """`generate` drafts (and later revises, reading the critique); `evaluate` reviews each draft and accepts it
    or says what to fix (`accepted(verdict)`). After `max_rounds` drafts without acceptance the last draft is the
    output and the run's status is `max_steps`: a capped loop never passes for an accepted one."""

    def __init__(
        self,
        generate: Step,
        evaluate: Step,
        *,
        name: str = "refine",
        max_rounds: int = 3,
        accepted: Callable[[str], bool] = accepts,
    ):
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
        self.generate = generate
        self.evaluate = evaluate
        self.name = name
        self.max_rounds = max_rounds
        self.accepted = accepted

    async def run(self, session: Session, text: str, path: str) -> str:
        here = named(path, self.name)
        draft = await self.generate.run(session, text, named(here, "round 1"))
        for n in range(1, self.max_rounds + 1):
            verdict = await self.evaluate.run(session, review_request(text, draft), named(here, f"round {n}"))
            if self.accepted(verdict):
                return draft
            if n == self.max_rounds:
                break
            draft = await self.generate.run(
                session, revision_request(text, draft, verdict), named(here, f"round {n + 1}")
            )
        session.capped = True
        return draft
