"""Toolformer reproduced on ledgers: a small transformer pretrained from scratch, calls sampled where it wants to
open one, executed through the harness, kept when they make the following tokens easier to predict, and the
model fine-tuned on them; then the same sampling and filtering on the embedded SmolLM2 over English arithmetic.

`toollab lab toolformer` runs every part with one seed; `--n` sets the test ledgers per row. Models are cached
on disk by configuration (a second run reuses them)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toollab.eval.stats import Proportion
from toollab.harness.dispatch import Dispatcher
from toollab.lab.experiments.common import Report, Settings, bar_plot, cell, line_plot, mean, save, table
from toollab.toolformer import filtering, ledgers, tiny
from toollab.toolformer.calling import complete
from toollab.toolformer.evaluate import Answer, answer_all
from toollab.toolformer.filtering import Candidate, FilterConfig
from toollab.toolformer.lm import LM, Ids
from toollab.toolformer.syntax import LEDGER, TEXT
from toollab.toolformer.text import english, prompted, states_result
from toollab.tools import Tool
from toollab.tools.arithmetic import calculator, evaluate

STAGE = 100  # what a stage other than training counts for in the progress bar
SHIFT = 10  # what the tampered calculator adds to every result
SMOLLM_SAMPLING = {"k": 3, "m": 2, "max_call_tokens": 16}  # a 135M model reads a 450-token prompt per sample
GROUPS = ("1 step", "2 steps", "3 steps", "big")  # the rows of the accuracy tables, in the test set's order
DELTAS = (0, 1, 2, 5, 9, 20)  # sanity check: distrust a result further than this from the model's own estimate


@dataclass(frozen=True)
class Setup:
    """The sizes of every part; `QUICK` is the tests' configuration."""

    corpus: int = 20_000  # pretraining ledgers
    model: tiny.TinyConfig = field(default_factory=tiny.TinyConfig)
    filter_ledgers: int = 4000
    filter: FilterConfig = field(default_factory=FilterConfig)
    finetune_steps: int = 300
    taus: tuple[float, ...] = (0.0, 1.0, 2.0, 3.0, 4.0)
    prerequisite_ledgers: int = 500
    smollm_texts: int = 12
    smollm_tau: float = 1.0


QUICK = Setup(
    corpus=600,
    model=tiny.TinyConfig(n_embd=32, n_layer=1, n_head=2, block=64, batch=8, steps=30),
    filter_ledgers=40,
    finetune_steps=10,
    taus=(0.0, 1.0),
    prerequisite_ledgers=20,
    smollm_texts=0,
)


def tampered() -> Tool:
    """The calculator with every result shifted by SHIFT (a quietly broken tool)."""

    def shifted(args: dict[str, Any]) -> str:
        return str(int(evaluate(args["expression"])) + SHIFT)

    return Tool.from_schema(calculator.name, calculator.description, calculator.parameters, shifted)


def _rate(answers: Sequence[Answer], test: Any = lambda a: a.correct) -> Proportion:
    return Proportion(sum(1 for a in answers if test(a)), len(answers))


def _texts(lm: LM, texts: Sequence[str]) -> list[Ids]:
    return [[lm.tokenizer.bos_token_id, *lm.encode(t)] for t in texts]


def _correct(lm: LM, texts: Sequence[Ids], c: Candidate) -> bool:
    """A kept call is correct when the count the text states right after it is its result."""
    return states_result(lm.decode(texts[c.text][c.position :]).replace(" ", ""), c.content)


