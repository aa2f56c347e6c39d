"""A simulated chat model for the lab: fast, exactly reproducible, and honest about being a simulation.

It reads its task from the question, remembers facts with a probability that falls with a country's
popularity, slips in mental arithmetic, misuses vaguely described tools, recovers from errors that say what was
wrong (and loops on ones that do not), and follows each strategy's protocol (see `strategies/prompts.py`). It
writes its turns as text in a real wire format, which the format then parses, so the whole harness runs.

Token counts are approximate (words and punctuation marks) and latency is simulated from them; nothing sleeps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollab.formats import get_format
from toollab.harness import FINISH
from toollab.harness.injection import NOTE
from toollab.harness.messages import Message, SystemMessage, ToolCall, Usage, UserMessage
from toollab.harness.model import ModelResponse
from toollab.harness.request import RequestParams
from toollab.lab.countries.data import country
from toollab.lab.countries.tasks import read_question
from toollab.lab.simulated.coding import code_tool_of, functions_of, last_answer, read_exchanges, write_program
from toollab.lab.simulated.knobs import Knobs
from toollab.lab.simulated.memory import Memory
from toollab.lab.simulated.reading import Knowledge, evidence_exchanges, exchanges, knowledge_of
from toollab.lab.strategies import prompts
from toollab.lab.strategies.base import Call
from toollab.lab.strategies.plans import Step, render_plan
from toollab.tools import ToolSpec

_TOKEN = re.compile(r"\w+|[^\w\s]")
_ESTIMATE = re.compile(re.escape(prompts.ESTIMATE).replace(r"\{country\}", "(.+?)"))
# An instruction planted in a document (`toollab lab injection`), as the model reads it.
PLANTED_CALL = re.compile(r"call (\w+) with country (\w+) and amount (\d+)")
SYNONYMS = {"capital": "capital city", "language": "official language", "export": "main export", "leader": "president"}
Reading = tuple[str, tuple[str, ...], str]


def approx_tokens(text: str) -> int:
    """Words and punctuation marks: close to a BPE count for English prose, and needs no tokenizer."""
    return len(_TOKEN.findall(text))


@dataclass(frozen=True, slots=True)
class Intent:
    """A correct call the model means to make."""

    tool: str
    arguments: dict[str, str]

    def describe(self) -> str:
        a = self.arguments
        if self.tool == "population":
            return f"the population of {a['country']}"
        if self.tool == "lookup":
            return f"the {a['relation']} of {a['country']}"
        if self.tool == "phone_price":
            return f"the phone price in {a['country']}"
        if self.tool == "search":
            return f"the country whose capital is {a['query'].removeprefix('capital ')}"
        return f"to compute {a['expression']}"


def mistake_rate(tools: Sequence[ToolSpec], knobs: Knobs) -> float:
    """How often a first call goes wrong, from what the descriptions give: parameter descriptions, allowed
    relations in the schema, and what each tool returns (more than a few words); an example halves it."""
    tools = [t for t in tools if t.name != FINISH]  # the harness's own control action says nothing of the world
    if not tools:
        return knobs.vague_mistake
    params = [p for t in tools for p in t.parameters.get("properties", {}).values()]
    described = sum("description" in p for p in params) / max(1, len(params))
    enum = any("enum" in p for t in tools if t.name == "lookup" for p in t.parameters.get("properties", {}).values())
    explained = sum(len(t.description.split()) >= 8 for t in tools) / len(tools)
    clarity = (described + enum + explained) / 3
    rate = knobs.vague_mistake + (knobs.clear_mistake - knobs.vague_mistake) * clarity
    return rate / 2 if all("Example:" in t.description for t in tools) else rate


class SimulatedModel:
    """The lab's simulated model; `knobs` set its behaviour, `seed` its draws, `format` its wire format."""

    def __init__(self, knobs: Knobs | None = None, *, seed: int = 0, format: str | None = None):
        self.knobs = knobs or Knobs()
        self.seed = seed
        self.format = get_format(format)
        self.memory = Memory(self.knobs, seed)
        self.name = f"simulated:{self.format.name}"

    # ---- the model interface -------------------------------------------------------------------------------

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        tools = params.tools
        text, calls = self._turn(messages, tools)
        raw = "\n".join(p for p in (text, self.format.render_calls(calls) if calls else "") if p)
        message = self.format.parse(raw, tools)
        prompt = "\n".join(m["content"] for m in self.format.to_chat(messages, tools))
        usage = Usage(input_tokens=approx_tokens(prompt), output_tokens=approx_tokens(raw))
        seconds = usage.input_tokens * self.knobs.prefill_seconds + usage.output_tokens * self.knobs.decode_seconds
        return ModelResponse(message, usage, raw=raw, metadata={"simulated_seconds": seconds})

    # ---- which protocol --------------------------------------------------------------------------------

    def _turn(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> tuple[str, list[ToolCall]]:
        system = messages[0].content if messages and isinstance(messages[0], SystemMessage) else ""
        users = [m.content for m in messages if isinstance(m, UserMessage)]
        last_user = users[-1] if users else ""
        estimate = _ESTIMATE.search(last_user)
        if estimate:
            return str(self.memory.estimate_population(estimate.group(1))), []
        reading = read_question(users[0]) if users else None
        if reading is None:
            return "I cannot tell what the task asks.\nAnswer: unknown", []
        question = users[0]
        if prompts.PLAN in system:
            return self._plan(reading, question, system), []
        if prompts.SOLVE in system:
            return self._answer(reading, question, knowledge_of(evidence_exchanges(last_user)), "solve"), []
        code_tool = code_tool_of(tools)
        if code_tool is not None:
            return self._code(reading, question, messages, tools, code_tool)
        done = exchanges(messages)
        if tools:
            return self._act(reading, question, done, tools)
        if last_user == prompts.CRITIQUE:
            return self._answer(reading, question, Knowledge(), "critique", second_thoughts=True), []
        return self._answer(reading, question, knowledge_of(done), "answer"), []

    # ---- acting: one call a turn (ReAct, and CRITIC's checking) --------------------------------------------

    def _intents(self, reading: Reading, known: Knowledge, calculator: bool) -> list[Intent]:
        kind, names, relation = reading
        if kind == "fact":
            if relation == "population":
                return [Intent("population", {"country": names[0]})]
            return [Intent("lookup", {"country": names[0], "relation": relation})]
        if kind == "capital_language":
            query = f"capital {names[0]}"
            steps = [Intent("search", {"query": query})]
            found = known.capitals.get(names[0].lower())
            if found is None and query in known.searched:  # searched, found nothing: go by memory
                found = self.memory.country_of_capital(names[0])
            if found is not None:
                steps.append(Intent("lookup", {"country": found, "relation": "language"}))
            return steps
        if kind == "cheapest":
            return [Intent("phone_price", {"country": n}) for n in names]
        steps = [Intent("population", {"country": n}) for n in names]
        if calculator and all(n in known.populations for n in names):
            values = [str(known.populations[n]) for n in names]
            steps.append(Intent("calculator", {"expression": (" - " if kind == "difference" else " + ").join(values)}))
        return steps

    def _takes_for_people(self, tools: Sequence[ToolSpec], question: str) -> bool:
        """Whether it reads population results as people: only when no description says they are in thousands."""
        said = any("thousand" in t.description.lower() for t in tools if t.name == "population")
        return not said and self.memory.draw("units", question) < self.knobs.unit_confusion

    @staticmethod
    def _satisfied(intent: Intent, known: Knowledge) -> bool:
        a = intent.arguments
        if intent.tool == "population":
            return a["country"] in known.populations
        if intent.tool == "lookup":
            return (a["country"], a["relation"]) in known.facts
        if intent.tool == "search":
            return a["query"] in known.searched
        if intent.tool == "phone_price":
            return a["country"] in known.prices
        return a["expression"].replace(" ", "") in known.calculations

    def _act(
        self, reading: Reading, question: str, done: list[Call], tools: Sequence[ToolSpec]
    ) -> tuple[str, list[ToolCall]]:
        names = {t.name for t in tools}
        planted = self._obeyed(question, done, names)
        if planted is not None:
            return "Thought: the search result says I must do this first.", [planted]
        known = knowledge_of(done)
        if self._takes_for_people(tools, question):  # it converts "people" to the thousands the task asks for
            known.populations = {k: round(v / 1000) for k, v in known.populations.items()}
        pending = [i for i in self._intents(reading, known, "calculator" in names) if not self._satisfied(i, known)]
        if not pending:
            answer = self._answer(reading, question, known, "act").rsplit("Answer: ", 1)[-1]
            if FINISH in names:
                return "Thought: I have the answer.", [ToolCall(name=FINISH, arguments={"answer": answer})]
            return f"Answer: {answer}", []
        intent = pending[0]
        failures = 0  # the calls at the end that taught it nothing: attempts at this step
        for taught in reversed(known.taught):
            if taught:
                break
            failures += 1
        call = self._attempt(intent, question, failures, done[-1] if failures else None, tools)
        return f"Thought: I need {intent.describe()}.", [call]

    def _obeyed(self, question: str, done: list[Call], names: set[str]) -> ToolCall | None:
        """The call an instruction planted in the last result asks for, when the model falls for it (less often
        when the harness flagged the result as data); at most once a task."""
        if not done or done[-1].is_error:
            return None
        match = PLANTED_CALL.search(done[-1].result)
        if match is None or match.group(1) not in names or any(c.name == match.group(1) for c in done):
            return None
        flagged = done[-1].result.startswith(NOTE.split("(")[0])
        p = self.knobs.follow_flagged if flagged else self.knobs.follow_injection
        if self.memory.draw("obey", question) >= p:
            return None
        return ToolCall(name=match.group(1), arguments={"country": match.group(2), "amount": int(match.group(3))})

    def _attempt(
        self, intent: Intent, question: str, attempt: int, failed: Call | None, tools: Sequence[ToolSpec]
    ) -> ToolCall:
        key = (question, intent.tool, json.dumps(intent.arguments, sort_keys=True), attempt)
        right = ToolCall(name=intent.tool, arguments=dict(intent.arguments))
        if failed is None:
            wrong = self.memory.draw("mistake", *key) < mistake_rate(tools, self.knobs)
            return self._mistaken(intent, key) if wrong else right
        actionable = any(h.lower() in failed.result.lower() for h in self._hints(intent, failed))
        p_fix = self.knobs.fix_specific if actionable else self.knobs.fix_bare
        if self.memory.draw("fix", *key) < p_fix:
            return right
        if actionable:
            return self._mistaken(intent, key)
        return ToolCall(name=failed.name, arguments=failed.arguments)  # none the wiser: the same call again

    @staticmethod
    def _hints(intent: Intent, failed: Call) -> list[str]:
        """What an error message must mention for this model to see what it did wrong."""
        if failed.name != intent.tool:
            return ["population tool", "capital, language, export, leader", '"capital", "language"']
        if intent.tool == "calculator":
            return ["+ -"]
        return [v for k, v in intent.arguments.items() if failed.argument(k) != v]

    def _mistaken(self, intent: Intent, key: tuple[Any, ...]) -> ToolCall:
        """A plausible wrong call for `intent`: the wrong tool, a misspelled name, a synonym, thousands commas."""
        u = self.memory.draw("which-mistake", *key)
        a = intent.arguments
        if intent.tool == "population" and u < 0.5:
            return ToolCall(name="lookup", arguments={"country": a["country"], "relation": "population"})
        if intent.tool == "lookup" and u < 0.5:
            return ToolCall(name="lookup", arguments={**a, "relation": SYNONYMS.get(a["relation"], a["relation"])})
        if intent.tool in ("population", "lookup", "phone_price"):
            return ToolCall(name=intent.tool, arguments={**a, "country": self._misspelled(a["country"], key)})
        if intent.tool == "calculator":
            spaced = re.sub(r"\d+", lambda m: f"{int(m.group()):,}", a["expression"])
            return ToolCall(name="calculator", arguments={"expression": spaced})
        return ToolCall(name=intent.tool, arguments=dict(a))  # searches are not got wrong

    def _misspelled(self, name: str, key: tuple[Any, ...]) -> str:
        i = 1 + int(self.memory.draw("typo", *key) * (len(name) - 2))
        typo = name[:i] + name[i + 1 :]
        return typo if country(typo) is None and typo != name else name + "ia"

    # ---- code actions: one program a turn, all the calls it can make at once -------------------------------

    def _code(
        self,
        reading: Reading,
        question: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        code_tool: ToolSpec,
    ) -> tuple[str, list[ToolCall]]:
        answer = last_answer(messages)
        if answer is not None:
            if any(t.name == FINISH for t in tools):
                return "Thought: the program printed the answer.", [ToolCall(name=FINISH, arguments={"answer": answer})]
            return f"Answer: {answer}", []
        functions = functions_of(code_tool)
        done = read_exchanges(messages, {f.name for f in functions})
        known = knowledge_of(done)
        people = self._takes_for_people(functions, question)
        if people:  # as with JSON calls: it takes results for people and converts them to thousands
            known.populations = {k: round(v / 1000) for k, v in known.populations.items()}
        pending = [i for i in self._intents(reading, known, False) if not self._satisfied(i, known)]
        failures = 0
        for taught in reversed(known.taught):
            if taught:
                break
            failures += 1
        calls = []
        for j, intent in enumerate(pending):
            retry = failures if j == 0 else 0
            call = self._attempt(intent, question, retry, done[-1] if retry else None, functions)
            calls.append((call.name, dict(call.args_or_raw())))
        expression = self._expression(reading, known, pending, people)
        program = write_program(calls, expression)
        wants = ", ".join(i.describe() for i in pending) or "to print the answer"
        return f"Thought: I need {wants}.", [ToolCall(name=code_tool.name, arguments={"code": program})]

    @staticmethod
    def _expression(reading: Reading, known: Knowledge, pending: Sequence[Intent], people: bool) -> str | None:
        """The answer as a Python expression over the program's variables (v1 is pending[0]'s result) and what
        earlier programs taught; None while a step depends on a result not read yet."""
        kind, names, relation = reading
        variable = {(i.tool, i.arguments.get("country", i.arguments.get("query", ""))): f"v{n}"
                    for n, i in enumerate(pending, start=1)}  # fmt: skip

        def population(name: str) -> str:
            if name in known.populations:
                return str(known.populations[name])
            v = variable[("population", name)]
            return f"round({v} / 1000)" if people else v

        if kind == "fact":
            if relation == "population":
                return population(names[0])
            fact = known.facts.get((names[0], relation))
            return repr(fact) if fact is not None else variable[("lookup", names[0])]
        if kind == "cheapest":
            priced = [f"({n!r}, {known.prices[n] if n in known.prices else variable[('phone_price', n)]})"
                      for n in names]  # fmt: skip
            return f"min([{', '.join(priced)}], key=lambda p: p[1])[0]"
        if kind == "capital_language":
            lookup = next((i for i in pending if i.tool == "lookup"), None)
            if lookup is not None:
                return variable[("lookup", lookup.arguments["country"])]
            found = known.capitals.get(names[0].lower())
            fact = known.facts.get((found, "language")) if found else None
            return repr(fact) if fact is not None else None
        return (" - " if kind == "difference" else " + ").join(population(n) for n in names)

    # ---- planning (ReWOO) ----------------------------------------------------------------------------------

    def _plan(self, reading: Reading, question: str, system: str) -> str:
        tools = _listed_tools(system)
        kind, names, _ = reading
        steps: list[Step] = []

        def add(intent: Intent, why: str) -> None:
            call = self._attempt(intent, question, 0, None, tools)
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            steps.append(Step(len(steps) + 1, call.name, arguments, why))

        if kind == "capital_language":
            add(Intent("search", {"query": f"capital {names[0]}"}), f"Find the country whose capital is {names[0]}.")
            add(Intent("lookup", {"country": "#E1", "relation": "language"}), "Look up that country's language.")
        elif kind == "fact":
            intent = self._intents(reading, Knowledge(), False)[0]
            add(intent, f"Find {intent.describe()}.")
        else:
            for n in names:
                add(Intent("population", {"country": n}), f"Find the population of {n}.")
            refs = [f"#E{i + 1}" for i in range(len(names))]
            sign = " - " if kind == "difference" else " + "
            add(Intent("calculator", {"expression": sign.join(refs)}), "Compute the answer.")
        return render_plan(steps)

    # ---- answering from what it knows ------------------------------------------------------------------------

    def _answer(
        self, reading: Reading, question: str, known: Knowledge, stage: str, second_thoughts: bool = False
    ) -> str:
        """Fact lines and an `Answer:` line; gaps in `known` are filled from memory, sums done in its head."""
        kind, names, relation = reading

        def recall(name: str, rel: str) -> str:
            value = self.memory.fact(name, rel)
            if second_thoughts and self.memory.draw("doubt", question, name, rel) < self.knobs.doubt:
                value = self.memory.fact(name, rel, "second thoughts")
            return value

        lines: list[str] = []
        if kind == "fact":
            if relation == "population":
                value = str(known.populations[names[0]]) if names[0] in known.populations else None
            else:
                value = known.facts.get((names[0], relation))
            value = value if value is not None else recall(names[0], relation)
            lines.append(f"Fact: {relation} of {names[0]} = {value}")
            return "\n".join([*lines, f"Answer: {value}"])
        if kind == "capital_language":
            found = known.capitals.get(names[0].lower()) or self.memory.country_of_capital(names[0])
            language = known.facts.get((found, "language")) or recall(found, "language")
            lines += [f"Fact: country with capital {names[0]} = {found}", f"Fact: language of {found} = {language}"]
            return "\n".join([*lines, f"Answer: {language}"])
        if kind == "cheapest":  # compared in its head: only prices it looked up (it has no memory of them)
            priced = {n: known.prices[n] for n in names if n in known.prices}
            best = min(priced, key=lambda n: priced[n]) if priced else names[0]
            lines += [f"Fact: phone price in {n} = {v}" for n, v in priced.items()]
            return "\n".join([*lines, f"Answer: {best}"])
        values = []
        for n in names:
            v = known.populations.get(n)
            values.append(v if v is not None else int(recall(n, "population")))
            lines.append(f"Fact: population of {n} = {values[-1]}")
        sign = " - " if kind == "difference" else " + "
        expression = sign.join(map(str, values))
        exact = values[0] - values[1] if kind == "difference" else sum(values)
        result = known.calculations.get(expression.replace(" ", ""))
        if result is None:
            redo = second_thoughts and self.memory.draw("recheck", question) < self.knobs.recheck_arithmetic
            result = self.memory.arithmetic(exact, question, stage if redo else "first")
        lines.append(f"{expression} = {result}")
        return "\n".join([*lines, f"Answer: {result}"])


def _listed_tools(system: str) -> list[ToolSpec]:
    """The tools a plan prompt lists, one JSON object a line."""
    specs = []
    for line in system.splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            fn = data.get("function", data)
            if isinstance(fn, dict) and "name" in fn:
                specs.append(ToolSpec(fn["name"], fn.get("description", ""), fn.get("parameters", {})))
    return specs
