"""Tool errors: ToolException handling, argument validation, and what propagates."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from leanchain.errors import LeanchainError, ToolException
from leanchain.messages import ToolMessage
from leanchain.tools import BaseTool, StructuredTool, ToolInputValidationError, tool


def _failing(exc: Exception, **settings: Any) -> StructuredTool:
    def fail(x: int) -> str:
        raise exc

    return StructuredTool.from_function(fail, name="bad", description="Fails.", **settings)


def _call(args: dict[str, Any]) -> dict[str, Any]:
    return {"name": "bad", "args": args, "id": "c9", "type": "tool_call"}


def test_tool_exception_propagates_by_default() -> None:
    with pytest.raises(ToolException) as info:
        _failing(ToolException("bad thing")).invoke({"x": 1})
    assert str(info.value) == "bad thing"


@pytest.mark.parametrize(
    ("flag", "exc", "observation"),
    [
        (True, ToolException("bad thing"), "bad thing"),
        (True, ToolException(), "Tool execution error"),
        ("try again", ToolException("bad thing"), "try again"),
        (lambda e: f"cb:{e}", ToolException("bad thing"), "cb:bad thing"),
        (
            lambda e: [{"type": "text", "text": "block"}],
            ToolException("x"),
            [{"type": "text", "text": "block"}],
        ),
    ],
)
def test_handled_tool_exception_becomes_the_observation(
    flag: Any, exc: ToolException, observation: Any
) -> None:
    bad = _failing(exc, handle_tool_error=flag)
    assert bad.invoke({"x": 1}) == observation
    assert bad.invoke(_call({"x": 1})) == ToolMessage(
        observation, name="bad", tool_call_id="c9", status="error"
    )


def test_handle_tool_error_can_be_set_after_construction() -> None:
    bad = _failing(ToolException("late"))
    bad.handle_tool_error = True
    assert bad.invoke({"x": 1}) == "late"


def test_other_exceptions_propagate_even_when_tool_errors_are_handled() -> None:
    bad = _failing(RuntimeError("boom"), handle_tool_error=True, handle_validation_error=True)
    with pytest.raises(RuntimeError, match=r"^boom$"):
        bad.invoke({"x": 1})


def test_tool_exception_is_a_leanchain_error() -> None:
    assert issubclass(ToolException, LeanchainError)


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


def test_validation_error_names_the_tool_the_argument_and_the_expectation() -> None:
    with pytest.raises(ToolInputValidationError) as info:
        multiply.invoke({"a": 2, "b": "x"})
    assert str(info.value) == (
        "Tool 'multiply' got invalid arguments: 'b': Input should be a valid integer, "
        "unable to parse string as an integer (got 'x')"
    )
    assert info.value.tool_name == "multiply"
    assert isinstance(info.value.__cause__, ValidationError)
    assert info.value.validation_error is info.value.__cause__
    assert [e["loc"] for e in info.value.errors()] == [("b",)]
    assert isinstance(info.value, ValueError)


def test_validation_error_lists_every_problem() -> None:
    with pytest.raises(ToolInputValidationError) as info:
        multiply.invoke({"b": [1]})
    assert str(info.value) == (
        "Tool 'multiply' got invalid arguments: 'a': Field required; "
        "'b': Input should be a valid integer (got [1])"
    )


def test_validation_error_locates_nested_values_and_shortens_long_ones() -> None:
    class Item(BaseModel):
        qty: int

    class Order(BaseModel):
        items: list[Item]
        note: int = 0

    def order(items: list[Item], note: int) -> int:
        return len(items)

    t = StructuredTool.from_function(order, description="Order.", args_schema=Order)
    with pytest.raises(ToolInputValidationError) as info:
        t.invoke({"items": [{"qty": 1}, {"qty": "many"}], "note": "n" * 200})
    assert str(info.value) == (
        "Tool 'order' got invalid arguments: "
        "'items[1].qty': Input should be a valid integer, unable to parse string as an "
        "integer (got 'many'); "
        "'note': Input should be a valid integer, unable to parse string as an integer "
        f"(got '{'n' * 76}...)"
    )


def test_validation_error_for_input_that_is_not_a_dict() -> None:
    with pytest.raises(ToolInputValidationError) as info:
        multiply.invoke(5)  # type: ignore[arg-type]
    assert str(info.value) == (
        "Tool 'multiply' got invalid arguments: Input should be a valid dictionary or "
        "instance of multiply (got 5)"
    )


@pytest.mark.parametrize(
    ("flag", "observation"),
    [
        (True, "Tool input validation error"),
        ("Please pass integers.", "Please pass integers."),
        (lambda e: f"fix: {e.errors()[0]['loc']}", "fix: ('b',)"),
    ],
)
def test_handled_validation_error_becomes_the_observation(flag: Any, observation: str) -> None:
    t = StructuredTool.from_function(
        lambda a, b: a * b,
        name="multiply",
        description="Multiply.",
        args_schema=multiply.args_schema,
        handle_validation_error=flag,
    )
    assert t.invoke({"a": 1, "b": "x"}) == observation
    call = {"name": "multiply", "args": {"a": 1, "b": "x"}, "id": "v1", "type": "tool_call"}
    assert t.invoke(call) == ToolMessage(
        observation, name="multiply", tool_call_id="v1", status="error"
    )


def test_pydantic_errors_raised_inside_the_tool_count_as_validation_errors() -> None:
    class Inner(BaseModel):
        n: int

    def parse(text: str) -> int:
        return Inner.model_validate({"n": text}).n

    t = StructuredTool.from_function(parse, description="Parse.", handle_validation_error=True)
    assert t.invoke({"text": "x"}) == "Tool input validation error"
    t.handle_validation_error = False
    with pytest.raises(ValidationError):
        t.invoke({"text": "x"})


def test_validation_errors_are_not_tool_exceptions() -> None:
    t = StructuredTool.from_function(
        lambda a, b: a * b,
        name="m",
        description="M.",
        args_schema=multiply.args_schema,
        handle_tool_error=True,
    )
    with pytest.raises(ToolInputValidationError):
        t.invoke({"a": 1, "b": "x"})


@pytest.mark.parametrize("setting", ["handle_tool_error", "handle_validation_error"])
def test_bad_handler_types_fail_at_construction(setting: str) -> None:
    settings: dict[str, Any] = {setting: 3}
    with pytest.raises(TypeError) as info:
        StructuredTool(name="t", func=lambda: 1, **settings)
    assert str(info.value) == (
        f"Got unexpected type of `{setting}`. Expected bool, str or callable. Received: 3"
    )


def test_bad_handler_set_later_fails_at_call_time() -> None:
    bad = _failing(ToolException("x"))
    bad.handle_tool_error = 3  # type: ignore[assignment]
    with pytest.raises(ValueError) as info:
        bad.invoke({"x": 1})
    assert str(info.value) == (
        "Got unexpected type of `handle_tool_error`. Expected bool, str or callable. Received: 3"
    )


def test_construction_checks() -> None:
    with pytest.raises(ValueError) as info:
        StructuredTool(name="t", func=lambda: 1, response_format="json")  # type: ignore[arg-type]
    assert str(info.value) == (
        "response_format must be 'content' or 'content_and_artifact', got 'json'"
    )
    with pytest.raises(TypeError) as type_info:
        StructuredTool(name="t", func=lambda: 1, args_schema=int)  # type: ignore[arg-type]
    assert str(type_info.value) == (
        "args_schema must be a pydantic model class or a JSON-schema dict, got <class 'int'>"
    )
    with pytest.raises(ValueError, match=r"^Function and/or coroutine must be provided$"):
        StructuredTool(name="t")

    class Nameless(BaseTool):
        description: str = "no name"

    with pytest.raises(TypeError) as name_info:
        Nameless()
    assert str(name_info.value) == "Nameless needs a name: pass name=... or set it on the class"


def test_async_function_given_as_func_is_rejected() -> None:
    async def later() -> int:
        return 1

    with pytest.raises(TypeError) as info:
        StructuredTool(name="t", func=later)
    assert str(info.value) == "func 'later' is a coroutine function: pass it as coroutine=..."
