"""Toolformer (Schick et al. 2023): a model teaches itself where to call a tool.

Sample calls where the model most wants to open one, execute them through the harness, keep those that make the
following tokens easier to predict, fine-tune on what was kept. `ledgers` and `tiny` are the small world and the
small model it is reproduced on; `filtering`, `calling` and `lm` run on any Hugging Face causal LM.
"""

from toollab.toolformer.calling import Completion, complete
from toollab.toolformer.filtering import Candidate, FilterConfig, annotate, kept, run_filter
from toollab.toolformer.lm import LM
from toollab.toolformer.syntax import LEDGER, TEXT, CallSyntax

__all__ = [
    "LEDGER",
    "LM",
    "TEXT",
    "CallSyntax",
    "Candidate",
    "Completion",
    "FilterConfig",
    "annotate",
    "complete",
    "kept",
    "run_filter",
]
