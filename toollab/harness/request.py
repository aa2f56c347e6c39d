"""What one model request may do, and how the agent decides it each round.

`RequestParams` goes to every backend with every request (as pydantic-ai's ModelRequestParameters do): the tools
offered, the tool choice and whether a turn may hold several calls. HTTP backends send them on the wire
(`tool_choice`, `parallel_tool_calls`); a constrained local model compiles them into its grammar.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toollab.tools import ToolSpec

CHOICES = ("auto", "required", "none")


def check_choice(choice: str) -> str:
    """A tool choice: "auto" (answer, or call), "required" (at least one call), "none" (no call), or the name of
    the one tool to call. Raises ValueError for an empty one."""
    if not isinstance(choice, str) or not choice.strip():
        raise ValueError(f"tool choice must be one of {', '.join(CHOICES)} or a tool name")
    return choice.strip()


@dataclass(frozen=True, slots=True)
class RequestParams:
    """One request's tools and rules. `tool_choice` as `check_choice` reads it; `parallel`: several calls may come
    in one turn. `finish` names the harness's finish action among the tools, which must come alone (a turn holds
    tool calls or a finish); a constrained decoder offers it only so."""

    tools: Sequence[ToolSpec] = ()
    tool_choice: str = "auto"
    parallel: bool = True
    finish: str | None = None

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
    calls. The final request, once a limit is hit, offers no tools."""

    first_turn: str = "auto"
    after_results: str = "auto"
    parallel: bool = True

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
        )

    def params(self, tools: Sequence[ToolSpec], after_results: bool, finish: str | None = None) -> RequestParams:
        choice = self.after_results if after_results else self.first_turn
        return RequestParams(tools, choice if tools else "auto", self.parallel, finish if tools else None)


def policy_of(model: object) -> CallPolicy:
    """The call policy a model carries (`model.policy`, set where the model is built), or the default one."""
    policy = getattr(model, "policy", None)
    return policy if isinstance(policy, CallPolicy) else CallPolicy()
