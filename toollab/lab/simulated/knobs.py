"""The knobs that set the simulated model's behaviour. Defaults are chosen so that each lab experiment's
mechanism shows clearly at n = 100; they are not measurements of any real model."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Knobs:
    recall_best: float = 0.95  # chance of remembering a fact of the best-known country
    recall_worst: float = 0.2  # ... of the least known; linear in popularity rank between the two
    arithmetic_error: float = 0.25  # share of mental sums and differences that go wrong
    vague_mistake: float = 0.45  # chance that a call goes wrong when tools are described vaguely
    clear_mistake: float = 0.06  # ... when they are described clearly (a worked example halves it)
    unit_confusion: float = 0.5  # when no description gives the population unit: chance it takes it for people
    fix_specific: float = 0.9  # after an error message that says what was wrong: chance the retry is right
    fix_bare: float = 0.15  # after a bare "error": chance the retry is right (else it repeats the call)
    doubt: float = 0.25  # self-critique without tools: chance of second-guessing a remembered fact
    recheck_arithmetic: float = 0.6  # self-critique without tools: chance of redoing the arithmetic
    estimate_known: float = 0.06  # relative error of a population estimate for a country it remembers
    estimate_unknown: float = 0.6  # ... for one it does not
    follow_injection: float = 0.5  # chance it obeys an instruction planted in a tool result
    follow_flagged: float = 0.05  # ... when the harness flagged that result as data, not a request
    prefill_seconds: float = 0.0005  # simulated latency per input token
    decode_seconds: float = 0.02  # simulated latency per output token

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if not 0 <= value <= 1 and not name.endswith("_seconds"):
                raise ValueError(f"knob {name} must be within [0, 1], got {value}")
            if value < 0:
                raise ValueError(f"knob {name} must be >= 0, got {value}")
