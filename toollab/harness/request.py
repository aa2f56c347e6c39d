"""What one model request may do, and how the agent decides it each round.

`RequestParams` goes to every backend with every request (as pydantic-ai's ModelRequestParameters do): the tools
offered, the tool choice and whether a turn may hold several calls. HTTP backends send them on the wire
(`tool_choice`, `parallel_tool_calls`); a constrained local model compiles them into its grammar.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from toollab.tools import ToolSpec

CHOICES = ("auto", "required", "none")
ANSWER = "answer"  # a policy's choice for "answer now": the finish action when the agent has one, else prose
GATE_SIGNALS = ("model", "bm25", "dense", "dense-unnamed")


@dataclass(frozen=True, slots=True)
class Gate:
    """Decides, on a turn whose tool choice is "auto", between calling (at least one call) and answering (no
    call), for a backend that can measure it (a local model). `signal`: "model", the log-probability the model
    gives to opening a call; "bm25" or "dense", the request's relevance to its best-fitting tool; "dense-unnamed",
    that of the request without the names it gives (`messages.without_names`). The turn calls when the score
    reaches `threshold`."""

    signal: str
    threshold: float

    def __post_init__(self) -> None:
        if self.signal not in GATE_SIGNALS:
            raise ValueError(f"unknown gate signal {self.signal!r}; known: {', '.join(GATE_SIGNALS)}")


def check_choice(choice: str) -> str:
    """A tool choice: "auto" (answer, or call), "required" (at least one call), "none" (no call), or the name of
    the one tool to call. Raises ValueError for an empty one."""
    if not isinstance(choice, str) or not choice.strip():
        raise ValueError(f"tool choice must be one of {', '.join(CHOICES)} or a tool name")
    return choice.strip()


class ToolSelector(Protocol):
    """Chooses which of the offered tools a request shows the model, from what the user asked (a retriever)."""

    def __call__(self, request: str, tools: Sequence[ToolSpec]) -> Sequence[ToolSpec]: ...


@dataclass(frozen=True, slots=True)
class RequestParams:
    """One request's tools and rules. `tool_choice` as `check_choice` reads it; `parallel`: several calls may come
    in one turn. `finish` names the harness's finish action among the tools, which must come alone (a turn holds
    tool calls or a finish); a constrained decoder offers it only so."""

    tools: Sequence[ToolSpec] = ()
    tool_choice: str = "auto"
    parallel: bool = True
    finish: str | None = None
    gate: Gate | None = None  # how a backend that can decides an "auto" turn (others decide themselves)

    def __post_init__(self) -> None:
        check_choice(self.tool_choice)

    @property
    def named_tool(self) -> str | None:
        """The tool the choice names, when it names one."""
        return None if self.tool_choice in CHOICES else self.tool_choice


@dataclass(frozen=True, slots=True)
class CallPolicy:
    """How the agent sets each round's request: the tool choice of a turn that answers the user
    (`first_turn`), of a turn that follows tool results (`after_results`), and whether a turn may hold several
    calls. Besides the request's choices, a policy may say "answer": the turn answers now, with the finish action
    when the agent has one and in prose otherwise. `gate` decides "auto" turns for backends that can measure it;
    `select` chooses the tools a request shows. With `direct`, a round whose tool calls all succeed ends the run
    with their results as the answer (LangChain's `return_direct`, for every tool); with `chain` too, a round
    whose results leave arithmetic the request asks undone is followed by one call of the offered expression tool
    (`harness.chain`), whose result is then the answer. The final request, once a limit is hit, offers no
    tools."""

    first_turn: str = "auto"
    after_results: str = "auto"
    parallel: bool = True
    gate: Gate | None = None
    select: ToolSelector | None = None  # which tools each request shows (all of them when None)
    direct: bool = False  # a round whose calls all succeed ends the run, their results the answer
    chain: bool = False  # with direct: results that leave the request's arithmetic undone lead to one more call

    def __post_init__(self) -> None:
        check_choice(self.first_turn)
        check_choice(self.after_results)

    def updated(
        self, first_turn: str | None = None, after_results: str | None = None, parallel: bool | None = None
    ) -> CallPolicy:
        """This policy with the settings that are given (not None) put in."""
        return CallPolicy(
            first_turn=self.first_turn if first_turn is None else first_turn,
            after_results=self.after_results if after_results is None else after_results,
            parallel=self.parallel if parallel is None else parallel,
            gate=self.gate,
            select=self.select,
            direct=self.direct,
            chain=self.chain,
        )

    def params(
        self, tools: Sequence[ToolSpec], after_results: bool, finish: str | None = None, request: str = ""
    ) -> RequestParams:
        """The request of a turn offering `tools` (`request`: what the user asked, for `select`)."""
        choice = self.after_results if after_results else self.first_turn
        if choice == ANSWER:
            choice = finish or "none"
        if self.select is not None and tools:
            own = [t for t in tools if t.name != finish]
            tools = [*self.select(request, own), *(t for t in tools if t.name == finish)]
        return RequestParams(tools, choice if tools else "auto", self.parallel, finish if tools else None, self.gate)


def policy_of(model: object) -> CallPolicy:
    """The call policy a model carries (`model.policy`, set where the model is built), or the default one."""
    policy = getattr(model, "policy", None)
    return policy if isinstance(policy, CallPolicy) else CallPolicy()
