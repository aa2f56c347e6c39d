"""Route: a first step classifies the input, and the branch it names handles it."""

from __future__ import annotations

import re
from collections.abc import Mapping

from toollab.workflows.session import Session
from toollab.workflows.steps import Step, named


def chosen(label: str, names: list[str]) -> str | None:
    """The branch a classifier's answer names: the whole answer, else the branch name it mentions first (as a
    word, any case)."""
    wanted = label.strip().strip(".").lower()
    exact = [n for n in names if n.lower() == wanted]
    if exact:
        return exact[0]
    found = []
    for n in names:
        match = re.search(rf"(?<!\w){re.escape(n.lower())}(?!\w)", label.lower())
        if match:
            found.append((match.start(), n))
    return min(found)[1] if found else None


class Route:
    """`classify` reads the input and answers with a branch name; that branch runs on the input. An answer that
    names no branch goes to `default` when there is one, and otherwise fails the step, saying what was allowed."""

    def __init__(
        self, classify: Step, branches: Mapping[str, Step], *, name: str = "route", default: str | None = None
    ):
        if not branches:
            raise ValueError("a route needs at least one branch")
        if default is not None and default not in branches:
            raise ValueError(f"the default branch {default!r} is not one of the branches")
        self.classify = classify
        self.branches = dict(branches)
        self.name = name
        self.default = default

    async def run(self, session: Session, text: str, path: str) -> str:
        here = named(path, self.name)
        label = await self.classify.run(session, text, here)
        branch = chosen(label, list(self.branches)) or self.default
        if branch is None:
            allowed = ", ".join(self.branches)
            raise session.failed(named(here, self.classify.name), f"answered {label!r}, not one of: {allowed}", "model")
        return await self.branches[branch].run(session, text, named(here, branch))
