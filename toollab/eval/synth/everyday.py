"""Everyday tools for the dev set's agent tasks: arithmetic, weather, money, words, dates, lengths, percentages
and clocks. Deterministic (the weather and the clocks are made up from the city's name), so every task has one
right answer that a test can check.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Literal

from toollab.tools import Tool, ToolError, tool
from toollab.tools.arithmetic import evaluate

Currency = Literal["EUR", "USD", "GBP", "JPY", "CHF", "NOK", "SEK"]
LengthUnit = Literal["km", "kilometers", "m", "meters", "mi", "miles", "ft", "feet"]
CONDITIONS = ("sunny", "cloudy", "light rain", "windy", "foggy", "snow showers")
RATES_TO_EUR = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "JPY": 0.0062, "CHF": 1.04, "NOK": 0.086, "SEK": 0.088}
METERS = {"kilometers": 1000.0, "meters": 1.0, "miles": 1609.344, "feet": 0.3048}
METERS |= {"km": METERS["kilometers"], "m": METERS["meters"], "mi": METERS["miles"], "ft": METERS["feet"]}
UTC_NOON = dt.datetime(2027, 6, 1, 12, 0)


def _seed(text: str) -> int:
    return int(hashlib.sha256(text.strip().lower().encode()).hexdigest(), 16)


def weather_of(city: str) -> tuple[int, str]:
    """The made-up weather of a city: a temperature in Celsius and a condition."""
    seed = _seed(city)
    return seed % 36 - 5, CONDITIONS[seed // 36 % len(CONDITIONS)]


def time_in(city: str) -> str:
    """The made-up local time of a city when it is noon UTC."""
    offset = _seed(city) % 25 - 12
    return (UTC_NOON + dt.timedelta(hours=offset)).strftime("%H:%M")


@tool
def arith(expression: str) -> float:
    """Calculate: work out arithmetic such as 17 times 23, 120 divided by 8 or (5 + 3) * 2.

    Args:
        expression: The arithmetic, with + - * / and brackets, for example "(5 + 3) * 2".
    """
    return evaluate(expression)


@tool
def weather_now(city: str) -> str:
    """The current weather in a city: temperature and conditions right now.

    Args:
        city: The city, for example "Oslo".
    """
    temperature, condition = weather_of(city)
    return f"{city.strip()}: {temperature} °C, {condition}"


@tool
def money_convert(amount: float, from_code: Currency, to_code: Currency) -> float:
    """Convert an amount of money (dollars, euros, pounds, yen, francs, kroner) into another currency.

    Args:
        amount: How much money.
        from_code: Its currency code, for example "USD".
        to_code: The currency code to convert to, for example "EUR".
    """
    return round(amount * RATES_TO_EUR[from_code] / RATES_TO_EUR[to_code], 2)


@tool
def word_tally(text: str) -> int:
    """Count the words in a text or sentence: how many words it has.

    Args:
        text: The text.
    """
    return len(text.split())


@tool
def days_between_dates(start: str, end: str) -> int:
    """Count the days between two dates: how many days from one date to another.

    Args:
        start: The first date, YYYY-MM-DD.
        end: The second date, YYYY-MM-DD.
    """
    try:
        return (dt.date.fromisoformat(end.strip()) - dt.date.fromisoformat(start.strip())).days
    except ValueError as exc:
        raise ToolError(f"dates must be YYYY-MM-DD: {exc}") from None


@tool
def length_convert(value: float, from_unit: LengthUnit, to_unit: LengthUnit) -> float:
    """Convert a distance or length between kilometers, meters, miles and feet.

    Args:
        value: The length.
        from_unit: Its unit.
        to_unit: The unit wanted.
    """
    return round(value * METERS[from_unit] / METERS[to_unit], 3)


@tool
def percent_of(percent: float, value: float) -> float:
    """Work out a percentage of a value, such as 15% of 80 or a tip on a bill.

    Args:
        percent: The percentage, for example 15 for 15%.
        value: The value to take it of.
    """
    return round(percent / 100 * value, 4)


@tool
def clock_in(city: str) -> str:
    """What time it is now in a city: its local time.

    Args:
        city: The city.
    """
    return f"It is {time_in(city)} in {city.strip()}."


EVERYDAY_TOOLS: list[Tool] = [
    arith,
    weather_now,
    money_convert,
    word_tally,
    days_between_dates,
    length_convert,
    percent_of,
    clock_in,
]
