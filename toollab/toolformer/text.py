"""Toolformer over plain text, for a pretrained causal LM such as the embedded SmolLM2: arithmetic stories in
English, the paper's few-shot prompt for the calculator, and what a kept call is checked against."""

from __future__ import annotations

from toollab.toolformer.ledgers import Ledger
from toollab.toolformer.lm import LM
from toollab.toolformer.syntax import NUMBER

# The paper's calculator prompt (Schick et al. 2023, appendix A.2), shortened to three of its examples.
PROMPT = """Your task is to add calls to a Calculator API to a piece of text. The calls should help you get \
information required to complete the text. You can call the API by writing "[Calculator(expression)]" where \
"expression" is the expression to be computed. Here are some examples of API calls:
Input: The number in the next term is 18 + 12 x 3 = 54.
Output: The number in the next term is 18 + 12 x 3 = [Calculator(18 + 12 * 3) → 54] 54.
Input: From this, we have 4 * 30 minutes = 120 minutes.
Output: From this, we have 4 * 30 minutes = [Calculator(4 * 30) → 120] 120 minutes.
Input: Out of 1400 participants, 400 passed the test, so 1000 did not.
Output: Out of 1400 participants, 400 passed the test, so [Calculator(1400 - 400) → 1000] 1000 did not.
Input: {text}
Output:"""


def english(ledger: Ledger) -> str:
    """A ledger told in English: "Fay had 18 plums. She ate 4 of them. Eve gave her 8 more. So Fay had 22 plums."
    (numbers as numerals, the way the model read them in pretraining)."""
    parts = [f"{ledger.owner} had {ledger.start} {ledger.item}."]
    for s in ledger.steps:
        if s.other is not None:
            parts.append(
                f"{s.other} gave {ledger.owner} {s.amount} more."
                if s.sign > 0
                else f"{ledger.owner} gave {s.other} {s.amount} of them."
            )
        else:
            verb = {"eats": "ate", "loses": "lost", "sells": "sold", "drops": "dropped"}.get(s.verb)
            verb = verb or {"finds": "found", "buys": "bought", "picks": "picked", "wins": "won"}[s.verb]
            parts.append(f"{ledger.owner} {verb} {s.amount} {'of them' if s.sign < 0 else 'more'}.")
    parts.append(f"So {ledger.owner} had {ledger.answer} {ledger.item}.")
    return " ".join(parts)


def prompted(lm: LM, text: str) -> tuple[list[int], list[int]]:
    """The few-shot prompt with `text` as its input, ending at "Output:" (what the probabilities of opening a call
    are read under), and the text's own tokens as they follow "Output:" (with its leading space)."""
    head, _ = PROMPT.split("{text}")
    return lm.encode(f"{head}{text}\nOutput:"), lm.encode(f" {text}")


def states_result(continuation: str, content: str) -> bool:
    """Whether the first number of `continuation` (the text after a call's position) is the call's result."""
    match = NUMBER.search(continuation)
    return match is not None and content.strip() in (match.group(), match.group() + ".0")
