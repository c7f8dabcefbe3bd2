"""Message construction, fields, validation, rendering and value semantics."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import ValidationError

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    ChatMessageChunk,
    FunctionMessage,
    FunctionMessageChunk,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    SystemMessageChunk,
    ToolMessage,
    ToolMessageChunk,
    add_usage,
    get_msg_title_repr,
    invalid_tool_call,
    subtract_usage,
    tool_call,
    tool_call_chunk,
)


@pytest.mark.parametrize(
    ("message", "tag"),
    [
        (HumanMessage("x"), "human"),
        (AIMessage("x"), "ai"),
        (SystemMessage("x"), "system"),
        (ToolMessage("x", tool_call_id="1"), "tool"),
        (FunctionMessage("x", name="f"), "function"),
        (ChatMessage("x", role="critic"), "chat"),
        (AIMessageChunk("x"), "AIMessageChunk"),
        (HumanMessageChunk("x"), "HumanMessageChunk"),
        (SystemMessageChunk("x"), "SystemMessageChunk"),
        (ToolMessageChunk("x", tool_call_id="1"), "ToolMessageChunk"),
        (FunctionMessageChunk("x", name="f"), "FunctionMessageChunk"),
        (ChatMessageChunk("x", role="critic"), "ChatMessageChunk"),
    ],
)
def test_type_tags(message: BaseMessage, tag: str) -> None:
    assert message.type == tag


def test_content_positional_or_keyword() -> None:
    assert SystemMessage("sys") == SystemMessage(content="sys")
    assert HumanMessage([{"type": "text", "text": "a"}, "b"]).content == [
        {"type": "text", "text": "a"},
        "b",
    ]
    with pytest.raises(TypeError, match="got multiple values for argument 'content'"):
        HumanMessage("a", content="b")
    with pytest.raises(ValidationError):
        HumanMessage()
    with pytest.raises(ValidationError):
        HumanMessage(42)  # type: ignore[arg-type]


def test_unknown_fields_and_wrong_tags_are_rejected() -> None:
    with pytest.raises(ValidationError, match="tool_call\n  Extra inputs are not permitted"):
        AIMessage("x", tool_call=[])
    with pytest.raises(ValidationError, match="Input should be 'human'"):
        HumanMessage("x", type="ai")


def test_ai_message_dump_matches_langchain() -> None:
    message = AIMessage(content="hi", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}])
    dump = message.model_dump()
    assert dump == {
        "content": "hi",
        "additional_kwargs": {},
        "response_metadata": {},
        "type": "ai",
        "name": None,
        "id": None,
        "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}],
        "invalid_tool_calls": [],
        "usage_metadata": None,
    }
    assert list(dump) == [
        "content",
        "additional_kwargs",
        "response_metadata",
        "type",
        "name",
        "id",
        "tool_calls",
        "invalid_tool_calls",
        "usage_metadata",
    ]
    assert list(dump["tool_calls"][0]) == ["name", "args", "id", "type"]


def test_chunk_and_tool_message_field_order() -> None:
    assert list(AIMessageChunk("x").model_dump())[-2:] == ["tool_call_chunks", "chunk_position"]
    assert list(ToolMessage("x", tool_call_id="1").model_dump())[-3:] == [
        "tool_call_id",
        "artifact",
        "status",
    ]


def test_tool_calls_and_invalid_tool_calls_get_their_type() -> None:
    message = AIMessage(
        "",
        tool_calls=[{"name": "f", "args": {}, "id": None, "type": "something"}],
        invalid_tool_calls=[{"name": "g", "args": "{bad"}],
    )
    assert message.tool_calls == [{"name": "f", "args": {}, "id": None, "type": "tool_call"}]
    assert message.invalid_tool_calls == [
        {"name": "g", "args": "{bad", "id": None, "error": None, "type": "invalid_tool_call"}
    ]
    with pytest.raises(ValidationError, match="args\n  Input should be a valid dictionary"):
        AIMessage("", tool_calls=[{"name": "f", "args": "[1]", "id": None}])


def test_raw_openai_tool_calls_in_additional_kwargs_are_parsed() -> None:
    raw = [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
        {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{bad"}},
        {"id": "c3", "type": "function", "function": {"name": "h", "arguments": ""}},
    ]
    message = AIMessage("", additional_kwargs={"tool_calls": raw})
    assert message.tool_calls == [
        tool_call(name="f", args={"a": 1}, id="c1"),
        tool_call(name="h", args={}, id="c3"),
    ]
    assert message.invalid_tool_calls == [invalid_tool_call(name="g", args="{bad", id="c2")]
    chunk = AIMessageChunk(
        "",
        additional_kwargs={
            "tool_calls": [{"index": 0, "id": "c1", "function": raw[0]["function"]}]
        },
    )
    assert chunk.tool_call_chunks == [tool_call_chunk(name="f", args='{"a": 1}', id="c1", index=0)]
    assert chunk.tool_calls == [tool_call(name="f", args={"a": 1}, id="c1")]


def test_factories_always_add_type() -> None:
    assert tool_call(name="f", args={"x": 1}, id="1") == {
        "name": "f",
        "args": {"x": 1},
        "id": "1",
        "type": "tool_call",
    }
    assert tool_call_chunk() == {
        "name": None,
        "args": None,
        "id": None,
        "index": None,
        "type": "tool_call_chunk",
    }
    assert invalid_tool_call(name="f", args="{", id="1", error="bad") == {
        "name": "f",
        "args": "{",
        "id": "1",
        "error": "bad",
        "type": "invalid_tool_call",
    }


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (123, "123"),
        ([1, 2], ["1", "2"]),
        ({"a": 1}, "{'a': 1}"),
        ((1, "x", {"type": "text", "text": "t"}), ["1", "x", {"type": "text", "text": "t"}]),
        ("plain", "plain"),
    ],
)
def test_tool_message_content_coercion(content: Any, expected: Any) -> None:
    assert ToolMessage(content, tool_call_id="1").content == expected


def test_tool_message_fields() -> None:
    call_id = uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert ToolMessage("x", tool_call_id=call_id).tool_call_id == str(call_id)
    assert ToolMessage("x", tool_call_id=7).tool_call_id == "7"
    message = ToolMessage("x", tool_call_id="1", artifact={"rows": [1]}, status="error")
    assert (message.artifact, message.status) == ({"rows": [1]}, "error")
    assert ToolMessage("x", tool_call_id="1").status == "success"
    with pytest.raises(ValidationError, match="tool_call_id\n  Field required"):
        ToolMessage("x")
    with pytest.raises(ValidationError):
        ToolMessage("x", tool_call_id="1", status="failed")


def test_required_fields_of_chat_and_function_messages() -> None:
    with pytest.raises(ValidationError, match="role\n  Field required"):
        ChatMessage("x")
    with pytest.raises(ValidationError, match="name\n  Field required"):
        FunctionMessage("x")


def test_id_numbers_become_strings() -> None:
    assert HumanMessage("x", id=5).id == "5"


def test_messages_are_frozen_values() -> None:
    message = HumanMessage("hi", id="1")
    with pytest.raises(ValidationError, match="Instance is frozen"):
        message.content = "changed"  # type: ignore[misc]
    assert message.model_copy(update={"content": "changed"}) == HumanMessage("changed", id="1")
    assert message == HumanMessage("hi", id="1")
    assert message != HumanMessage("hi", id="2")
    assert message != HumanMessageChunk("hi", id="1")
    assert message != "hi"
    with pytest.raises(TypeError, match="unhashable"):
        hash(message)


def test_text_property() -> None:
    assert HumanMessage("plain").text == "plain"
    blocks: list[str | dict[str, Any]] = [
        {"type": "text", "text": "a"},
        {"type": "image_url", "image_url": {"url": "x"}},
        "b",
        {"type": "text", "text": "c"},
        {"type": "text"},
    ]
    assert HumanMessage(blocks).text == "abc"
    assert AIMessage([]).text == ""


def test_repr_shows_what_is_set() -> None:
    assert repr(HumanMessage("hi")) == "HumanMessage(content='hi')"
    assert repr(ToolMessage("r", tool_call_id="1")) == "ToolMessage(content='r', tool_call_id='1')"
    assert (
        repr(ToolMessage("r", tool_call_id="1", status="error"))
        == "ToolMessage(content='r', tool_call_id='1', status='error')"
    )
    assert repr(AIMessage("", id="a", tool_calls=[tool_call(name="f", args={}, id="c")])) == (
        "AIMessage(content='', id='a', tool_calls=[{'name': 'f', 'args': {}, 'id': 'c',"
        " 'type': 'tool_call'}])"
    )


def test_pretty_repr() -> None:
    assert AIMessage("x").pretty_repr() == (
        "================================== Ai Message ==================================\n\nx"
    )
    assert HumanMessage("hi", name="bob").pretty_repr() == (
        "================================ Human Message =================================\n"
        "Name: bob\n\nhi"
    )
    message = AIMessage(
        "",
        tool_calls=[tool_call(name="f", args={"a": 1, "b": "x"}, id="c1")],
        invalid_tool_calls=[invalid_tool_call(name="g", args="{bad", id="c2", error="oops")],
    )
    assert message.pretty_repr() == (
        "================================== Ai Message ==================================\n"
        "Tool Calls:\n"
        "  f (c1)\n"
        " Call ID: c1\n"
        "  Args:\n"
        "    a: 1\n"
        "    b: x\n"
        "Invalid Tool Calls:\n"
        "  g (c2)\n"
        " Call ID: c2\n"
        "  Error: oops\n"
        "  Args:\n"
        "    {bad"
    )
    assert get_msg_title_repr("Ai Message", bold=True) == (
        "==================================\033[1m Ai Message \033[0m"
        "=================================="
    )


def test_pretty_print(capsys: pytest.CaptureFixture[str]) -> None:
    ToolMessage("out", tool_call_id="1").pretty_print()
    assert capsys.readouterr().out == (
        "=================================\033[1m Tool Message \033[0m"
        "=================================\n\nout\n"
    )


def test_usage_metadata_keeps_provider_keys() -> None:
    usage: Any = {
        "input_tokens": 1,
        "output_tokens": 2,
        "total_tokens": 3,
        "input_token_details": {"cache_read": 1, "vendor": 9},
        "vendor_total": 4,
    }
    assert AIMessage("x", usage_metadata=usage).usage_metadata == usage


def test_add_usage() -> None:
    left: Any = {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}
    right: Any = {
        "input_tokens": 0,
        "output_tokens": 2,
        "total_tokens": 2,
        "output_token_details": {"reasoning": 1},
    }
    total = add_usage(left, right)
    assert total == {
        "input_tokens": 5,
        "output_tokens": 3,
        "total_tokens": 8,
        "output_token_details": {"reasoning": 1},
    }
    assert list(total) == ["input_tokens", "output_tokens", "total_tokens", "output_token_details"]
    assert add_usage(None, None) == {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    assert add_usage(left, None) is left
    assert add_usage(None, right) is right
    bad: Any = {"input_tokens": "5", "output_tokens": 0, "total_tokens": 0}
    with pytest.raises(ValueError, match=r"Unknown value types: \[<class 'str'>, <class 'int'>\]"):
        add_usage(bad, left)


def test_subtract_usage_clamps_at_zero() -> None:
    left: Any = {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}
    right: Any = {"input_tokens": 2, "output_tokens": 3, "total_tokens": 5}
    assert subtract_usage(left, right) == {
        "input_tokens": 3,
        "output_tokens": 0,
        "total_tokens": 1,
    }
    assert subtract_usage(None, right) == {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    assert subtract_usage(left, None) is left
