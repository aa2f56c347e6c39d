"""An EBNF grammar for pythonic calls, `[f(a=1, b='x'), g()]`: keyword arguments whose values are Python
literals of the schema's types. Arguments come in the schema's order, required ones always, optional ones
maybe (a fixed order keeps the grammar linear in the number of parameters)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toollab.tools import ToolSpec

# Python literals. Strings in single or double quotes with the usual escapes; numbers as Python writes them.
BASE_RULES = r"""
ws ::= [ ]?
str ::= "'" ([^'\\\n] | "\\" [^\n])* "'" | "\"" ([^"\\\n] | "\\" [^\n])* "\""
int ::= "-"? ("0" | [1-9] [0-9]*)
num ::= int ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
bool ::= "True" | "False"
none ::= "None"
any ::= str | num | bool | none | anylist | anydict
anylist ::= "[" ws (any ("," ws any)*)? "]"
anydict ::= "{" ws (str ":" ws any ("," ws str ":" ws any)*)? "}"
"""


def _literal(value: Any) -> str:
    """An EBNF string literal for a Python literal's source text."""
    return json.dumps(repr(value))


class _Rules:
    def __init__(self) -> None:
        self.rules: list[str] = []
        self.count = 0

    def add(self, body: str) -> str:
        self.count += 1
        name = f"r{self.count}"
        self.rules.append(f"{name} ::= {body}")
        return name

    def value(self, schema: Any) -> str:
        """The rule for a value of `schema`."""
        if not isinstance(schema, dict):
            return "any"
        if "enum" in schema:
            return self.add(" | ".join(_literal(v) for v in schema["enum"]) or '"None"')
        if "const" in schema:
            return self.add(_literal(schema["const"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.add(" | ".join(self.value(s) for s in schema[key]))
        kind = schema.get("type")
        if isinstance(kind, list):
            return self.add(" | ".join(self.value({**schema, "type": k}) for k in kind))
        if kind == "string":
            return "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "num"
        if kind == "boolean":
            return "bool"
        if kind == "null":
            return "none"
        if kind == "array":
            item = self.value(schema.get("items", {}))
            return self.add(f'"[" ws ({item} ("," ws {item})*)? "]"')
        if kind == "object":
            return self._object(schema)
        return "any"

    def _object(self, schema: dict[str, Any]) -> str:
        properties = schema.get("properties") or {}
        if not properties:
            return "anydict"
        required = set(schema.get("required", []))
        pairs = [f'{_literal(name)} ":" ws {self.value(sub)}' for name, sub in properties.items()]
        return self.add(f'"{{" ws {self._sequence(pairs, [n not in required for n in properties])} "}}"')

    def _sequence(self, items: Sequence[str], optional: Sequence[bool]) -> str:
        """Items in order, comma-separated; required ones always, optional ones maybe."""
        # after[i]: items i.. once something came before (so each present item starts with a comma)
        after = ['""'] * (len(items) + 1)
        for i in reversed(range(len(items))):
            present = f'"," ws {items[i]} {after[i + 1]}'
            after[i] = self.add(f"({present}) | {after[i + 1]}" if optional[i] else present)
        # first: items i.. when nothing came before
        first = '""'
        for i in reversed(range(len(items))):
            present = f"{items[i]} {after[i + 1]}"
            first = self.add(f"({present}) | {first}" if optional[i] else present)
        return first

    def call(self, tool: ToolSpec) -> str:
        params = tool.parameters.get("properties") or {}
        required = set(tool.parameters.get("required", []))
        items = [f"{json.dumps(name + '=')} {self.value(sub)}" for name, sub in params.items()]
        arguments = self._sequence(items, [n not in required for n in params])
        return self.add(f'{json.dumps(tool.name + "(")} {arguments} ")"')


def pythonic_grammar(tools: Sequence[ToolSpec], parallel: bool = True, brackets: bool = True) -> str:
    """EBNF for a call list over `tools`: one call unless `parallel`; `brackets=False` leaves out the list's
    "[" and "]" (when a structural tag writes them)."""
    rules = _Rules()
    call = rules.add(" | ".join(rules.call(t) for t in tools))
    more = f' ("," ws {call})*' if parallel else ""
    root = f'root ::= "[" {call}{more} "]"' if brackets else f"root ::= {call}{more}"
    return "\n".join([root, *rules.rules, BASE_RULES.strip()])
