"""The Berkeley Function Calling Leaderboard, run through toollab's harness and judged by BFCL's own checkers."""

from toollab.eval.bfcl.data import CATEGORIES, MULTI_TURN, SINGLE_TURN, Item, load, load_category
from toollab.eval.bfcl.run import GROUND_TRUTH, BfclRun, RunConfig

__all__ = [
    "CATEGORIES",
    "GROUND_TRUTH",
    "MULTI_TURN",
    "SINGLE_TURN",
    "BfclRun",
    "Item",
    "RunConfig",
    "load",
    "load_category",
]
