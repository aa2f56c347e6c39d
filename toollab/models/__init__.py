"""Model backends behind one interface (`toollab.harness.model.Model`). torch is imported only when a local
model is loaded."""

from toollab.models.anthropic import AnthropicModel
from toollab.models.http import RateLimit, RetryPolicy
from toollab.models.local import LocalModel
from toollab.models.openai_compatible import OpenAIModel
from toollab.models.registry import load_model
from toollab.models.scripted import FunctionModel, ScriptedModel, call

__all__ = [
    "AnthropicModel",
    "FunctionModel",
    "LocalModel",
    "OpenAIModel",
    "RateLimit",
    "RetryPolicy",
    "ScriptedModel",
    "call",
    "load_model",
]