async def run(s: Settings, setup: Setup | None = None) -> Report:
    setup = setup or Setup()
    report = Report("toolformer", "tiny transformer (trained here) + SmolLM2-135M-Instruct")
    honest = Dispatcher([calculator])
    # progress in training steps, each other stage counted as STAGE steps
    cfg = replace(setup.model, seed=s.seed)
    total = 2 * cfg.steps + len(setup.taus) * setup.finetune_steps + 6 * STAGE
    done = 0

    def tick(steps: int = STAGE) -> None:
        nonlocal done
        done += steps
        if s.on_progress is not None:
            s.on_progress(min(done, total), total)

    def on_step(step: int, steps: int, loss: float) -> None:
        tick(1)

    # -- pretraining: a base with annotated ledgers, and one without any ---------------------------------------
    base = tiny.pretrain(
        ledgers.corpus(setup.corpus, s.seed),
        cfg,
        name="base",
        recipe={"corpus": setup.corpus, "mix": "default"},
        on_step=on_step,
    )
    tick(0 if base.info.get("trained_now") else cfg.steps)
    bare = tiny.pretrain(
        ledgers.corpus(setup.corpus, s.seed, ledgers.NO_ANNOTATIONS),
        cfg,
        name="bare",
        recipe={"corpus": setup.corpus, "mix": "none"},
        on_step=on_step,
    )
    tick(0 if bare.info.get("trained_now") else cfg.steps)
    lm, bare_lm = LM(base.model, base.tokenizer), LM(bare.model, bare.tokenizer)
    report.notes.append(
        f"tiny model: {base.info['parameters']:,} parameters, pretrained on {setup.corpus:,} ledgers in "
        f"{base.info['seconds']} s ({base.info['tokens_per_second']:,} tokens/s; cached in {base.folder})"
    )

    # -- test ledgers: n per number of steps, and n with big numbers --------------------------------------------
    normal = ledgers.draw_many(3 * s.n, s.seed + 1)
    big = ledgers.draw_many(s.n, s.seed + 2, steps=(1, 2), big=True)
    tests = [*normal, *big]

    def by_row(answers: Sequence[Answer], test: Any = lambda a: a.correct) -> list[str]:
        return [cell(_rate(group, test)) for group in _groups(answers, len(normal)).values()]

    # -- 1. the base: answering directly against writing the expression ------------------------------------------
    answers = {mode: await answer_all(lm, tests, mode, honest) for mode in ("direct", "expression", "forced")}
    heads = ["", "1 step", "2 steps", "3 steps", "big numbers (1-2 steps)"]
    report.tables.append(
        table(
            "1. The base model: answering directly, writing the expression, and with the calculator",
            heads,
            [
                ["answer directly (right)", *by_row(answers["direct"])],
                [
                    "writes the expression: expression right",
                    *by_row(answers["expression"], lambda a: a.expression_right),
                ],
                ["  and its own result right", *by_row(answers["expression"], lambda a: a.result_right)],
                ["expression + calculator: answer right", *by_row(answers["forced"])],
            ],
        )
    )
    report.headline |= {
        "base_direct": _rate(answers["direct"]).value,
        "base_expression_right": _rate(answers["expression"], lambda a: a.expression_right).value,
        "base_own_result_right": _rate(answers["expression"], lambda a: a.result_right).value,
        "base_forced_calculator_1_2_steps": _rate([a for a in answers["forced"][: len(normal)] if a.steps < 3]).value,
    }
    tick()

    # -- 2. the filter: one ledger in detail, then over many ----------------------------------------------------
    pool = ledgers.draw_many(setup.filter_ledgers, s.seed + 3)
    shapes = ["plain" if i % 2 == 0 else "restating" for i in range(len(pool))]
    raw = [ledgers.render(led, shape) for led, shape in zip(pool, shapes, strict=True)]  # type: ignore[arg-type]
    texts = _texts(lm, raw)
    fconf = replace(setup.filter, seed=s.seed)
    candidates = await filtering.run_filter(lm, texts, LEDGER, honest, fconf)
    first = [c for c in candidates if c.text == 0]
    report.tables.append(
        table(
            f"2a. The filter on one ledger: {raw[0]}",
            ["call before token", "P(open)", "call", "L- (no call)", "L- (no result)", "L+", "L- - L+", "kept (tau 1)"],
            [
                [
                    f"{c.position}: {lm.decode(texts[0][c.position : c.position + 1])!r}",
                    f"{c.probability:.3f}",
                    LEDGER.call(c.written, c.result).strip(),
                    *(
                        (f"{c.l_none:.2f}", f"{c.l_empty:.2f}", f"{c.l_plus:.2f}", f"{c.gain:.2f}")
                        if c.result
                        else ("-", "-", "-", f"no result ({c.content[:30]})")
                    ),
                    "yes" if c.result is not None and c.gain >= fconf.tau else "no",
                ]
                for c in first
            ],
        )
    )
    kept = filtering.kept(candidates, fconf.tau)
    correct = sum(_correct(lm, texts, c) for c in kept)
    without = len(texts) - len({c.text for c in kept})
    report.tables.append(
        table(
            f"2b. The filter over {len(texts):,} ledgers at tau = {fconf.tau:g} "
            f"(top {fconf.k} positions with P(open) >= {fconf.threshold}, {fconf.m} samples each)",
            ["positions tried", "calls sampled", "calls kept", "kept with the right result", "ledgers without a call"],
            [
                [
                    len({(c.text, c.position) for c in candidates}),
                    len(candidates),
                    len(kept),
                    cell(Proportion(correct, len(kept))),
                    cell(Proportion(without, len(texts))),
                ]
            ],
        )
    )
    report.headline |= {
        "filter_kept": float(len(kept)),
        "filter_kept_correct": correct / len(kept) if kept else 0.0,
        "filter_ledgers_without_call": without / len(texts),
    }
    tick()

    # -- 3. the prerequisite: a base that never saw annotated text ----------------------------------------------
    few = texts[: setup.prerequisite_ledgers]
    models = (("with", lm), ("without", bare_lm))
    likely = {name: len(filtering.positions(m, few, LEDGER, fconf)) for name, m in models}
    forced = replace(fconf, threshold=0.0)  # an opening written at its top-k positions whatever their probability
    sampled = {name: filtering.sample(m, few, LEDGER, forced) for name, m in models}
    truth = _true_calls(lm, pool[: setup.prerequisite_ledgers], shapes, few)
    effect = {}
    for name, m in models:
        filtering.score(m, few, truth, LEDGER)
        effect[name] = mean(c.l_none - c.l_plus for c in truth)
    report.tables.append(
        table(
            f"3. The prerequisite: calls proposed over {len(few)} ledgers, and what a correct call and result do to "
            "the loss of the count after it",
            [
                "base pretrained",
                f"positions with P(open) >= {fconf.threshold}",
                f"calls completed ('=' written) of {len(few) * fconf.k * fconf.m} forced openings",
                "mean L(no call) - L+(correct call)",
            ],
            [
                [f"{name} annotated ledgers", likely[name], len(sampled[name]), f"{effect[name]:+.2f}"]
                for name in ("with", "without")
            ],
        )
    )
    report.headline |= {
        "prerequisite_positions_bare": float(likely["without"]),
        "prerequisite_calls_bare": float(len(sampled["without"])),
        "prerequisite_gain_bare": effect["without"],
        "prerequisite_gain_base": effect["with"],
    }
    tick()

    # -- 4. fine-tuning on the kept calls, then the calculator live ---------------------------------------------
    tuned_by_tau = {}
    for tau in setup.taus:
        data = filtering.annotate(lm, texts, filtering.kept(candidates, tau), LEDGER)
        tuned_by_tau[tau] = tiny.fine_tune(
            base,
            data,
            cfg,
            steps=setup.finetune_steps,
            name="tuned",
            recipe={"filter": [setup.filter_ledgers, fconf.k, fconf.m, fconf.threshold], "tau": tau},
            on_step=on_step,
        )
        tick(0 if tuned_by_tau[tau].info.get("trained_now") else setup.finetune_steps)
    tuned = tuned_by_tau.get(fconf.tau) or next(iter(tuned_by_tau.values()))
    tuned_lm = LM(tuned.model, tuned.tokenizer)
    live = await answer_all(tuned_lm, tests, "calculator", honest)
    plain = await answer_all(tuned_lm, tests, "direct", honest)
    report.tables.append(
        table(
            f"4a. After fine-tuning on the kept calls (tau = {fconf.tau:g}): accuracy",
            heads,
            [
                ["base, answering directly", *by_row(answers["direct"])],
                ["fine-tuned, calls forbidden", *by_row(plain)],
                ["fine-tuned, calculator live", *by_row(live)],
                ["  share of answers with a call", *by_row(live, lambda a: a.called)],
            ],
        )
    )
    skipped = [a for a in live if not a.called]
    wrong = [a for a in live if a.called and not a.correct]
    report.tables.append(
        table(
            "4b. When it calls, when it does not, and where it errs",
            ["", "share"],
            [
                ["calls made", cell(_rate(live, lambda a: a.called))],
                ["right when it calls", cell(_rate([a for a in live if a.called]))],
                ["right when it skips the call", cell(_rate(skipped))],
                ["wrong with a call: expression wrong", cell(_rate(wrong, lambda a: not a.expression_right))],
                [
                    "wrong with a call: right result, not copied",
                    cell(_rate(wrong, lambda a: a.expression_right and a.result_right)),
                ],
                [
                    "tokens the model writes per answer (calculator / direct)",
                    f"{mean(a.completion.model_tokens for a in live):.1f} / "
                    f"{mean(a.completion.model_tokens for a in answers['direct']):.1f}",
                ],
            ],
        )
    )
    if s.out:
        conditions = {"base direct": answers["direct"], "fine-tuned direct": plain, "fine-tuned + calculator": live}
        split = {name: _groups(a, len(normal)) for name, a in conditions.items()}
        groups = {label: {name: _rate(split[name][label]) for name in conditions} for label in GROUPS}
        report.files.append(bar_plot(s.out / "toolformer-accuracy.png", "Ledgers: accuracy", groups))
    report.headline |= {
        "tuned_calculator": _rate(live).value,
        "tuned_calculator_big": _rate(live[len(normal) :]).value,
        "base_direct_big": _rate(answers["direct"][len(normal) :]).value,
        "tuned_calls": _rate(live, lambda a: a.called).value,
        "tuned_skipped_right": _rate(skipped).value,
    }

    # -- 5. tau from 0 to 4 ---------------------------------------------------------------------------------------
    rows, accuracy = [], []
    for tau, model in tuned_by_tau.items():
        these = filtering.kept(candidates, tau)
        good = sum(_correct(lm, texts, c) for c in these)
        result = (
            live if model is tuned else await answer_all(LM(model.model, model.tokenizer), tests, "calculator", honest)
        )
        accuracy.append(_rate(result).value)
        rows.append([f"{tau:g}", len(these), cell(Proportion(good, len(these))), cell(_rate(result))])
    report.tables.append(
        table(
            "5. tau: calls kept, share correct, accuracy after fine-tuning",
            ["tau", "kept", "correct", "accuracy"],
            rows,
        )
    )
    if s.out:
        report.files.append(
            line_plot(
                s.out / "toolformer-tau.png",
                "Filter threshold against downstream accuracy",
                {"accuracy with the calculator": accuracy},
                "tau",
                "accuracy",
                xs=list(tuned_by_tau),
            )
        )
    tick()

    # -- 6. a tampered calculator, and a sanity check against the model's own estimate --------------------------
    crooked = await answer_all(tuned_lm, tests, "calculator", Dispatcher([tampered()]))
    copied = _rate([a for a in crooked if a.called], lambda a: a.result is not None and a.answer == a.result)
    own = await _own_estimates(tuned_lm, live)
    own_t = await _own_estimates(tuned_lm, crooked)
    trade, caught_curve, rejected_curve = [], [], []
    for delta in DELTAS:
        caught = _flagged(crooked, own_t, delta)
        rejected = _flagged(live, own, delta)
        trade.append([f"> {delta}", cell(caught), cell(rejected)])
        caught_curve.append(caught.value)
        rejected_curve.append(rejected.value)
    if s.out:
        report.files.append(
            line_plot(
                s.out / "toolformer-tamper.png",
                f"Sanity check against a calculator shifted by +{SHIFT}",
                {"tampered results caught": caught_curve, "correct results rejected": rejected_curve},
                "d (distrust a result further than d from the model's estimate)",
                "share",
                xs=list(DELTAS),
            )
        )
    report.tables.append(
        table(
            f"6. A calculator shifted by +{SHIFT}: accuracy {cell(_rate(crooked))}, tampered result copied "
            f"verbatim in {cell(copied)} of answers with a call. The check distrusts a result further than d from "
            "the model's own estimate",
            ["d", "tampered results caught", "correct results rejected"],
            trade,
        )
    )
    report.headline |= {"tampered_accuracy": _rate(crooked).value, "tampered_copied": copied.value}
    tick()

    # -- 7. SmolLM2 over English arithmetic ----------------------------------------------------------------------
    if setup.smollm_texts:
        report.tables.append(await _smollm(setup, s.seed, honest, report))
    tick()
    save(report, s)
    if s.out:
        runs = {**{f"base {m}": a for m, a in answers.items()}, "tuned direct": plain, "tuned calculator": live}
        report.files.append(_write_answers(s.out / "answers.jsonl", {**runs, "tuned tampered": crooked}))
    return report


