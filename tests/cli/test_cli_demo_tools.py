"""The demo's example tools: real ``@tool``s whose errors become observations."""

from __future__ import annotations

import pytest

from leanchain.cli._demo_tools import (
    CITIES,
    calculator,
    city_facts,
    convert,
    convert_units,
    demo_tools,
    format_number,
)
from leanchain.errors import ToolException
from leanchain.messages import ToolMessage
from leanchain.tools import StructuredTool

UNITS_LIST = "mm, cm, m, km, in, ft, yd, mi, mg, g, kg, t, oz, lb, C, F, K"


def test_they_are_structured_tools_with_handled_errors() -> None:
    tools = demo_tools()
    assert [t.name for t in tools] == ["city_facts", "convert_units", "calculator"]
    for tool in tools:
        assert isinstance(tool, StructuredTool)
        assert tool.handle_tool_error is True


def test_calculator() -> None:
    assert calculator.invoke("2102650 / 1082.68") == "1942.078915"
    assert calculator.invoke({"expression": "(2 + 3) * 4"}) == "20"
    assert calculator.invoke("2 ** 0.5") == "1.414213562"


def test_calculator_errors_are_observations() -> None:
    assert calculator.invoke("__import__('os')") == (
        "calculator cannot evaluate \"__import__('os')\": unsupported element 'Call': only "
        "numbers, + - * / // % ** and parentheses are allowed"
    )
    message = calculator.invoke(
        {"name": "calculator", "args": {"expression": "1/0"}, "id": "c1", "type": "tool_call"}
    )
    assert isinstance(message, ToolMessage)
    assert (message.content, message.status) == (
        "calculator cannot evaluate '1/0': division by zero",
        "error",
    )


@pytest.mark.parametrize(
    ("tool_input", "expected"),
    [
        ("330 m to ft", "330 m = 1082.68 ft"),
        ({"value": 330, "from_unit": "m", "to_unit": "ft"}, "330 m = 1082.68 ft"),
        ({"value": 1, "from_unit": "miles", "to_unit": "kilometres"}, "1 mi = 1.60934 km"),
        ("2.5 kg in lb", "2.5 kg = 5.51156 lb"),
        ("16 oz into g", "16 oz = 453.592 g"),
        ("100 C to F", "100 C = 212 F"),
        ("-40 °F to celsius", "-40 F = -40 C"),
        ("0 K to C", "0 K = -273.15 C"),
        ("12inches to feet", "12 in = 1 ft"),
    ],
)
def test_convert_units(tool_input: str | dict[str, object], expected: str) -> None:
    assert convert_units.invoke(tool_input) == expected


@pytest.mark.parametrize(
    ("tool_input", "expected"),
    [
        ("1 parsec to m", f"unknown unit 'parsec'; known units: {UNITS_LIST}"),
        (
            {"value": 3, "from_unit": "kg", "to_unit": "furlong"},
            f"unknown unit 'furlong'; known units: {UNITS_LIST}",
        ),
        ("5 kg to m", "cannot convert kg (mass) to m (length)"),
        (
            "five metres in feet",
            "cannot read 'five metres in feet': write a number, a unit, 'to' and a unit, "
            "for example '330 m to ft'",
        ),
        ({"value": 3}, "both from_unit and to_unit are needed"),
    ],
)
def test_convert_units_errors_are_observations(
    tool_input: str | dict[str, object], expected: str
) -> None:
    assert convert_units.invoke(tool_input) == expected


def test_convert_raises_tool_exception() -> None:
    with pytest.raises(ToolException, match=r"^cannot convert C \(temperature\) to kg \(mass\)$"):
        convert(1, "C", "kg")
    assert convert(1, "km", "m") == 1000


def test_city_facts() -> None:
    assert city_facts.invoke("Paris") == (
        "Paris: country France; population 2102650; landmark Eiffel Tower; landmark_height 330 m"
    )
    assert (
        city_facts.invoke({"city": "tokyo", "fact": "landmark"}) == "Tokyo landmark: Tokyo Skytree"
    )
    assert city_facts.invoke({"city": " New York ", "fact": "country"}) == (
        "New York country: United States"
    )
    assert sorted(CITIES) == ["London", "New York", "Paris", "Sydney", "Tokyo"]


def test_city_facts_errors_are_observations() -> None:
    assert city_facts.invoke("Atlantis") == (
        "no facts about 'Atlantis'; known cities: Paris, London, Tokyo, New York, Sydney"
    )
    assert city_facts.invoke({"city": "Paris", "fact": "mayor"}) == (
        "unknown fact 'mayor'; known facts: country, population, landmark, landmark_height, all"
    )


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (3.0, 10, "3"),
        (1942.0789152842945, 10, "1942.078915"),
        (1082.677165, 6, "1082.68"),
        (1e20, 10, "1e+20"),
        (-2, 10, "-2"),
    ],
)
def test_format_number(value: float, digits: int, text: str) -> None:
    assert format_number(value, digits) == text
