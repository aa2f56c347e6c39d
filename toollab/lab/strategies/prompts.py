"""The instructions each strategy gives the model. The simulated model recognises its protocol by these texts."""

from __future__ import annotations

SINGLE = (
    "Answer from your own knowledge; no tools are available. First write each fact you use on its own line as "
    "`Fact: <what> of <country> = <value>` (for example `Fact: population of Peru = 41394`), then do the "
    "arithmetic, then end with the line `Answer: <answer>`."
)

REACT = (
    "Solve the task step by step with the tools. In each turn write one short line `Thought: <what you need "
    "next>` and call one tool; read its result before the next step. When you know the "
    "answer, call finish with it."
)

CODE = (
    "Solve the task by writing Python programs that call the tools as functions. In each turn write one short "
    "line `Thought: <what you need next>` and one program; print every value you need, and print the line "
    "`Answer: <answer>` when the program has it. When a program has printed the answer, call finish with it."
)

PLAN = (
    "Write the whole plan now; the tools run only after you have written it, and you will not see their "
    "results before the plan is complete. For each step write a line `Plan: <what and why>` and then a line "
    "`#E<n> = <tool>[<JSON object of arguments>]`. An argument may refer to the result of an earlier step as "
    "#E1, #E2, ...: it is replaced by that result's text. Write nothing else. The tools:"
)

SOLVE = (
    "Solve the task with the plan and the evidence its steps returned (an error means that step failed). "
    "Evidence may be wrong or missing; use your own knowledge where it is. End with the line `Answer: <answer>`."
)

CRITIQUE = (
    "Check your answer above: go over each fact and each computation again. If you find a mistake, correct it. "
    "End with the line `Answer: <answer>`, the corrected one or the same one."
)

CRITIC = (
    "Check your answer above with the tools: verify each fact it uses and redo each computation with the "
    "calculator, one call a turn. Then call finish with the corrected answer (or the same one if it holds)."
)

ESTIMATE = "Estimate the population of {country} in thousands, from your own knowledge. Reply with one integer only."
