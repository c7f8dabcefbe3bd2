"""filter_messages: every option, with the exact messages kept (LangChain's behaviour)."""

from __future__ import annotations

from typing import Any

import pytest

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    ToolMessage,
    filter_messages,
    tool_call,
    tool_call_chunk,
)

SYSTEM = SystemMessage("you're a good assistant.")
USER = HumanMessage("what's your name", id="foo", name="example_user")
STEVE = AIMessage("steve-o", id="bar", name="example_assistant")
COLOR = HumanMessage("what's your favorite color", id="baz")
BLUE = AIMessage("silicon blue", id="blah")
CHAT = [SYSTEM, USER, STEVE, COLOR, BLUE]


def test_langchain_docstring_example() -> None:
    kept = filter_messages(
        CHAT,
        include_names=("example_user", "example_assistant"),
        include_types=("system",),
        exclude_ids=("bar",),
    )
    assert kept == [SYSTEM, USER]
    assert kept[0] is SYSTEM  # the same objects, not copies


def test_no_filters_keeps_everything() -> None:
    assert filter_messages(CHAT) == CHAT
    assert filter_messages([]) == []


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"include_names": ["example_user"]}, [USER]),
        ({"include_names": "example_user"}, [USER]),
        ({"include_names": "example"}, []),  # one name, not a substring test
        ({"exclude_names": ["example_user", "example_assistant"]}, [SYSTEM, COLOR, BLUE]),
        ({"include_types": ["human"]}, [USER, COLOR]),
        ({"include_types": "ai"}, [STEVE, BLUE]),
        ({"include_types": [HumanMessage, SystemMessage]}, [SYSTEM, USER, COLOR]),
        ({"include_types": BaseMessage}, CHAT),
        ({"exclude_types": ["human", AIMessage]}, [SYSTEM]),
        ({"include_ids": ["foo", "blah"]}, [USER, BLUE]),
        ({"exclude_ids": ("foo", "bar", "baz")}, [SYSTEM, BLUE]),
        ({"include_types": [], "include_ids": []}, CHAT),  # empty filters are no filters
        # Includes are a union: a message matching any one of them is kept.
        ({"include_names": ["example_user"], "include_ids": ["blah"]}, [USER, BLUE]),
        # Excludes win over includes.
        ({"include_types": ["human"], "exclude_names": ["example_user"]}, [COLOR]),
        ({"include_types": ["human"], "exclude_types": [HumanMessage]}, []),
    ],
)
def test_options(options: dict[str, Any], expected: list[BaseMessage]) -> None:
    assert filter_messages(CHAT, **options) == expected


def test_a_type_name_matches_that_kinds_chunks_too() -> None:
    chunks = [HumanMessageChunk("a"), AIMessageChunk("b"), AIMessage("c")]
    assert filter_messages(chunks, include_types="human") == [chunks[0]]
    assert filter_messages(chunks, include_types="ai") == chunks[1:]
    assert filter_messages(chunks, include_types="AIMessageChunk") == [chunks[1]]
    assert filter_messages(chunks, include_types=AIMessageChunk) == [chunks[1]]
    assert filter_messages(chunks, exclude_types=[AIMessage]) == [chunks[0]]


def test_chat_messages_match_by_type_tag() -> None:
    messages = [ChatMessage("x", role="critic"), HumanMessage("y")]
    assert filter_messages(messages, include_types="chat") == messages[:1]


def test_reads_any_message_form() -> None:
    kept = filter_messages(
        [("system", "s"), "hi", {"role": "assistant", "content": "yo"}], include_types="ai"
    )
    assert kept == [AIMessage("yo")]


TWO_CALLS = AIMessage(
    "",
    id="2",
    tool_calls=[tool_call(name="foo", args={}, id="1"), tool_call(name="bar", args={}, id="2")],
)
CALLS_CHAT = [
    HumanMessage("foo", name="blur", id="1"),
    TWO_CALLS,
    ToolMessage("foo", tool_call_id="1"),
    ToolMessage("bar", tool_call_id="2"),
    AIMessage("bar", id="3"),
]


def test_exclude_tool_calls_true_drops_every_call_and_result() -> None:
    assert filter_messages(CALLS_CHAT, exclude_tool_calls=True) == [
        CALLS_CHAT[0],
        CALLS_CHAT[4],
    ]
    assert filter_messages(CALLS_CHAT, exclude_tool_calls=False) == CALLS_CHAT


def test_exclude_tool_calls_by_id() -> None:
    assert filter_messages(CALLS_CHAT, exclude_tool_calls=["1"]) == [
        CALLS_CHAT[0],
        AIMessage("", id="2", tool_calls=[tool_call(name="bar", args={}, id="2")]),
        ToolMessage("bar", tool_call_id="2"),
        CALLS_CHAT[4],
    ]
    assert filter_messages(CALLS_CHAT, exclude_tool_calls="2") == [
        CALLS_CHAT[0],
        AIMessage("", id="2", tool_calls=[tool_call(name="foo", args={}, id="1")]),
        ToolMessage("foo", tool_call_id="1"),
        CALLS_CHAT[4],
    ]
    # An AI message left with no tool call is dropped, as in LangChain (its text too).
    assert filter_messages(CALLS_CHAT, exclude_tool_calls=["1", "2"]) == [
        CALLS_CHAT[0],
        CALLS_CHAT[4],
    ]
    assert filter_messages(CALLS_CHAT, exclude_tool_calls=["9"]) == CALLS_CHAT
    assert filter_messages(CALLS_CHAT, exclude_tool_calls=["9"])[1] is TWO_CALLS


def test_exclude_tool_calls_removes_tool_use_blocks() -> None:
    anthropic = AIMessage(
        [
            {"type": "text", "text": "blah"},
            {"type": "tool_use", "id": "1", "name": "foo", "input": {}},
            {"type": "tool_use", "id": "2", "name": "bar", "input": {}},
        ],
        id="2",
        tool_calls=[tool_call(name="foo", args={}, id="1"), tool_call(name="bar", args={}, id="2")],
    )
    assert filter_messages([anthropic], exclude_tool_calls=["1"]) == [
        AIMessage(
            [
                {"type": "text", "text": "blah"},
                {"type": "tool_use", "id": "2", "name": "bar", "input": {}},
            ],
            id="2",
            tool_calls=[tool_call(name="bar", args={}, id="2")],
        )
    ]


def test_exclude_tool_calls_keeps_a_chunk_consistent() -> None:
    chunk = AIMessageChunk(
        "",
        tool_call_chunks=[
            tool_call_chunk(name="foo", args="{}", id="1", index=0),
            tool_call_chunk(name="bar", args='{"x": 1}', id="2", index=1),
        ],
    )
    (kept,) = filter_messages([chunk], exclude_tool_calls=["1"])
    assert isinstance(kept, AIMessageChunk)
    assert kept.tool_calls == [tool_call(name="bar", args={"x": 1}, id="2")]
    assert kept.tool_call_chunks == [tool_call_chunk(name="bar", args='{"x": 1}', id="2", index=1)]


def test_bad_type_entries_raise_when_called() -> None:
    with pytest.raises(
        ValueError,
        match=r"^include_types takes message type names \(such as 'human'\) or message classes,"
        r" got 3$",
    ):
        filter_messages(CHAT, include_types=[3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"^exclude_types takes .* got <class 'str'>$"):
        filter_messages(CHAT, exclude_types=[str])  # type: ignore[list-item]
