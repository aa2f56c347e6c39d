"""toollab: build, run and measure tool-using LLM agents.

A model never runs a tool: it proposes a call, and the harness decides whether and how to run it.
"""

from toollab.constrain import ToolChoice, ToolGrammar
from toollab.eval import BfclRun, RunConfig, compare_runs, mcnemar_exact, wilson_interval
from toollab.formats import Format, from_anthropic, from_openai, get_format, to_anthropic, to_openai
from toollab.harness import (
    FINISH,
    Agent,
    AssistantMessage,
    Dispatcher,
    EventLog,
    Message,
    Model,
    ModelError,
    ModelResponse,
    Round,
    RunResult,
    RunStatus,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    read_events,
)
from toollab.lab import Knobs, SimulatedModel, countries_tools, generate_tasks
from toollab.models import (
    AnthropicModel,
    FunctionModel,
    LocalModel,
    OpenAIModel,
    RateLimit,
    RetryPolicy,
    ScriptedModel,
    call,
    load_model,
)
from toollab.tools import ArgumentProblem, InvalidArguments, Tool, ToolError, ToolSpec, add, calculator, multiply, tool

__version__ = "0.1.0"

__all__ = [
    "FINISH",
    "Agent",
    "AnthropicModel",
    "ArgumentProblem",
    "AssistantMessage",
    "BfclRun",
    "Dispatcher",
    "EventLog",
    "Format",
    "FunctionModel",
    "InvalidArguments",
    "Knobs",
    "LocalModel",
    "Message",
    "Model",
    "ModelError",
    "ModelResponse",
    "OpenAIModel",
    "RateLimit",
    "RetryPolicy",
    "Round",
    "RunConfig",
    "RunResult",
    "RunStatus",
    "ScriptedModel",
    "SimulatedModel",
    "SystemMessage",
    "Tool",
    "ToolCall",
    "ToolChoice",
    "ToolError",
    "ToolGrammar",
    "ToolResultMessage",
    "ToolSpec",
    "Usage",
    "UserMessage",
    "add",
    "calculator",
    "call",
    "compare_runs",
    "countries_tools",
    "from_anthropic",
    "from_openai",
    "generate_tasks",
    "get_format",
    "load_model",
    "mcnemar_exact",
    "multiply",
    "read_events",
    "to_anthropic",
    "to_openai",
    "tool",
    "wilson_interval",
]
