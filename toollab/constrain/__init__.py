"""Grammar-constrained decoding for local models: every call well-formed and valid against its schema.

Form is guaranteed; truth is not: a constrained model can still pick the wrong tool or the wrong values.
"""

from toollab.constrain.decoder import GrammarMatcher, GrammarStats, ToolGrammar
from toollab.constrain.grammars import constrainable, structural_tag
from toollab.constrain.pythonic_grammar import pythonic_grammar

__all__ = [
    "GrammarMatcher",
    "GrammarStats",
    "ToolGrammar",
    "constrainable",
    "pythonic_grammar",
    "structural_tag",
]