def _write_answers(path: Path, runs: dict[str, Sequence[Answer]]) -> Path:
    """Every test answer of every condition, one JSON line each (what the model wrote, calls included)."""
    with path.open("w", encoding="utf-8") as f:
        for condition, answers in runs.items():
            for a in answers:
                line = {
                    "condition": condition,
                    "prompt": ledgers.prompt(a.ledger),
                    "truth": a.ledger.answer,
                    "steps": a.steps,
                    "wrote": a.completion.text,
                    "answer": a.answer,
                    "correct": a.correct,
                    "calls": [[c.argument, c.content] for c in a.completion.calls],
                }
                f.write(json.dumps(line) + "\n")
    return path


def _groups(answers: Sequence[Answer], normal: int) -> dict[str, list[Answer]]:
    """The test answers by row of the tables: the `normal` ledgers by their number of steps, then the big ones."""
    out = {label: [a for a in answers[:normal] if a.steps == k] for k, label in enumerate(GROUPS[:3], start=1)}
    return {**out, GROUPS[3]: list(answers[normal:])}


def _true_calls(lm: LM, pool: Sequence[ledgers.Ledger], shapes: Sequence[str], texts: Sequence[Ids]) -> list[Candidate]:
    """The correct call before the last stated count of each ledger (what an ideal annotator would write)."""
    out = []
    for i, (led, t) in enumerate(zip(pool, texts, strict=True)):
        since = len(led.steps) - 1 if shapes[i] == "restating" else 0
        expression = led.expression(since)
        written = " " + ledgers.spaced(expression)
        position = len(t) - len(lm.encode(f"{ledgers.digits(led.answer)} {led.item} ."))
        c = Candidate(i, position, 1.0, written, expression, str(led.answer), False, LEDGER.result(str(led.answer)))
        out.append(c)
    return out


