"""Workflows: fixed shapes of model calls for when reliability matters more than the agent loop's freedom.

chain, route, parallel, orchestrator-workers and evaluator-optimizer, made of steps (`Prompt`, `Check`,
`AgentStep`) and of each other; a `Workflow` runs one with the agent loop's events, event log and resume."""

from toollab.workflows.chain import Chain
from toollab.workflows.evaluator import EvaluatorOptimizer
from toollab.workflows.orchestrator import OrchestratorWorkers
from toollab.workflows.parallel import Parallel
from toollab.workflows.rate import TokensPerMinute
from toollab.workflows.route import Route
from toollab.workflows.session import Failure, Session, WorkflowResult
from toollab.workflows.steps import AgentStep, Check, Prompt, Step, agent_tool
from toollab.workflows.workflow import Workflow

__all__ = [
    "AgentStep",
    "Chain",
    "Check",
    "EvaluatorOptimizer",
    "Failure",
    "OrchestratorWorkers",
    "Parallel",
    "Prompt",
    "Route",
    "Session",
    "Step",
    "TokensPerMinute",
    "Workflow",
    "WorkflowResult",
    "agent_tool",
]
