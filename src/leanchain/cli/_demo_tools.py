"""The demo's example tools: a safe calculator, a unit converter and a small table of city facts.

They are ordinary ``@tool`` functions. Each reports a bad input by raising `ToolException`,
and each has ``handle_tool_error=True``, so an agent sees the error's message as the
observation and can try again instead of the run failing.

Every tool takes a single string too (its first argument), which is what the text agents
(ReAct, XML) send: ``convert_units("330 m to ft")`` works as well as
``convert_units(value=330, from_unit="m", to_unit="ft")``.
"""

from __future__ import annotations

import re
from typing import Final

from leanchain.cli._calculator import CalculatorError, evaluate
from leanchain.errors import ToolException
from leanchain.tools import BaseTool, tool

__all__ = ["CITIES", "UNITS", "calculator", "city_facts", "convert_units", "demo_tools"]


def format_number(value: float, digits: int = 10) -> str:
    """`value` as short text: integers without a decimal point, others to `digits` places."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}"


@tool(parse_docstring=True)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression: numbers, + - * / // % ** and parentheses.

    Args:
        expression: the expression, for example "(2 + 3) * 4.5".
    """
    try:
        return format_number(evaluate(expression))
    except CalculatorError as exc:
        raise ToolException(f"calculator cannot evaluate {expression!r}: {exc}") from None


calculator.handle_tool_error = True

# Factors to the base unit of each dimension (metre, kilogram); temperatures are affine.
LENGTH: Final = {
    "mm": 0.001,
    "cm": 0.01,
    "m": 1.0,
    "km": 1000.0,
    "in": 0.0254,
    "ft": 0.3048,
    "yd": 0.9144,
    "mi": 1609.344,
}
MASS: Final = {
    "mg": 1e-6,
    "g": 0.001,
    "kg": 1.0,
    "t": 1000.0,
    "oz": 0.028349523125,
    "lb": 0.45359237,
}
TEMPERATURE: Final = ("C", "F", "K")
UNITS: Final = {
    **{unit: "length" for unit in LENGTH},
    **{unit: "mass" for unit in MASS},
    **{unit: "temperature" for unit in TEMPERATURE},
}
_ALIASES: Final = {
    "millimeter": "mm",
    "centimeter": "cm",
    "meter": "m",
    "metre": "m",
    "kilometer": "km",
    "kilometre": "km",
    "inch": "in",
    "inches": "in",
    "foot": "ft",
    "feet": "ft",
    "yard": "yd",
    "mile": "mi",
    "milligram": "mg",
    "gram": "g",
    "kilogram": "kg",
    "tonne": "t",
    "ounce": "oz",
    "pound": "lb",
    "lbs": "lb",
    "c": "C",
    "°c": "C",
    "celsius": "C",
    "f": "F",
    "°f": "F",
    "fahrenheit": "F",
    "k": "K",
    "kelvin": "K",
}
_PHRASE: Final = re.compile(
    r"\s*(-?\d+(?:\.\d+)?)\s*([^\s\d][^\s]*)\s+(?:to|in|into)\s+(\S+)\s*", re.IGNORECASE
)


def _unit(name: str) -> str:
    key = name.strip()
    if key in UNITS:
        return key
    lowered = key.lower()
    unit = _ALIASES.get(lowered) or _ALIASES.get(lowered.removesuffix("s"))
    if unit is None:
        known = ", ".join(UNITS)
        raise ToolException(f"unknown unit {name!r}; known units: {known}")
    return unit


def _to_kelvin(value: float, unit: str) -> float:
    if unit == "C":
        return value + 273.15
    if unit == "F":
        return (value - 32) * 5 / 9 + 273.15
    return value


def _from_kelvin(value: float, unit: str) -> float:
    if unit == "C":
        return value - 273.15
    if unit == "F":
        return (value - 273.15) * 9 / 5 + 32
    return value


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """`value` in `from_unit` expressed in `to_unit`.

    Raises:
        ToolException: an unknown unit, or units of different dimensions.
    """
    source, target = _unit(from_unit), _unit(to_unit)
    if UNITS[source] != UNITS[target]:
        raise ToolException(
            f"cannot convert {source} ({UNITS[source]}) to {target} ({UNITS[target]})"
        )
    if UNITS[source] == "temperature":
        return _from_kelvin(_to_kelvin(value, source), target)
    table = LENGTH if UNITS[source] == "length" else MASS
    return value * table[source] / table[target]


@tool(parse_docstring=True)
def convert_units(value: float | str, from_unit: str = "", to_unit: str = "") -> str:
    """Convert a length, mass or temperature between units (m, km, ft, mi, kg, lb, C, F, K...).

    Args:
        value: the number to convert, or a whole request such as "330 m to ft".
        from_unit: the unit of the value, for example "m" (not needed with a whole request).
        to_unit: the unit wanted, for example "ft" (not needed with a whole request).
    """
    if isinstance(value, str):
        match = _PHRASE.fullmatch(value)
        if match is None:
            raise ToolException(
                f"cannot read {value!r}: write a number, a unit, 'to' and a unit, "
                "for example '330 m to ft'"
            )
        number, from_unit, to_unit = float(match[1]), match[2], match[3]
    else:
        number = value
    if not from_unit or not to_unit:
        raise ToolException("both from_unit and to_unit are needed")
    result = convert(number, from_unit, to_unit)
    source, target = _unit(from_unit), _unit(to_unit)
    return f"{format_number(number)} {source} = {format_number(result, 6)} {target}"


convert_units.handle_tool_error = True

CITIES: Final[dict[str, dict[str, str]]] = {
    "Paris": {
        "country": "France",
        "population": "2102650",
        "landmark": "Eiffel Tower",
        "landmark_height": "330 m",
    },
    "London": {
        "country": "United Kingdom",
        "population": "8866180",
        "landmark": "The Shard",
        "landmark_height": "310 m",
    },
    "Tokyo": {
        "country": "Japan",
        "population": "14094034",
        "landmark": "Tokyo Skytree",
        "landmark_height": "634 m",
    },
    "New York": {
        "country": "United States",
        "population": "8258035",
        "landmark": "Empire State Building",
        "landmark_height": "443 m",
    },
    "Sydney": {
        "country": "Australia",
        "population": "5450496",
        "landmark": "Sydney Tower",
        "landmark_height": "309 m",
    },
}
"""The demo's lookup table (illustrative figures, not a live data source)."""

_FACTS: Final = ("country", "population", "landmark", "landmark_height")


@tool(parse_docstring=True)
def city_facts(city: str, fact: str = "all") -> str:
    """Look up a city's country, population, best-known landmark and the landmark's height.

    Args:
        city: the city, for example "Paris".
        fact: one of "country", "population", "landmark", "landmark_height", or "all".
    """
    name = next((known for known in CITIES if known.lower() == city.strip().lower()), None)
    if name is None:
        raise ToolException(f"no facts about {city!r}; known cities: {', '.join(CITIES)}")
    facts = CITIES[name]
    if fact == "all":
        return f"{name}: " + "; ".join(f"{key} {facts[key]}" for key in _FACTS)
    if fact not in facts:
        raise ToolException(f"unknown fact {fact!r}; known facts: {', '.join(_FACTS)}, all")
    return f"{name} {fact}: {facts[fact]}"


city_facts.handle_tool_error = True


def demo_tools() -> list[BaseTool]:
    """The three demo tools, in the order the agents are given them."""
    return [city_facts, convert_units, calculator]
