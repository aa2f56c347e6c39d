"""A workflow: a step (usually a pattern of steps) run on a task, with the agent loop's events, log and resume."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from toollab.harness.events import (
    EventLog,
    ModelResponded,
    RunEnded,
    RunResumed,
    RunStarted,
    ToolReturned,
    read_events,
)
from toollab.harness.jsonl import drop_torn_tail
from toollab.harness.messages import AssistantMessage, ToolResultMessage, Usage, UserMessage
from toollab.harness.replay import last_run
from toollab.harness.result import RunStatus
from toollab.harness.run_state import EventSink
from toollab.workflows.session import Recorded, Session, StepCapReached, StepError, Stopped, WorkflowResult
from toollab.workflows.steps import Step


class Workflow:
    """Runs `step` on a task. `max_requests` caps the model requests of a whole run (a cap on top of each loop's
    own); `on_event` receives every event as it happens, as the log (`log=`) records it.

    Status: `completed`; `partial` when parallel branches failed (the answer was written knowing which, and
    `result.failures` lists them); `stopped` when a gate rejected a step's output; `max_steps` when a loop or
    `max_requests` ran out before acceptance (the answer is the last draft, or none); `model_error` when a step
    failed outright; `cancelled`.
    """

    def __init__(self, step: Step, *, name: str | None = None, max_requests: int | None = None,
                 on_event: EventSink | None = None):  # fmt: skip
        self.step = step
        self.name = name or step.name
        self.max_requests = max_requests
        self.on_event = on_event

    async def run(self, task: str, *, log: str | Path | None = None) -> WorkflowResult:
        if not task.strip():
            raise ValueError("nothing to run: the task is empty")
        log_file = EventLog(log) if log is not None else None
        session = Session(uuid.uuid4().hex, task, self._sinks(log_file), max_requests=self.max_requests)
        try:
            session.emit(
                RunStarted(
                    model=self.name,
                    tools=[],
                    max_steps=self.max_requests or 0,
                    messages=[UserMessage(content=task)],
                    workflow=self.name,
                )
            )
            return await self._drive(session, task)
        finally:
            if log_file is not None:
                log_file.close()

    def run_sync(self, task: str, **kwargs: Any) -> WorkflowResult:
        return asyncio.run(self.run(task, **kwargs))

    async def resume(self, log: str | Path) -> WorkflowResult:
        """Continue the run recorded in `log`: steps with a recorded response are read back (no model request),
        the rest run; new events are appended. A run that had ended returns its recorded end."""
        start, events = last_run(read_events(log), log)
        if start.workflow is None:
            raise ValueError(f"{log} records an agent run, not a workflow; resume it with Agent.resume")
        task = next((m.content for m in start.messages if isinstance(m, UserMessage)), "")
        ended = next((e for e in events if isinstance(e, RunEnded)), None)
        if ended is not None:
            return WorkflowResult(
                run_id=start.run_id,
                status=ended.status,
                answer=ended.answer,
                messages=list(start.messages),
                usage=ended.usage,
                duration_seconds=ended.duration_seconds,
                error=ended.error,
                error_source=ended.error_source,
            )
        responses: dict[str, tuple[AssistantMessage, Usage]] = {}
        answers: dict[str, ToolResultMessage] = {}
        for e in events:
            if isinstance(e, ModelResponded) and e.step is not None:
                responses[e.step] = (e.message, e.usage)
            elif isinstance(e, ToolReturned) and not e.result.is_error:
                answers[e.result.call_id] = e.result
        drop_torn_tail(log)
        log_file = EventLog(log)
        try:
            session = Session(start.run_id, task, self._sinks(log_file), Recorded(responses, answers),
                              self.max_requests)  # fmt: skip
            session.emit(RunResumed(messages=len(responses) + len(answers), steps=len(responses)))
            return await self._drive(session, task)
        finally:
            log_file.close()

    def resume_sync(self, log: str | Path) -> WorkflowResult:
        return asyncio.run(self.resume(log))

    def _sinks(self, log_file: EventLog | None) -> list[EventSink]:
        return [s for s in (log_file, self.on_event) if s is not None]

    async def _drive(self, session: Session, task: str) -> WorkflowResult:
        try:
            answer = await self.step.run(session, task, "")
        except StepError as exc:
            return session.end(RunStatus.MODEL_ERROR, None, str(exc), exc.source)
        except Stopped as exc:
            return session.end(RunStatus.STOPPED, None, str(exc), "harness")
        except StepCapReached as exc:
            return session.end(RunStatus.MAX_STEPS, None, str(exc), "harness")
        except asyncio.CancelledError:
            session.end(RunStatus.CANCELLED, None, "the workflow was cancelled", "harness")
            raise
        status = (
            RunStatus.MAX_STEPS if session.capped else RunStatus.PARTIAL if session.failures else RunStatus.COMPLETED
        )
        return session.end(status, answer)
