"""The harness: dispatch, the agent loop, parallel calls and the event log."""

from toollab.harness.agent import Agent
from toollab.harness.arguments import UnreadableArguments
from toollab.harness.context import ContextBudget
from toollab.harness.dispatch import Dispatcher, asking_approver
from toollab.harness.events import Event, EventLog, read_events
from toollab.harness.finish import FINISH
from toollab.harness.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from toollab.harness.model import Model, ModelError, ModelResponse
from toollab.harness.request import CallPolicy, RequestParams
from toollab.harness.result import Round, RunResult, RunStatus
from toollab.harness.toolsets import RankedToolset, Toolset

__all__ = [
    "FINISH",
    "Agent",
    "AssistantMessage",
    "CallPolicy",
    "ContextBudget",
    "Dispatcher",
    "Event",
    "EventLog",
    "Message",
    "Model",
    "ModelError",
    "ModelResponse",
    "RankedToolset",
    "RequestParams",
    "Round",
    "RunResult",
    "RunStatus",
    "SystemMessage",
    "ToolCall",
    "ToolResultMessage",
    "Toolset",
    "UnreadableArguments",
    "Usage",
    "UserMessage",
    "asking_approver",
    "read_events",
]
