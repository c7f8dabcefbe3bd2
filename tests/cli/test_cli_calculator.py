"""The demo calculator: arithmetic only, bounded in size, and every refusal a CalculatorError."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.cli._calculator import MAX_LENGTH, CalculatorError, evaluate

ONLY = "only numbers, + - * / // % ** and parentheses are allowed"


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("7 / 2", 3.5),
        ("7 // 2", 3),
        ("-7 % 3", 2),
        ("2 ** 10", 1024),
        ("2 ** -1", 0.5),
        ("-(3 - 5)", 2),
        ("+4", 4),
        ("6.0 / 3", 2),
        ("1_000 + 0x10", 1016),
        ("  2102650 / 1082.68  ", 2102650 / 1082.68),
        ("1e-400", 0),
        ("-" * 400 + "1", 1),
    ],
)
def test_arithmetic(expression: str, value: float) -> None:
    result = evaluate(expression)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ('__import__("os").system("true")', f"unsupported element 'Call': {ONLY}"),
        ("__import__", f"unsupported element 'Name': {ONLY}"),
        ("().__class__.__bases__", f"unsupported element 'Attribute': {ONLY}"),
        ("(1).real", f"unsupported element 'Attribute': {ONLY}"),
        ("[1, 2][0]", f"unsupported element 'Subscript': {ONLY}"),
        ("[1]", f"unsupported element 'List': {ONLY}"),
        ("lambda: 1", f"unsupported element 'Lambda': {ONLY}"),
        ("(x := 1)", f"unsupported element 'NamedExpr': {ONLY}"),
        ("1 if 1 else 2", f"unsupported element 'IfExp': {ONLY}"),
        ("1 < 2", f"unsupported element 'Compare': {ONLY}"),
        ("1 and 2", f"unsupported element 'BoolOp': {ONLY}"),
        ("not 1", f"unsupported element 'UnaryOp': {ONLY}"),
        ("~1", f"unsupported element 'UnaryOp': {ONLY}"),
        ("1 << 2", f"unsupported element 'BinOp': {ONLY}"),
        ("1 @ 2", f"unsupported element 'BinOp': {ONLY}"),
        ("'a' * 3", f"unsupported element 'Constant': {ONLY}"),
        ("True + 1", "unsupported element 'bool': only numbers are allowed"),
        ("1j * 1j", f"unsupported element 'Constant': {ONLY}"),
        ("f'{1}'", f"unsupported element 'JoinedStr': {ONLY}"),
        ("9**9**9", "exponent 387420489 is too large (limit 1000)"),
        ("2 ** -2000", "exponent -2000 is too large (limit 1000)"),
        ("10 ** 1000", "the result is too large or not a real number"),
        ("(10 ** 300) ** 1000", "the result is too large or not a real number"),
        ("1e300 * 1e300", "the result is too large or not a real number"),
        ("1e300 ** 2.5", "the result is too large"),
        ("(-8) ** 0.5", "the result is too large or not a real number"),
        ("1e999", "a number is too large (limit 1e+300)"),
        ("1e999 - 1e999", "a number is too large (limit 1e+300)"),
        ("1" * 302, "a number is too large (limit 1e+300)"),
        ("1 / 0", "division by zero"),
        ("1 // 0.0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("1 +", "not a valid arithmetic expression: invalid syntax"),
        ("1; 2", "not a valid arithmetic expression: invalid syntax"),
        ("import os", "not a valid arithmetic expression: invalid syntax"),
        ("", "not a valid arithmetic expression: invalid syntax"),
        (
            "(" * 201 + "1" + ")" * 201,
            "not a valid arithmetic expression: too many nested parentheses",
        ),
        ("1 + " * 125 + "1", f"expression is longer than {MAX_LENGTH} characters"),
        ("1" * (MAX_LENGTH + 1), f"expression is longer than {MAX_LENGTH} characters"),
    ],
)
def test_refusals(expression: str, message: str) -> None:
    with pytest.raises(CalculatorError) as caught:
        evaluate(expression)
    assert str(caught.value) == message


def test_null_bytes_are_refused() -> None:
    with pytest.raises(CalculatorError, match=r"^not a valid arithmetic expression"):
        evaluate("1\x00+1")


def test_calculator_error_is_a_value_error() -> None:
    assert issubclass(CalculatorError, ValueError)


ARITHMETIC = st.text(alphabet="0123456789.+-*/%() e_x", max_size=MAX_LENGTH + 20)


@settings(max_examples=400, deadline=None)
@given(ARITHMETIC | st.text(max_size=60))
def test_any_text_gives_a_number_or_a_calculator_error(expression: str) -> None:
    try:
        result = evaluate(expression)
    except CalculatorError:
        return
    assert type(result) in (int, float)
    assert abs(result) <= 1e300


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**12), 10**12), st.integers(-(10**12), 10**12))
def test_integer_arithmetic_matches_python(a: int, b: int) -> None:
    assert evaluate(f"({a}) + ({b}) * 3 - ({a})") == a + b * 3 - a
    if b:
        assert evaluate(f"({a}) // ({b})") == a // b
        assert evaluate(f"({a}) % ({b})") == a % b
