"""Built-in arithmetic tools: `add`, `multiply` and a safe `calculator` (parsed with `ast`, never `eval`)."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from toollab.tools.tool import ToolError, tool

MAX_EXPRESSION_CHARS = 500
MAX_INT_DIGITS = 300  # larger integers are refused before they are computed
MAX_EXPONENT = 10_000

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_ALLOWED = "numbers, + - * / // % **, unary minus and brackets"
GROUPED = re.compile(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b")  # 1,250,000 and 40,000.5


def without_separators(text: str) -> str:
    """`text` with the thousands separators of its numbers taken out ("$1,250,000" -> "$1250000"), as people write
    them and neither Python nor JSON reads them."""
    return GROUPED.sub(lambda m: m.group().replace(",", ""), text)


def _digits(x: float) -> float:
    """About how many decimal digits the integer part of |x| has."""
    return math.log10(abs(x)) + 1 if x else 1


def _check_size(value: float) -> float:
    if isinstance(value, int) and _digits(value) > MAX_INT_DIGITS:
        raise ToolError(f"result too large (over {MAX_INT_DIGITS} digits)")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("result is not a finite number")
    return value


def _power(base: float, exponent: float) -> float:
    if abs(exponent) > MAX_EXPONENT:
        raise ToolError(f"exponent {exponent} is too large (limit {MAX_EXPONENT})")
    if exponent > 0 and abs(base) > 1 and math.log10(abs(base)) * exponent >= MAX_INT_DIGITS:
        raise ToolError(f"result too large (over {MAX_INT_DIGITS} digits)")
    if base == 0 and exponent < 0:
        raise ToolError("zero cannot be raised to a negative power")
    result = base**exponent
    if isinstance(result, complex):
        raise ToolError("a negative number to a fractional power has no real result")
    return result


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return _check_size(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            return _check_size(_power(left, right))
        if isinstance(node.op, ast.Mult) and _digits(left) + _digits(right) > MAX_INT_DIGITS + 2:
            raise ToolError(f"result too large (over {MAX_INT_DIGITS} digits)")
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
            raise ToolError("division by zero")
        try:
            return _check_size(_BINARY[type(node.op)](left, right))
        except OverflowError:
            raise ToolError("result too large") from None
    what = type(node.op).__name__ if isinstance(node, (ast.BinOp, ast.UnaryOp)) else type(node).__name__
    raise ToolError(f"{what} is not allowed; only {_ALLOWED}")


def evaluate(expression: str) -> float:
    """Evaluate an arithmetic expression safely; raises ToolError with a message for the model."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    try:  # a comma has no other meaning here: "1,250 + 3,400" is 4650
        tree = ast.parse(without_separators(expression.strip()), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ToolError(f"not an arithmetic expression ({type(exc).__name__}); use {_ALLOWED}") from None
    try:
        return _evaluate(tree)
    except RecursionError:
        raise ToolError("expression nested too deeply") from None


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression and return the number.

    Args:
        expression: Numbers with + - * / // % ** and brackets, e.g. "(5.0 + 3.0) * 2.0".
    """
    value = evaluate(expression)
    if isinstance(value, int):
        return str(value)
    text = format(value, ".12g")  # hides binary noise: 0.1 + 0.2 gives 0.3
    return text if any(c in text for c in ".en") else text + ".0"  # keep 16.0 a float


@tool
def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a * b
