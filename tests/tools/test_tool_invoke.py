"""Invoking tools: string, dict and tool-call inputs, outputs, artifacts and sync/async rules."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from leanchain.messages import ToolMessage
from leanchain.tools import BaseTool, StructuredTool, Tool, ToolInputValidationError, tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


def _call(args: dict[str, Any], call_id: str | None = "call_1") -> dict[str, Any]:
    return {"name": "add", "args": args, "id": call_id, "type": "tool_call"}


def test_dict_input_is_validated_and_coerced() -> None:
    assert add.invoke({"a": 1, "b": "2"}) == 3


def test_extra_keys_are_ignored() -> None:
    assert add.invoke({"a": 1, "b": 2, "c": 3}) == 3


def test_string_input_goes_to_the_only_argument() -> None:
    assert shout.invoke("hi") == "HI"


def test_string_input_to_a_multi_argument_tool_fills_the_first_and_fails_on_the_rest() -> None:
    with pytest.raises(ToolInputValidationError) as info:
        add.invoke("1")
    assert str(info.value) == "Tool 'add' got invalid arguments: 'b': Field required"


def test_string_input_is_validated_and_passed_converted() -> None:
    @tool
    def double(n: int) -> int:
        """Double it."""
        return n * 2

    assert double.invoke("21") == 42


def test_tool_call_input_returns_a_tool_message() -> None:
    result = add.invoke(_call({"a": 1, "b": 2}))
    assert result == ToolMessage("3", name="add", tool_call_id="call_1")
    assert result.status == "success"
    assert result.artifact is None


def test_tool_call_args_are_not_modified() -> None:
    call = _call({"a": 1, "b": 2})
    add.invoke(call)
    assert call == _call({"a": 1, "b": 2})


def test_dict_without_tool_call_type_is_plain_args() -> None:
    not_a_call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "x", "a": 5, "b": 6}
    assert add.invoke(not_a_call) == 11


def test_tool_call_without_an_id_returns_plain_content() -> None:
    assert add.invoke(_call({"a": 1, "b": 2}, call_id=None)) == 3


@pytest.mark.parametrize(
    ("returned", "content"),
    [
        ("text", "text"),
        ({"v": 1}, '{"v": 1}'),
        ([1, 2], "[1, 2]"),
        ({"é": "ü"}, '{"é": "ü"}'),
        (None, "null"),
        ([{"type": "text", "text": "a"}, "b"], [{"type": "text", "text": "a"}, "b"]),
        ([{"type": "weird"}], '[{"type": "weird"}]'),
        ({1, 2}, "{1, 2}"),
    ],
)
def test_tool_call_content_is_normalised(returned: Any, content: Any) -> None:
    echo = StructuredTool.from_function(lambda: returned, name="echo", description="Echo.")
    result = echo.invoke({"name": "echo", "args": {}, "id": "c", "type": "tool_call"})
    assert result == ToolMessage(content, name="echo", tool_call_id="c")


def test_plain_invoke_returns_the_value_unchanged() -> None:
    value = {"v": [1, 2]}
    echo = StructuredTool.from_function(lambda: value, name="echo", description="Echo.")
    assert echo.invoke({}) is value


def test_a_tool_returning_a_tool_message_gets_it_back() -> None:
    message = ToolMessage("own", tool_call_id="other", name="x")
    own = StructuredTool.from_function(lambda: message, name="own", description="Own.")
    assert own.invoke({"name": "own", "args": {}, "id": "c", "type": "tool_call"}) is message


def test_content_and_artifact() -> None:
    @tool(response_format="content_and_artifact")
    def art(n: int) -> tuple[str, dict[str, int]]:
        """Returns content and artifact."""
        return f"saw {n}", {"raw": n}

    call = {"name": "art", "args": {"n": 1}, "id": "a1", "type": "tool_call"}
    assert art.invoke(call) == ToolMessage(
        "saw 1", name="art", tool_call_id="a1", artifact={"raw": 1}
    )
    assert art.invoke({"n": 1}) == "saw 1"


@pytest.mark.parametrize("returned", ["just text", ("a", "b", "c"), ["a", "b"]])
def test_content_and_artifact_requires_a_pair(returned: Any) -> None:
    bad = StructuredTool.from_function(
        lambda: returned,
        name="bad",
        description="Bad.",
        response_format="content_and_artifact",
    )
    with pytest.raises(ValueError) as info:
        bad.invoke({})
    assert str(info.value) == (
        "Since response_format='content_and_artifact' a two-tuple of the message content and "
        f"raw tool output is expected. Instead, generated response is of type: {type(returned)}."
    )


def test_async_only_tool_cannot_be_invoked_synchronously() -> None:
    @tool
    async def later(x: int) -> int:
        """Async only."""
        return x

    with pytest.raises(NotImplementedError) as info:
        later.invoke({"x": 1})
    assert str(info.value) == "StructuredTool does not support sync invocation."


def test_async_only_simple_tool_cannot_be_invoked_synchronously() -> None:
    async def reverse(s: str) -> str:
        return s[::-1]

    rev = Tool("rev", None, "Reverse.", coroutine=reverse)
    with pytest.raises(NotImplementedError) as info:
        rev.invoke("ab")
    assert str(info.value) == "Tool does not support sync invocation."


def test_explicit_args_schema_defaults_reach_the_function() -> None:
    class Args(BaseModel):
        q: str
        limit: int = 5

    def search(q: str, limit: int) -> str:
        return f"{q}:{limit}"

    s = StructuredTool.from_function(search, description="Search.", args_schema=Args)
    assert s.invoke({"q": "x"}) == "x:5"


def test_nested_models_arrive_as_model_instances() -> None:
    class Point(BaseModel):
        x: int
        y: int

    def norm(p: Point) -> int:
        assert isinstance(p, Point)
        return abs(p.x) + abs(p.y)

    class Args(BaseModel):
        p: Point

    t = StructuredTool.from_function(norm, description="Norm.", args_schema=Args)
    assert t.invoke({"p": {"x": -1, "y": "2"}}) == 3


def test_json_schema_args_are_passed_through_unvalidated() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    t = StructuredTool(name="raw", description="Raw.", args_schema=schema, func=lambda **kw: kw)
    assert t.invoke({"a": "not checked"}) == {"a": "not checked"}
    assert t.args == {"a": {"type": "integer"}}
    with pytest.raises(ValueError) as info:
        t.invoke("text")
    assert str(info.value) == (
        "String tool inputs are not allowed when using tools with JSON schema args_schema."
    )


def test_tool_without_arguments_ignores_its_input() -> None:
    @tool
    def now() -> str:
        """The time."""
        return "noon"

    assert now.invoke({}) == "noon"
    assert now.invoke("anything") == "noon"
    assert now.args == {}


def test_parameters_named_like_pydantic_attributes() -> None:
    @tool
    def odd(json: str, schema: int, _hidden: str = "h", model_x: int = 0) -> str:
        """Odd names."""
        return f"{json}|{schema}|{_hidden}|{model_x}"

    assert odd.invoke({"json": "j", "schema": "2", "_hidden": "x", "model_x": 3}) == "j|2|x|3"
    assert list(odd.args) == ["json", "schema", "_hidden", "model_x"]
    assert odd.invoke({"json": "j", "schema": 1}) == "j|1|h|0"


class _Search(BaseTool):
    name: str = "search"
    description: str = "Look things up."

    def _run(self, query: str, limit: int = 2) -> str:
        return f"{query}*{limit}"


def test_subclass_with_run_gets_a_schema_from_its_signature() -> None:
    search = _Search()
    assert search.invoke("cats") == "cats*2"
    assert search.invoke({"query": "dogs", "limit": "3"}) == "dogs*3"
    assert search.args == {
        "query": {"title": "Query", "type": "string"},
        "limit": {"default": 2, "title": "Limit", "type": "integer"},
    }
    assert repr(search) == "_Search(name='search', description='Look things up.')"


def test_subclass_settings_can_be_overridden_per_instance() -> None:
    search = _Search(name="lookup", return_direct=True)
    assert (search.name, search.description, search.return_direct) == (
        "lookup",
        "Look things up.",
        True,
    )
    assert _Search().return_direct is False


def test_subclass_without_run_cannot_be_invoked() -> None:
    class Nothing(BaseTool):
        name: str = "nothing"

    with pytest.raises(NotImplementedError) as info:
        Nothing().invoke("x")
    assert str(info.value) == "BaseTool does not support sync invocation."


def test_batch_runs_each_input() -> None:
    assert add.batch([{"a": 1, "b": 2}, {"a": 3, "b": 4}]) == [3, 7]


def test_tool_in_a_sequence() -> None:
    chain = (lambda n: {"a": n, "b": n}) | add
    assert chain.invoke(5) == 10


def test_is_single_input() -> None:
    assert shout.is_single_input is True
    assert add.is_single_input is False


def test_input_schema_is_the_argument_model() -> None:
    assert add.get_input_schema() is add.args_schema
    assert add.get_input_jsonschema()["properties"] == {
        "a": {"title": "A", "type": "integer"},
        "b": {"title": "B", "type": "integer"},
    }
    assert Tool("t", lambda s: s, "T.").get_input_jsonschema()["anyOf"][0] == {"type": "string"}
