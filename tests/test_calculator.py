from __future__ import annotations

import pytest

from toollab import ToolError, calculator
from toollab.tools.arithmetic import MAX_INT_DIGITS, evaluate


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("(5.0 + 3.0) * 2.0", 16.0),
        ("2 ** 10", 1024),
        ("-3 - -4", 1),
        ("7 // 2", 3),
        ("7 % 4", 3),
        ("1 / 4", 0.25),
        ("2 ** -1", 0.5),
        ("-(2 + 3) * 4", -20),
        (" 1_000 * 3 ", 3000),
        ("2 ** 3 ** 2", 512),
        ("1e3 / 8", 125.0),
        ("1,250 + 3,400.5", 4650.5),  # thousands separators, as people write them
    ],
)
def test_arithmetic(expression, expected):
    assert evaluate(expression) == expected


def test_tool_formats_numbers():
    assert calculator("(5.0 + 3.0) * 2.0") == "16.0"
    assert calculator("0.1 + 0.2") == "0.3"
    assert calculator("2 ** 64") == "18446744073709551616"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("9**9**9", "too large"),
        ("10**299 * 10**299", "too large"),
        ("2.5 ** 5000", "too large"),
        ("1 / 0", "division by zero"),
        ("5 // 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "negative power"),
        ("(-8) ** 0.5", "no real result"),
        ("1e308 + 1e308", "finite"),
        ("__import__('os').system('true')", "Call is not allowed"),
        ("x + 1", "Name is not allowed"),
        ("(1).real", "Attribute is not allowed"),
        ("'a' * 3", "Constant is not allowed"),
        ("True + 1", "Constant is not allowed"),
        ("1j * 2", "Constant is not allowed"),
        ("+3", "UAdd is not allowed"),
        ("~3", "Invert is not allowed"),
        ("3 << 2", "LShift is not allowed"),
        ("1 < 2", "Compare is not allowed"),
        ("[1, 2]", "List is not allowed"),
        ("lambda: 1", "Lambda is not allowed"),
        ("1 +", "not an arithmetic expression"),
        ("", "not an arithmetic expression"),
        ("1" * 600, "longer than"),
        ("(" * 240 + "1" + ")" * 240, "nested too deeply|not an arithmetic expression"),
    ],
)
def test_refusals_are_explained(expression, message):
    with pytest.raises(ToolError, match=message):
        evaluate(expression)


def test_largest_allowed_integer_passes():
    assert len(str(evaluate(f"10 ** {MAX_INT_DIGITS - 1}"))) == MAX_INT_DIGITS
