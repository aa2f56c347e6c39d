"""Running many independent jobs (evaluation items, lab tasks, sweeps): in this process, or sharded over the
workers of a Ray cluster (`--executor ray`), which is imported only when asked for."""

from toollab.scale.executor import EXECUTORS, Executor, InProcess, Job, executor_for

__all__ = ["EXECUTORS", "Executor", "InProcess", "Job", "executor_for"]
