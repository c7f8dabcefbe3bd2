"""`leanchain.errors`: every exception leanchain raises on purpose, importable from one place."""

from __future__ import annotations

import inspect

import pytest

import leanchain.errors as errors_module
import leanchain.tools as tools_module
from leanchain.errors import LeanchainError, ToolInputValidationError
from leanchain.tools import tool


def _defined_exceptions() -> set[str]:
    return {
        name
        for name, value in vars(errors_module).items()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == errors_module.__name__
    }


def test_all_is_every_exception_class_of_the_module() -> None:
    assert set(errors_module.__all__) == _defined_exceptions()
    assert errors_module.__all__ == sorted(errors_module.__all__)


def test_every_exported_exception_is_drawn_in_the_tree() -> None:
    doc = errors_module.__doc__
    assert doc is not None
    assert [name for name in errors_module.__all__ if f" {name}" not in doc] == []


def test_tool_input_validation_error_is_one_class_in_both_places() -> None:
    assert tools_module.ToolInputValidationError is ToolInputValidationError
    assert "ToolInputValidationError" in tools_module.__all__
    assert ToolInputValidationError.__module__ == "leanchain.errors"
    assert issubclass(ToolInputValidationError, LeanchainError)
    assert issubclass(ToolInputValidationError, ValueError)


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def test_a_tool_raises_the_error_importable_from_leanchain_errors() -> None:
    with pytest.raises(ToolInputValidationError) as info:
        multiply.invoke({"a": 2, "b": "x"})
    assert str(info.value) == (
        "Tool 'multiply' got invalid arguments: 'b': Input should be a valid integer, unable to "
        "parse string as an integer (got 'x')"
    )
    assert info.value.tool_name == "multiply"
    assert info.value.__cause__ is info.value.validation_error
