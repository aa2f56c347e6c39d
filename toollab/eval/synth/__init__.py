"""A development set kept apart from BFCL: generated tool-calling items in BFCL's shapes, with checkable answers.

Every prompt, threshold and default toollab ships is chosen on this set (its `dev` split, or `train`), never on
BFCL, which stays the final judge. Functions come in families (a domain: parcels, tides, paint...); splits are by
family, so a split's functions never appear in another. `tests/test_synth.py` proves that no BFCL function name
or question is in it.
"""

from toollab.eval.synth.generate import SPLITS, SYNTH_CATEGORIES, load_synth

__all__ = ["SPLITS", "SYNTH_CATEGORIES", "load_synth"]
