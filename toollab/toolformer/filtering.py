"""Toolformer's sample-execute-filter, for any causal LM.

At the `k` positions of a text where the model most wants to open a call (probability at least `threshold`),
sample `m` calls; execute each through the harness; keep a call when L- - L+ >= tau, where L+ is the weighted
loss of the tokens after the call with the call and its result inserted, and L- the smaller of the loss with no
call and with the call but no result. The kept calls, written into the texts, are the fine-tuning data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toollab.harness.dispatch import Dispatcher
from toollab.harness.messages import ToolCall
from toollab.toolformer.lm import LM, Ids
from toollab.toolformer.syntax import CallSyntax


@dataclass(frozen=True)
class FilterConfig:
    k: int = 3  # positions per text
    m: int = 2  # candidates per position
    threshold: float = 0.05  # the least probability of opening a call for a position to be tried
    tau: float = 1.0
    temperature: float = 1.0
    max_call_tokens: int = 20
    seed: int = 0


@dataclass
class Candidate:
    text: int  # which text
    position: int  # the token index of the text the call goes before
    probability: float  # of opening a call there
    written: str  # the expression as the model wrote it
    argument: str = ""
    content: str = ""
    is_error: bool = True
    result: str | None = None  # the result as the text writes it; None: it cannot be written
    l_plus: float = float("inf")
    l_none: float = float("inf")
    l_empty: float = float("inf")

    @property
    def gain(self) -> float:
        """L- - L+: how much the call and its result make the following tokens easier to predict."""
        return min(self.l_none, self.l_empty) - self.l_plus


def positions(
    lm: LM, texts: Sequence[Ids], syntax: CallSyntax, config: FilterConfig, context: Sequence[int] = ()
) -> list[tuple[int, int, float]]:
    """(text, position, probability) for the top-k positions of each text (after `context`, a prompt the
    probabilities are read under but the losses never see)."""
    token = lm.encode(syntax.open)[0]
    probs = lm.token_probabilities([[*context, *t] for t in texts], token)
    out = []
    for i, (t, p) in enumerate(zip(texts, probs, strict=True)):
        # p[j] is P(open | everything up to token j); a call before token `pos` of the text is read at j
        scored = [(p[len(context) + pos - 1], pos) for pos in range(1, len(t))]
        best = sorted(scored, reverse=True)[: config.k]
        out += [(i, pos, prob) for prob, pos in best if prob >= config.threshold]
    return out


def sample(
    lm: LM,
    texts: Sequence[Ids],
    syntax: CallSyntax,
    config: FilterConfig,
    context: Sequence[int] = (),
    where: Sequence[tuple[int, int, float]] | None = None,
) -> list[Candidate]:
    """`m` sampled calls (up to the arrow) at each chosen position (`where`, by default `positions`); a sample
    that never reaches the arrow is no call."""
    if where is None:
        where = positions(lm, texts, syntax, config, context)
    opening = lm.encode(syntax.open)
    tries = [w for w in where for _ in range(config.m)]
    rows = [[*context, *texts[i][:pos], *opening] for i, pos, _ in tries]
    if not rows:
        return []
    made = lm.continue_rows(
        rows,
        stops=[syntax.arrow.strip()],
        max_new_tokens=config.max_call_tokens,
        sample=True,
        temperature=config.temperature,
        seed=config.seed,
    )
    out = []
    for (i, pos, prob), new in zip(tries, made, strict=True):
        text = syntax.open + lm.decode(new)
        written = syntax.written(text)
        if written is not None and written.strip():
            out.append(Candidate(i, pos, prob, written))
    return out


async def execute(candidates: Sequence[Candidate], syntax: CallSyntax, dispatcher: Dispatcher) -> None:
    """Run every candidate's call through the harness and note its result."""
    calls = [
        ToolCall(id=f"candidate_{n}", name=syntax.tool, arguments={"expression": syntax.argument(c.written)})
        for n, c in enumerate(candidates)
    ]
    for c, call, result in zip(candidates, calls, await dispatcher.dispatch_all(calls), strict=True):
        c.argument, c.content, c.is_error = call.arguments["expression"], result.content, result.is_error
        c.result = None if result.is_error else syntax.result(result.content)


def score(lm: LM, texts: Sequence[Ids], candidates: Sequence[Candidate], syntax: CallSyntax) -> None:
    """L+, L- (no call) and L- (call without result) of each candidate whose result the text can hold. The loss
    with no call depends only on the position: read once for the candidates that share one."""
    usable = [c for c in candidates if c.result is not None]
    places = list(dict.fromkeys((c.text, c.position) for c in usable))
    rows = [list(texts[i]) for i, _ in places]
    starts = [pos for _, pos in places]
    for c in usable:
        before, after = texts[c.text][: c.position], texts[c.text][c.position :]
        with_result = lm.encode(syntax.call(c.written, c.result))
        without = lm.encode(syntax.call(c.written, None))
        rows += [[*before, *with_result, *after], [*before, *without, *after]]
        starts += [len(before) + len(with_result), len(before) + len(without)]
    losses = lm.losses(rows, starts)
    none = dict(zip(places, losses[: len(places)], strict=True))
    for n, c in enumerate(usable):
        c.l_plus, c.l_empty = losses[len(places) + 2 * n : len(places) + 2 * n + 2]
        c.l_none = none[(c.text, c.position)]


def kept(candidates: Sequence[Candidate], tau: float) -> list[Candidate]:
    """The candidates that pass L- - L+ >= tau, the best one per position."""
    best: dict[tuple[int, int], Candidate] = {}
    for c in candidates:
        if c.result is not None and c.gain >= tau:
            key = (c.text, c.position)
            if key not in best or c.gain > best[key].gain:
                best[key] = c
    return sorted(best.values(), key=lambda c: (c.text, c.position))


def annotate(lm: LM, texts: Sequence[Ids], calls: Sequence[Candidate], syntax: CallSyntax) -> list[str]:
    """The texts with the kept calls (and their results) written in, ready to fine-tune on."""
    by_text: dict[int, list[Candidate]] = {}
    for c in calls:
        by_text.setdefault(c.text, []).append(c)
    out = []
    for i, t in enumerate(texts):
        ids: Ids = []
        last = 0
        for c in sorted(by_text.get(i, []), key=lambda c: c.position):
            ids += [*t[last : c.position], *lm.encode(syntax.call(c.written, c.result))]
            last = c.position
        out.append(lm.decode([*ids, *t[last:]]))
    return out


async def run_filter(
    lm: LM,
    texts: Sequence[Ids],
    syntax: CallSyntax,
    dispatcher: Dispatcher,
    config: FilterConfig,
    context: Sequence[int] = (),
    where: Sequence[tuple[int, int, float]] | None = None,
) -> list[Candidate]:
    """Sample, execute and score calls over `texts` (at `where`, by default `positions`); every candidate comes
    back (filter with `kept`)."""
    candidates = sample(lm, texts, syntax, config, context, where)
    await execute(candidates, syntax, dispatcher)
    score(lm, texts, candidates, syntax)
    return candidates
