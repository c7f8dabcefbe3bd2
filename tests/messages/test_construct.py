"""``BaseMessage._construct``, the internal fast constructor, builds what validation builds.

Prompts, the tool-calling scratchpad, providers and chunk merging build messages with
``Cls._construct(fields)`` (every field, in field order, already valid) to skip pydantic
validation on hot paths. Kept to its contract, the result must be indistinguishable from
``Cls(**fields)``: this is checked for every message class.
"""

from __future__ import annotations

from typing import Any

import pytest

import leanchain.messages as messages_module
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    BaseMessageChunk,
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
    invalid_tool_call,
    message_chunk_to_message,
    tool_call,
    tool_call_chunk,
)

USAGE: Any = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
COMMON: dict[str, Any] = {
    "content": [{"type": "text", "text": "hi", "index": 0}, "there"],
    "additional_kwargs": {"k": [1, {"x": None}]},
    "response_metadata": {"model_name": "m", "finish_reason": "stop"},
}

# Every field beyond the common ones, by class, in field order and in validated form.
EXTRA: dict[type[BaseMessage], dict[str, Any]] = {
    HumanMessage: {},
    HumanMessageChunk: {},
    SystemMessage: {},
    SystemMessageChunk: {},
    ChatMessage: {"role": "critic"},
    ChatMessageChunk: {"role": "critic"},
    FunctionMessage: {},
    FunctionMessageChunk: {},
    ToolMessage: {"tool_call_id": "call_1", "artifact": {"rows": [1, 2]}, "status": "error"},
    ToolMessageChunk: {"tool_call_id": "call_1", "artifact": {"rows": [1, 2]}, "status": "error"},
    AIMessage: {
        "tool_calls": [tool_call(name="add", args={"a": 1}, id="c1")],
        "invalid_tool_calls": [invalid_tool_call(name="f", args="[", id="c2", error="bad")],
        "usage_metadata": USAGE,
    },
    AIMessageChunk: {
        "tool_calls": [tool_call(name="add", args={"a": 1}, id="c1")],
        "invalid_tool_calls": [
            invalid_tool_call(
                name="f",
                args="[",
                id="c2",
                error="the arguments were cut off before their JSON was complete: "
                "Expecting value: line 1 column 2 (char 1)",
            )
        ],
        "usage_metadata": USAGE,
        "tool_call_chunks": [
            tool_call_chunk(name="add", args='{"a": 1}', id="c1", index=0),
            tool_call_chunk(name="f", args="[", id="c2", index=1),
        ],
        "chunk_position": "last",
    },
}


def valid_fields(cls: type[BaseMessage]) -> dict[str, Any]:
    """Every field of ``cls``, in field order, holding a valid, non-default value."""
    given = {
        **COMMON,
        "type": cls.model_fields["type"].default,
        "name": "fn" if issubclass(cls, FunctionMessage) else "bot",
        "id": "msg_1",
        **EXTRA[cls],
    }
    return {key: given[key] for key in cls.model_fields}


def test_every_message_class_is_covered() -> None:
    classes = {
        value
        for value in vars(messages_module).values()
        if isinstance(value, type)
        and issubclass(value, BaseMessage)
        and value not in (BaseMessage, BaseMessageChunk)
    }
    assert classes == set(EXTRA)


@pytest.mark.parametrize("cls", list(EXTRA), ids=lambda cls: cls.__name__)
def test_construct_equals_validated_construction(cls: type[BaseMessage]) -> None:
    validated = cls(**valid_fields(cls))
    fields = valid_fields(cls)
    built = cls._construct(fields)
    assert type(built) is cls
    assert built == validated
    assert built.model_dump() == validated.model_dump()
    assert list(built.model_dump()) == list(validated.model_dump()) == list(cls.model_fields)
    assert repr(built) == repr(validated)
    assert built.model_fields_set == validated.model_fields_set == set(cls.model_fields)
    assert built.__dict__ is fields  # handed over, not copied


@pytest.mark.parametrize("cls", list(EXTRA), ids=lambda cls: cls.__name__)
def test_constructed_messages_behave_as_validated_ones(cls: type[BaseMessage]) -> None:
    built = cls._construct(valid_fields(cls))
    validated = cls(**valid_fields(cls))
    assert built.text == validated.text == "hithere"
    assert built.pretty_repr() == validated.pretty_repr()
    assert built.model_copy(update={"id": "msg_2"}) == validated.model_copy(update={"id": "msg_2"})
    if isinstance(built, BaseMessageChunk):
        assert isinstance(validated, BaseMessageChunk)
        assert built + built == validated + validated
        assert message_chunk_to_message(built) == message_chunk_to_message(validated)


def test_construct_fills_private_attributes() -> None:
    chunk = AIMessageChunk._construct(valid_fields(AIMessageChunk))
    assert chunk.__pydantic_private__ == {"_arg_scans": None}
    assert chunk == AIMessageChunk._construct(valid_fields(AIMessageChunk), {"_arg_scans": None})


@pytest.mark.parametrize("text", ["", "q", "multi\nline ünïcode"])
def test_a_human_message_of_text_equals_a_validated_one(text: str) -> None:
    built = HumanMessage._of_text(text)
    validated = HumanMessage(content=text)
    assert type(built) is HumanMessage
    assert built.model_dump() == validated.model_dump()
    assert built.model_fields_set == set(HumanMessage.model_fields)
    assert built.__pydantic_extra__ is None
    assert built.__pydantic_private__ is None
    # Its own set, and its own dicts, for every message.
    other = HumanMessage._of_text(text)
    assert built.model_fields_set is not other.model_fields_set
    assert built.additional_kwargs is not other.additional_kwargs


@pytest.mark.parametrize(("text", "message_id"), [("", None), ("q", "run-1"), ("ünï\n", "x")])
def test_an_ai_chunk_of_text_equals_a_validated_one(text: str, message_id: str | None) -> None:
    built = AIMessageChunk._of_text(text, message_id)
    validated = AIMessageChunk(content=text, id=message_id)
    assert type(built) is AIMessageChunk
    assert built.model_dump() == validated.model_dump()
    assert built.model_fields_set == set(AIMessageChunk.model_fields)
    assert built.__pydantic_private__ == validated.__pydantic_private__ == {"_arg_scans": None}
    assert built + built == validated + validated
    other = AIMessageChunk._of_text(text, message_id)
    assert built.tool_call_chunks is not other.tool_call_chunks
    assert built.additional_kwargs is not other.additional_kwargs
