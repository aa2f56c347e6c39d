"""Ledger tasks answered by a model: directly, by writing the expression (and its own result), or with the
calculator live; each answer checked against the ledger's count."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from toollab.harness.dispatch import Dispatcher
from toollab.toolformer.calling import Completion, complete
from toollab.toolformer.ledgers import EQUALS, OPEN, STOP, Ledger, prompt, read_number
from toollab.toolformer.lm import LM
from toollab.toolformer.syntax import LEDGER
from toollab.tools.arithmetic import evaluate
from toollab.tools.tool import ToolError

Mode = Literal["direct", "expression", "calculator", "forced"]


@dataclass
class Answer:
    ledger: Ledger
    mode: str
    completion: Completion
    answer: int | None  # the count the text states after the prompt (calls removed)
    called: bool
    expression_right: bool | None  # the call's expression computes the count (None: no call)
    result_right: bool | None  # the result written after the arrow (by the tool or the model) is the count
    result: int | None  # that result

    @property
    def correct(self) -> bool:
        return self.answer == self.ledger.answer

    @property
    def steps(self) -> int:
        return len(self.ledger.steps)


def _value(expression: str) -> float | None:
    """The value of a written expression ("1 8 - 4" is 14), or None when it is not arithmetic."""
    try:
        return evaluate(LEDGER.argument(expression))
    except ToolError:
        return None


def judge(ledger: Ledger, mode: str, c: Completion) -> Answer:
    text = c.text.strip()
    said = LEDGER.strip_calls(text)
    answer = read_number(said.split())
    opened = OPEN in text
    written = result = None
    if opened:
        expression, arrow, after = text[text.index(OPEN) + 1 :].partition(EQUALS)
        written = expression if arrow else None
        result = read_number(after.split())
    value = _value(written) if written is not None else None
    return Answer(
        ledger,
        mode,
        c,
        answer,
        opened,
        (value == ledger.answer) if opened else None,
        (result == ledger.answer) if opened else None,
        result,
    )


async def answer_all(
    lm: LM, ledgers: Sequence[Ledger], mode: Mode, dispatcher: Dispatcher | None, max_new_tokens: int = 32
) -> list[Answer]:
    """Each ledger's prompt ("... so Fay has") continued to the end of the sentence.

    direct: the model may not open a call; expression: the prompt is followed by an opening and the model writes
    the expression and its own result; calculator: the model decides, the tool answers its calls; forced: an
    opening is written for it and the tool answers."""
    bos = [lm.tokenizer.bos_token_id]
    opening = lm.encode(OPEN)
    prompts = [[*bos, *lm.encode(prompt(led))] for led in ledgers]
    tool = dispatcher if mode in ("calculator", "forced") else None
    banned = opening if mode == "direct" else []
    opened = opening if mode in ("expression", "forced") else []
    made = await complete(
        lm, prompts, LEDGER, tool, end=STOP, max_new_tokens=max_new_tokens, banned=banned, opened=opened
    )
    return [judge(led, mode, c) for led, c in zip(ledgers, made, strict=True)]
