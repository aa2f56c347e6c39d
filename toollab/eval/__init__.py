"""Evaluation: BFCL scored by its own checkers, layer metrics, operational figures, statistics and reports."""

from toollab.eval.bfcl.run import BfclRun, RunConfig
from toollab.eval.compare import compare_runs
from toollab.eval.stats import Proportion, mcnemar_exact, wilson_interval

__all__ = ["BfclRun", "Proportion", "RunConfig", "compare_runs", "mcnemar_exact", "wilson_interval"]
