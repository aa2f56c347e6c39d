"""The public API: what `import toollab` offers is pinned here, so that nothing joins or leaves it by accident
(as httpx pins its own). The root holds the core; the rest is imported from its package."""

from __future__ import annotations

import types

import toollab

CORE = {
    # the agent loop, its results and its event log
    "Agent", "FINISH", "Dispatcher", "RunResult", "RunStatus", "Round", "Event", "EventLog", "read_events",
    # messages
    "Message", "SystemMessage", "UserMessage", "AssistantMessage", "ToolCall", "ToolResultMessage", "Usage",
    "UnreadableArguments",
    # models
    "Model", "RequestParams", "CallPolicy", "ModelResponse", "ModelError", "LocalModel", "OpenAIModel",
    "AnthropicModel", "ScriptedModel", "FunctionModel", "call", "load_model", "RateLimit", "RetryPolicy",
    # tools
    "Tool", "ToolSpec", "tool", "ToolError", "InvalidArguments", "ArgumentProblem", "add", "multiply", "calculator",
    "Toolset",
    # wire formats
    "Format", "get_format", "to_openai", "from_openai", "to_anthropic", "from_anthropic",
}  # fmt: skip


def test_the_root_exports_exactly_the_core():
    assert set(toollab.__all__) == CORE
    assert len(toollab.__all__) == len(CORE), "a name is listed twice"


def test_every_exported_name_exists_and_every_public_name_is_exported():
    assert all(hasattr(toollab, name) for name in toollab.__all__)
    public = {
        name
        for name, value in vars(toollab).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(toollab.__all__)


def test_the_rest_is_under_its_package():
    from toollab.constrain import ToolGrammar
    from toollab.eval import BfclRun, RunConfig, compare_runs, mcnemar_exact, wilson_interval
    from toollab.lab import Knobs, SimulatedModel, countries_tools, generate_tasks
    from toollab.retrieval import Catalogue

    for name in ("ToolGrammar", "BfclRun", "RunConfig", "Knobs", "SimulatedModel", "Catalogue"):
        assert not hasattr(toollab, name) or isinstance(getattr(toollab, name), types.ModuleType)
    assert all((ToolGrammar, BfclRun, RunConfig, compare_runs, mcnemar_exact, wilson_interval))
    assert all((Knobs, SimulatedModel, countries_tools, generate_tasks, Catalogue))
