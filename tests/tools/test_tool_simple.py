"""`Tool`: the single-input tool and its ``__arg1`` convention."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from leanchain.errors import ToolException
from leanchain.messages import ToolMessage
from leanchain.tools import Tool, convert_to_openai_tool, tool

TOO_MANY = (
    "Too many arguments to single-input tool calc.\n"
    "                Consider using StructuredTool instead. Args: {}"
)


def _calc() -> Tool:
    return Tool("calc", lambda s: s[::-1], "Reverse text")


def test_string_input() -> None:
    assert _calc().invoke("abc") == "cba"


def test_dict_with_one_value_passes_that_value() -> None:
    assert _calc().invoke({"__arg1": "abc"}) == "cba"
    assert _calc().invoke({"anything": "xy"}) == "yx"


def test_dict_with_several_values_raises_the_reference_message() -> None:
    with pytest.raises(ToolException) as info:
        _calc().invoke({"a": "1", "b": "2"})
    assert str(info.value) == TOO_MANY.format("['1', '2']")
    assert "\n                Consider" in str(info.value)


def test_empty_dict_raises_the_same_message() -> None:
    with pytest.raises(ToolException) as info:
        _calc().invoke({})
    assert str(info.value) == TOO_MANY.format("[]")


def test_too_many_arguments_is_a_handled_tool_exception() -> None:
    calc = Tool("calc", lambda s: s, "Echo", handle_tool_error=True)
    assert calc.invoke({"a": "1", "b": "2"}) == TOO_MANY.format("['1', '2']")


def test_tool_call_input() -> None:
    call = {"name": "calc", "args": {"__arg1": "abc"}, "id": "t1", "type": "tool_call"}
    assert _calc().invoke(call) == ToolMessage("cba", name="calc", tool_call_id="t1")


def test_args_and_openai_schema() -> None:
    calc = _calc()
    assert calc.args == {"tool_input": {"type": "string"}}
    assert calc.is_single_input is True
    assert convert_to_openai_tool(calc) == {
        "type": "function",
        "function": {
            "name": "calc",
            "description": "Reverse text",
            "parameters": {
                "properties": {"__arg1": {"title": "__arg1", "type": "string"}},
                "required": ["__arg1"],
                "type": "object",
            },
        },
    }


def test_with_args_schema_the_single_value_is_validated() -> None:
    class Query(BaseModel):
        n: int

    double = Tool("double", lambda n: n * 2, "Double", args_schema=Query)
    assert double.invoke({"n": "4"}) == 8
    assert double.invoke("5") == 10
    assert double.args == {"n": {"title": "N", "type": "integer"}}


def test_from_function() -> None:
    calc = Tool.from_function(lambda s: s + "!", "bang", "Add a bang", return_direct=True)
    assert (calc.name, calc.description, calc.return_direct) == ("bang", "Add a bang", True)
    assert calc.invoke("hi") == "hi!"


async def test_coroutine_and_async_func() -> None:
    async def reverse(s: str) -> str:
        return s[::-1]

    assert await Tool("rev", None, "Reverse.", coroutine=reverse).ainvoke("ab") == "ba"
    given_as_func = Tool("rev", reverse, "Reverse.")
    assert (given_as_func.func, given_as_func.coroutine) == (None, reverse)
    assert await given_as_func.ainvoke("xy") == "yx"


async def test_sync_tool_runs_under_ainvoke() -> None:
    assert await _calc().ainvoke("abc") == "cba"


def test_needs_a_function() -> None:
    with pytest.raises(ValueError, match=r"^Function and/or coroutine must be provided$"):
        Tool("x", None, "Nothing")


def test_decorator_without_schema_inference_gives_a_tool() -> None:
    @tool("echo", infer_schema=False)
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    assert type(echo) is Tool
    assert (echo.name, echo.description) == ("echo", "Echo the text back.")
    assert echo.invoke({"whatever": "hi"}) == "hi"
    assert echo.args == {"tool_input": {"type": "string"}}