async def _own_estimates(lm: LM, answers: Sequence[Answer]) -> list[int | None]:
    """For each answer with a call, the number the model writes after the arrow itself (no tool)."""
    with_call = [a for a in answers if a.called and a.completion.calls]
    prompts = []
    for a in with_call:
        text = a.completion.text
        head = text[: text.index(ledgers.EQUALS) + 1]
        prompts.append([lm.tokenizer.bos_token_id, *lm.encode(ledgers.prompt(a.ledger) + " " + head)])
    made = await complete(lm, prompts, LEDGER, None, end=ledgers.CLOSE, max_new_tokens=8)
    estimates = iter(ledgers.read_number(m.text.split()) for m in made)
    return [next(estimates) if a.called and a.completion.calls else None for a in answers]


def _flagged(answers: Sequence[Answer], own: Sequence[int | None], delta: int) -> Proportion:
    """Of the answers whose call got a result, those whose result is further than `delta` from the estimate
    (no estimate at all counts as flagged)."""
    pairs = [
        (a, e) for a, e in zip(answers, own, strict=True) if a.called and a.completion.calls and a.result is not None
    ]
    hits = sum(1 for a, e in pairs if e is None or abs(e - (a.result or 0)) > delta)
    return Proportion(hits, len(pairs))


async def _smollm(setup: Setup, seed: int, dispatcher: Dispatcher, report: Report) -> Any:
    """The paper's prompt on the embedded SmolLM2 (base weights): at the paper's threshold, and with an opening
    written at each story's top-k positions whatever their probability."""
    from toollab.models import local_weights

    loaded = local_weights.load()
    lm = LM(loaded.model, loaded.tokenizer, batch=8)
    stories = [english(led) for led in ledgers.draw_many(setup.smollm_texts, seed + 4)]
    config = replace(setup.filter, seed=seed, tau=setup.smollm_tau, **SMOLLM_SAMPLING)
    prompts = [prompted(lm, story) for story in stories]  # each story has its own prompt: the prompt holds it
    texts = [ids for _, ids in prompts]
    # the top-k positions of each story whatever their probability, read once (one pass over prompt and story)
    top = [filtering.positions(lm, [ids], TEXT, replace(config, threshold=0.0), context) for context, ids in prompts]
    rows = []
    for threshold in (config.threshold, 0.0):
        started = time.perf_counter()
        candidates: list[Candidate] = []
        for i, ((context, ids), where) in enumerate(zip(prompts, top, strict=True)):
            chosen = [w for w in where if w[2] >= threshold]
            found = await filtering.run_filter(lm, [ids], TEXT, dispatcher, config, context, chosen)
            candidates += [replace(c, text=i) for c in found]
        kept = filtering.kept(candidates, config.tau)
        right = sum(states_result(lm.decode(texts[c.text][c.position :]), c.content) for c in kept)
        rows.append(
            [
                f">= {threshold:g}" if threshold else "any (top-k forced)",
                sum(1 for where in top for w in where if w[2] >= threshold),
                len(candidates),
                sum(not c.is_error for c in candidates),
                len(kept),
                cell(Proportion(right, len(kept))),
                f"{time.perf_counter() - started:.0f} s",
            ]
        )
        for c in sorted(kept, key=lambda c: -c.gain)[:2]:
            report.notes.append(
                f"SmolLM2, P(open) {rows[-1][0]}, a kept call: {lm.decode(texts[c.text][: c.position])[-30:]!r} + "
                f"{TEXT.call(c.written, c.result)!r} + {lm.decode(texts[c.text][c.position :])[:12]!r} "
                f"(L- - L+ = {c.gain:.2f})"
            )
        key = "paper" if threshold else "forced"
        report.headline |= {f"smollm_written_{key}": float(len(candidates)), f"smollm_kept_{key}": float(len(kept))}
    peak = max((w[2] for where in top for w in where), default=0.0)
    return table(
        f"7. SmolLM2-135M-Instruct (base weights) over {len(stories)} English arithmetic stories: the paper's "
        f"few-shot prompt, top {config.k} positions, {config.m} samples each, tau = {config.tau:g}; the highest "
        f"P(open) at any position: {peak:.3f}",
        ["P(open)", "positions", "calls written", "computed", "kept", "kept right", "time"],
        rows,
    )
