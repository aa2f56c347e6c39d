"""toollab: build, run and measure tool-using LLM agents.

A model never runs a tool: it proposes a call, and the harness decides whether and how to run it.
"""

from toollab.formats import from_anthropic, from_openai, to_anthropic, to_openai
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
from toollab.models import FunctionModel, ScriptedModel, call
from toollab.tools import ArgumentProblem, InvalidArguments, Tool, ToolError, ToolSpec, add, calculator, multiply, tool

__version__ = "0.1.0"

__all__ = [
    "FINISH",
    "Agent",
    "ArgumentProblem",
    "AssistantMessage",
    "Dispatcher",
    "EventLog",
    "FunctionModel",
    "InvalidArguments",
    "Message",
    "Model",
    "ModelError",
    "ModelResponse",
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
    "Usage",
    "UserMessage",
    "add",
    "calculator",
    "call",
    "from_anthropic",
    "from_openai",
    "multiply",
    "read_events",
    "to_anthropic",
    "to_openai",
    "tool",
]
