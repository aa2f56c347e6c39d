"""Steps: what a workflow is made of. Each takes text and gives text within a `Session`; the patterns (`Chain`,
`Route`, `Parallel`, `OrchestratorWorkers`, `EvaluatorOptimizer`) are steps too, so they compose (a chain of
routes, parallel evaluator loops)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from toollab.harness.agent import Agent
from toollab.harness.messages import Message, SystemMessage, ToolCall, ToolResultMessage, UserMessage
from toollab.harness.model import Model
from toollab.harness.request import RequestParams
from toollab.harness.result import RunStatus
from toollab.tools import Tool, ToolError
from toollab.workflows.session import Session, Stopped


@runtime_checkable
class Step(Protocol):
    """A unit of a workflow: `run` turns `text` into the next text. `path` is where the step sits in the
    workflow (its parent's name); its own events are named `path/name`."""

    name: str

    async def run(self, session: Session, text: str, path: str) -> str: ...


def named(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


def fill(template: str, text: str) -> str:
    """`template` with `{input}` replaced by `text` (only that: braces elsewhere stay as written)."""
    return template.replace("{input}", text)


class Prompt:
    """One model request: `template` (with `{input}`) as the user message, after `system` if given. Its output is
    the model's text; a turn with no text fails the step (a workflow never passes an empty result on)."""

    def __init__(
        self,
        model: Model,
        template: str = "{input}",
        *,
        name: str = "prompt",
        system: str | None = None,
        params: RequestParams | None = None,
    ):
        self.model = model
        self.template = template
        self.name = name
        self.system = system
        self.params = params

    async def run(self, session: Session, text: str, path: str) -> str:
        step = named(path, self.name)
        messages: list[Message] = [SystemMessage(content=self.system)] if self.system else []
        messages.append(UserMessage(content=fill(self.template, text)))
        reply = await session.ask(self.model, messages, step, self.params)
        if not (reply.content or "").strip():
            raise session.failed(step, "the model wrote no text", "model")
        return (reply.content or "").strip()


class Check:
    """A gate between steps: `problem(text)` returns what is wrong with the text, or None to let it through
    unchanged. A problem stops the workflow (status `stopped`, the problem as its error)."""

    def __init__(self, problem: Callable[[str], str | None], *, name: str = "check"):
        self.problem = problem
        self.name = name

    async def run(self, session: Session, text: str, path: str) -> str:
        found = self.problem(text)
        if found is not None:
            raise Stopped(named(path, self.name), found)
        return text


class AgentStep:
    """A whole agent run as one step (a worker with tools): the input, through `template`, is its task and its
    answer the output. Reported as a call of a tool named after the step, so the log shows what was delegated
    and what came back; a resumed workflow reads a finished agent's answer back instead of running it again."""

    def __init__(self, agent: Agent, *, name: str = "agent", template: str = "{input}"):
        self.agent = agent
        self.name = name
        self.template = template

    async def run(self, session: Session, text: str, path: str) -> str:
        step = named(path, self.name)
        session.claim(step)
        task = fill(self.template, text)
        call = ToolCall(id=step, name=self.name.replace(" ", "_"), arguments={"task": task})
        known = session.recorded_answer(step)
        if known is not None:
            session.messages.append(known)
            return known.content
        session.called(call)
        started = time.perf_counter()
        result = await self.agent.run(task)
        session.usage += result.usage
        if result.status == RunStatus.MODEL_ERROR or not (result.answer or "").strip():
            error = result.error or f"the agent ended ({result.status}) without an answer"
            session.returned(ToolResultMessage(call_id=step, name=call.name, content=error, is_error=True), 0.0)
            raise session.failed(step, error, result.error_source or "model")
        answer = (result.answer or "").strip()
        session.returned(ToolResultMessage(call_id=step, name=call.name, content=answer), time.perf_counter() - started)
        return answer


def agent_tool(agent: Agent, name: str, description: str) -> Tool:
    """An agent as a tool another agent may call with a `task` (orchestrator-workers where the orchestrator is
    itself an agent loop). The worker's run is its own: its answer is the result, its failure an error result."""

    async def delegate(arguments: dict[str, object]) -> str:
        result = await agent.run(str(arguments["task"]))
        if result.status == RunStatus.MODEL_ERROR or not (result.answer or "").strip():
            raise ToolError(result.error or f"the {name} agent ended ({result.status}) without an answer")
        return str(result.answer).strip()

    schema = {
        "type": "object",
        "properties": {"task": {"type": "string", "description": "What this agent should do, in full."}},
        "required": ["task"],
    }
    return Tool.from_schema(name, description, schema, delegate)
