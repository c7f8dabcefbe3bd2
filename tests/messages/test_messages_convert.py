"""Coercion into messages, chunk → message, buffer strings and plain-data round trips."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

import leanchain.messages as messages_module
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    ChatMessageChunk,
    FunctionMessage,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    ToolMessage,
    ToolMessageChunk,
    convert_to_messages,
    get_buffer_string,
    invalid_tool_call,
    message_chunk_to_message,
    message_to_dict,
    messages_from_dict,
    messages_to_dict,
    tool_call,
    tool_call_chunk,
)


def test_convert_to_messages_shapes() -> None:
    ai = AIMessage("kept")
    assert convert_to_messages(
        [
            ai,
            "plain",
            ("human", "h"),
            ("user", "u"),
            ("ai", "a"),
            ("assistant", "b"),
            ("system", "s"),
            ["developer", "d"],
            {"role": "tool", "content": "t", "tool_call_id": "c1"},
            {"role": "function", "content": "f", "name": "fn"},
            {"type": "human", "content": None},
        ]
    ) == [
        ai,
        HumanMessage("plain"),
        HumanMessage("h"),
        HumanMessage("u"),
        AIMessage("a"),
        AIMessage("b"),
        SystemMessage("s"),
        SystemMessage("d", additional_kwargs={"__openai_role__": "developer"}),
        ToolMessage("t", tool_call_id="c1"),
        FunctionMessage("f", name="fn"),
        HumanMessage(""),
    ]


def test_convert_openai_shaped_dicts() -> None:
    converted = convert_to_messages(
        [
            {
                "role": "assistant",
                "content": None,
                "id": "m1",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": 1}'},
                    },
                    {"name": "g", "args": {"b": 2}, "id": "c2"},
                ],
            },
            {
                "role": "tool",
                "content": "done",
                "tool_call_id": "c1",
                "status": "error",
                "artifact": [1],
                "extra": "x",
            },
            {
                "role": "user",
                "content": "hi",
                "name": "bob",
                "additional_kwargs": {"k": 1},
                "response_metadata": {"m": 2},
            },
        ]
    )
    assert converted == [
        AIMessage(
            "",
            id="m1",
            tool_calls=[
                tool_call(name="f", args={"a": 1}, id="c1"),
                tool_call(name="g", args={"b": 2}, id="c2"),
            ],
        ),
        ToolMessage(
            "done",
            tool_call_id="c1",
            status="error",
            artifact=[1],
            additional_kwargs={"extra": "x"},
        ),
        HumanMessage("hi", name="bob", additional_kwargs={"k": 1}, response_metadata={"m": 2}),
    ]


def test_convert_a_prompt_value() -> None:
    class PromptValueLike:
        def to_messages(self) -> list[BaseMessage]:
            return [HumanMessage("from prompt")]

    assert convert_to_messages(PromptValueLike()) == [HumanMessage("from prompt")]


def test_convert_errors() -> None:
    with pytest.raises(ValueError) as info:
        convert_to_messages([("badrole", "x")])
    assert str(info.value) == (
        "Unexpected message type: 'badrole'. Use one of 'human', 'user', 'ai', 'assistant',"
        " 'function', 'tool', 'system', or 'developer'."
    )
    with pytest.raises(
        ValueError,
        match=r"^Message dict must contain 'role' and 'content' keys, got \{'content': 'x'\}$",
    ):
        convert_to_messages([{"content": "x"}])
    with pytest.raises(
        ValueError,
        match=r"^Message as a sequence must be \(role string, template\), got \('a', 'b', 'c'\)$",
    ):
        convert_to_messages([("a", "b", "c")])
    with pytest.raises(TypeError, match=r"^Unsupported message type: <class 'int'>$"):
        convert_to_messages([42])
    with pytest.raises(ValidationError, match="tool_call_id"):
        convert_to_messages([("tool", "no id")])


def test_get_buffer_string() -> None:
    conversation = [
        HumanMessage("hi"),
        AIMessage("yo"),
        SystemMessage("s"),
        ToolMessage("t", tool_call_id="1"),
        FunctionMessage("f", name="fn"),
        ChatMessage("c", role="critic"),
        AIMessageChunk([{"type": "text", "text": "chunk"}]),
        AIMessage("", additional_kwargs={"function_call": {"name": "f"}}),
    ]
    assert get_buffer_string(conversation[:4]) == "Human: hi\nAI: yo\nSystem: s\nTool: t"
    assert get_buffer_string(conversation, human_prefix="User", ai_prefix="Bot") == (
        "User: hi\nBot: yo\nSystem: s\nTool: t\nFunction: f\ncritic: c\nBot: chunk\n"
        "Bot: {'name': 'f'}"
    )


def test_message_chunk_to_message() -> None:
    usage: Any = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    chunk = AIMessageChunk(
        "x",
        id="m",
        name="bot",
        usage_metadata=usage,
        chunk_position="last",
        tool_call_chunks=[
            tool_call_chunk(name="f", args='{"a": 1}', id="c", index=0),
            tool_call_chunk(name="g", args="[", id="d", index=1),
        ],
    )
    assert message_chunk_to_message(chunk) == AIMessage(
        "x",
        id="m",
        name="bot",
        usage_metadata=usage,
        tool_calls=[tool_call(name="f", args={"a": 1}, id="c")],
        invalid_tool_calls=[
            invalid_tool_call(
                name="g",
                args="[",
                id="d",
                error="the arguments were cut off before their JSON was complete: "
                "Expecting value: line 1 column 2 (char 1)",
            )
        ],
    )
    assert message_chunk_to_message(HumanMessageChunk("h")) == HumanMessage("h")
    assert message_chunk_to_message(ToolMessageChunk("t", tool_call_id="1", status="error")) == (
        ToolMessage("t", tool_call_id="1", status="error")
    )
    assert message_chunk_to_message(ChatMessageChunk("c", role="r")) == ChatMessage("c", role="r")
    plain = HumanMessage("p")
    assert message_chunk_to_message(plain) is plain


ALL_KINDS: list[BaseMessage] = [
    HumanMessage("h", id="1", name="n", additional_kwargs={"k": [1, {"x": None}]}),
    AIMessage(
        [{"type": "text", "text": "a"}, "b"],
        tool_calls=[tool_call(name="f", args={"a": [1, 2]}, id="c")],
        invalid_tool_calls=[invalid_tool_call(name="g", args="{", id="d", error="bad")],
        usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        response_metadata={"model": "m"},
    ),
    SystemMessage("s"),
    ToolMessage("t", tool_call_id="c", artifact={"rows": [1]}, status="error"),
    FunctionMessage("f", name="fn"),
    ChatMessage("c", role="critic"),
    AIMessageChunk(
        "x", tool_call_chunks=[tool_call_chunk(name="f", args='{"a": "b', id="c", index=0)]
    ),
    HumanMessageChunk("hc"),
    ToolMessageChunk("tc", tool_call_id="1"),
    ChatMessageChunk("cc", role="r"),
]


def test_message_to_dict() -> None:
    assert message_to_dict(HumanMessage("hi")) == {
        "type": "human",
        "data": {
            "content": "hi",
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "human",
            "name": None,
            "id": None,
        },
    }


def test_round_trip_through_dicts_and_json() -> None:
    data = messages_to_dict(ALL_KINDS)
    assert [d["type"] for d in data] == [m.type for m in ALL_KINDS]
    assert messages_from_dict(data) == ALL_KINDS
    assert messages_from_dict(json.loads(json.dumps(data))) == ALL_KINDS
    for message in ALL_KINDS:
        assert type(message).model_validate_json(message.model_dump_json()) == message


def test_messages_from_dict_builds_only_message_classes() -> None:
    with pytest.raises(ValueError, match=r"^Got unexpected message type: os\.system$"):
        messages_from_dict([{"type": "os.system", "data": {"content": "x"}}])
    with pytest.raises(ValueError, match=r"^Got unexpected message type: None$"):
        messages_from_dict([{"data": {"content": "x"}}])
    with pytest.raises(ValueError, match=r"^Expected a dict with 'type' and 'data' keys, got"):
        messages_from_dict([{"type": "human"}])
    lc_style: Any = {"type": "human", "data": {"content": "x", "type": "ai"}}
    with pytest.raises(ValidationError, match="Input should be 'human'"):
        messages_from_dict([lc_style])
    serialized: Any = {"lc": 1, "type": "constructor", "id": ["os", "system"], "kwargs": {}}
    with pytest.raises(ValueError, match=r"^Got unexpected message type: constructor$"):
        messages_from_dict([{**serialized, "data": {}}])


def test_exports_match_the_public_names() -> None:
    public = {
        name
        for name in dir(messages_module)
        if not name.startswith("_") and not isinstance(getattr(messages_module, name), type(json))
    }
    public -= {"annotations"}
    assert set(messages_module.__all__) == public
    assert sorted(messages_module.__all__) == messages_module.__all__
