"""The words of a parameter's name, and when two words share a stem: how the steering tells that a request names a
parameter (`named_optionals`) or writes its kind beside a value ("the Rosewood finish"); and the words that hold a
sentence together, which are never a value; and the tools' one-word choices ("beginner", "feet")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from toollab.tools import ToolSpec

GENERAL = frozenset({"num", "number", "type", "name", "value", "data", "info", "the", "and", "for", "with"})
# Words that hold a sentence together: never a value of a list or of a case (`local_mentions`, `local_cases`).
GLUE_WORDS = frozenset(
    {
        "a", "about", "all", "also", "am", "an", "and", "another", "any", "are", "as", "at", "be", "been", "both",
        "but", "by", "can", "could", "did", "do", "does", "each", "every", "for", "from", "had", "has", "have", "he",
        "her", "his", "how", "i", "if", "in", "into", "is", "it", "its", "may", "me", "might", "must", "my", "no",
        "nor", "not", "of", "on", "or", "our", "over", "per", "please", "shall", "she", "should", "so", "some", "than",
        "that", "the", "their", "them", "then", "these", "they", "this", "those", "to", "too", "under", "us", "was",
        "we", "were", "what", "when", "where", "whether", "which", "who", "whom", "whose", "why", "will", "with",
        "would", "you", "your"
    }
)  # fmt: skip
# A name of capitalised words (or numbers after its first), joined by "&" or a lowercase particle before a capital:
# "Harbor City FC", "Spoke & Chain", "Meals on Wheels", "Model 3" (`local_cases`' tokens, `in_written_order`'s pairs)
NAME = r"[A-Z][\w'.&-]*(?:\s+(?:&\s+|(?:of|on|de|la|the)\s+(?=[A-Z]))?[A-Z0-9][\w'.&-]*)*"
PREFIX = 5  # two words share a stem when one begins the other or they share this many first letters
_WORD = re.compile(r"[a-z0-9]+")


def name_words(name: str) -> list[str]:
    """The telling words of a parameter's name (`max_cost`: max, cost; `roomType`: room): three letters or more,
    none of the general ones."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower()
    return [w for w in _WORD.findall(spaced) if len(w) >= 3 and w not in GENERAL]


def same_stem(a: str, b: str) -> bool:
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared >= min(PREFIX, len(a), len(b))


def choice_words(tools: Sequence[ToolSpec]) -> dict[str, frozenset[str]]:
    """The one-word choices of the tools' string parameters, lowercased ("beginner", "advanced"), with the
    parameters ("tool.parameter") each is a choice of."""
    found: dict[str, set[str]] = {}
    for tool in tools:
        for name, schema in (tool.parameters.get("properties") or {}).items():
            for choice in schema.get("enum") or () if isinstance(schema, dict) else ():
                if isinstance(choice, str) and re.fullmatch(r"[\w'-]+", choice):
                    found.setdefault(choice.lower(), set()).add(f"{tool.name}.{name}")
    return {choice: frozenset(parameters) for choice, parameters in found.items()}
