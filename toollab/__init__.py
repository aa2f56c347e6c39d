"""toollab: build, run and measure tool-using LLM agents.

A model never runs a tool: it proposes a call, and the harness decides whether and how to run it.

The root holds the core: the agent, tools, models, wire formats and messages. The rest lives in its package:
`toollab.constrain` (constrained decoding), `toollab.eval` (BFCL, statistics, reports), `toollab.lab` (the
simulated world and experiments), `toollab.interfaces` (command line, MCP, REST). `tests/test_public_api.py`
pins this list.
"""

from toollab.formats import Format, from_anthropic, from_openai, get_format, to_anthropic, to_openai
from toollab.harness import (
    FINISH,
    Agent,
    AssistantMessage,
    CallPolicy,
    Dispatcher,
    Event,
    EventLog,
    Message,
    Model,
    ModelError,
    ModelResponse,
    RequestParams,
    Round,
    RunResult,
    RunStatus,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Toolset,
    UnreadableArguments,
    Usage,
    UserMessage,
    read_events,
)
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
    "CallPolicy",
    "Dispatcher",
    "Event",
    "EventLog",
    "Format",
    "FunctionModel",
    "InvalidArguments",
    "LocalModel",
    "Message",
    "Model",
    "ModelError",
    "ModelResponse",
    "OpenAIModel",
    "RateLimit",
    "RequestParams",
    "RetryPolicy",
    "Round",
    "RunResult",
    "RunStatus",
    "ScriptedModel",
    "SystemMessage",
    "Tool",
    "ToolCall",
    "ToolError",
    "ToolResultMessage",
    "ToolSpec",
    "Toolset",
    "UnreadableArguments",
    "Usage",
    "UserMessage",
    "add",
    "calculator",
    "call",
    "from_anthropic",
    "from_openai",
    "get_format",
    "load_model",
    "multiply",
    "read_events",
    "to_anthropic",
    "to_openai",
    "tool",
]
