"""`count_tokens_approximately` (LangChain's rule), and `trim_messages` counting with it."""

from __future__ import annotations

import base64
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanchain.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    count_tokens_approximately,
    tool_call,
    trim_messages,
)
from leanchain.tools import tool


def test_a_message_counts_its_text_and_its_role_then_three() -> None:
    # "Hello there" (11) + "user" (4) = 15 characters: 4 tokens, plus 3 per message.
    assert count_tokens_approximately([HumanMessage("Hello there")]) == 7
    assert count_tokens_approximately(["Hello there"]) == 7
    assert count_tokens_approximately([("system", "Be brief.")]) == math.ceil(15 / 4) + 3


def test_each_message_is_rounded_up_on_its_own() -> None:
    one = [HumanMessage("a")]  # 5 characters: 2 tokens
    assert count_tokens_approximately(one) == 5
    assert count_tokens_approximately(one * 3) == 15


def test_tool_calls_names_and_tool_call_ids_count() -> None:
    calls = [tool_call(name="add", args={"a": 1}, id="c1")]
    ai = AIMessage("ok", tool_calls=calls)
    assert (
        count_tokens_approximately([ai])
        == math.ceil((2 + len(repr(ai.tool_calls)) + len("assistant")) / 4) + 3
    )
    tool = ToolMessage("3", tool_call_id="call_123")
    assert count_tokens_approximately([tool]) == math.ceil((1 + 8 + 4) / 4) + 3
    named = HumanMessage("hi", name="ada")
    assert count_tokens_approximately([named]) == math.ceil((2 + 4 + 3) / 4) + 3
    assert count_tokens_approximately([named], count_name=False) == math.ceil(6 / 4) + 3


def test_block_content_counts_its_text_and_holds_the_tool_calls() -> None:
    blocks: list[str | dict[str, object]] = [{"type": "text", "text": "hi"}, "there"]
    ai = AIMessage(blocks, tool_calls=[tool_call(name="add", args={}, id="c1")])
    # "hi" + "there" + "assistant" = 16 characters: 4 tokens, plus 3.
    assert count_tokens_approximately([ai]) == 7


def test_other_blocks_count_as_their_repr() -> None:
    audio = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
    expected = math.ceil((len(repr(audio)) + len("user")) / 4) + 3
    assert count_tokens_approximately([HumanMessage([audio])]) == expected


IMAGE_DATA = base64.b64encode(bytes(75_000)).decode()  # a 100,000-character image
IMAGES: list[dict[str, Any]] = [
    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{IMAGE_DATA}"}},
    {"type": "image", "base64": IMAGE_DATA, "mime_type": "image/png"},
    {"type": "image", "source_type": "base64", "data": IMAGE_DATA, "mime_type": "image/png"},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": IMAGE_DATA}},
    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
]


@pytest.mark.parametrize("image", IMAGES)
def test_an_image_counts_85_tokens_whatever_its_size(image: dict[str, Any]) -> None:
    # LangChain's count: the image's fixed cost, not its base64 characters (25,000 tokens).
    message = HumanMessage([{"type": "text", "text": "What is it?"}, image])
    assert count_tokens_approximately([message]) == 85 + math.ceil((11 + 4) / 4) + 3 == 92
    assert count_tokens_approximately([message], tokens_per_image=10) == 17
    assert count_tokens_approximately([HumanMessage([image, image])]) == 85 * 2 + 1 + 3


def test_trim_messages_keeps_the_history_around_an_image() -> None:
    history = [
        HumanMessage("first question"),  # 8
        AIMessage("first answer"),  # 9
        HumanMessage([{"type": "text", "text": "And this?"}, IMAGES[0]]),  # 85 + 4 + 3 = 92
        AIMessage("A cat."),  # 4 + 3 = 7
    ]
    # LangChain before 1.x counted the image's 100,000 characters and kept only the last reply.
    assert trim_messages(history, max_tokens=110, token_counter="approximate") == history[1:]
    assert trim_messages(history, max_tokens=116, token_counter="approximate") == history


def test_usage_metadata_scaling() -> None:
    reply = AIMessage(
        "answer",
        response_metadata={"model_provider": "openai"},
        usage_metadata={"input_tokens": 100, "output_tokens": 100, "total_tokens": 200},
    )
    history = [HumanMessage("hello"), reply, HumanMessage("more")]
    # 6 + 7 + 5 = 18 estimated; the reply reported 200 for the first 13: scaled by 1.25 at most.
    assert count_tokens_approximately(history) == 18
    assert count_tokens_approximately(history, use_usage_metadata_scaling=True) == 23
    small = reply.model_copy(
        update={"usage_metadata": {"input_tokens": 5, "output_tokens": 5, "total_tokens": 10}}
    )
    # 10 reported against 13 estimated: never scaled down.
    assert (
        count_tokens_approximately([history[0], small, history[2]], use_usage_metadata_scaling=True)
        == 18
    )
    other = reply.model_copy(update={"response_metadata": {"model_provider": "anthropic"}})
    mixed = [history[0], reply, other, history[2]]
    assert count_tokens_approximately(
        mixed, use_usage_metadata_scaling=True
    ) == count_tokens_approximately(mixed)
    assert count_tokens_approximately([reply], use_usage_metadata_scaling=True) == 7


def test_tools_count_as_their_json() -> None:
    @tool
    def search(query: str, limit: int = 3) -> str:
        """Search the web."""
        return query

    definition = {"type": "function", "function": {"name": "a"}}
    question = [HumanMessage("x")]
    assert count_tokens_approximately(question, tools=[definition]) == (
        math.ceil(len(json.dumps(definition)) / 4) + 5
    )
    parameters = {
        "properties": {
            "query": {"title": "Query", "type": "string"},
            "limit": {"default": 3, "title": "Limit", "type": "integer"},
        },
        "required": ["query"],
        "type": "object",
    }
    as_json = json.dumps(
        {"name": "search", "description": "Search the web.", "parameters": parameters}
    )
    assert (
        count_tokens_approximately(question, tools=[search])
        == math.ceil(len(as_json) / 4) + 5
        == 64
    )


def test_roles_follow_openai() -> None:
    developer = SystemMessage("x", additional_kwargs={"__openai_role__": "developer"})
    assert count_tokens_approximately([developer]) == math.ceil(10 / 4) + 3
    assert count_tokens_approximately([ChatMessage("x", role="critic")]) == math.ceil(7 / 4) + 3


def test_the_rates_are_parameters() -> None:
    messages = [HumanMessage("abcdefgh")]  # 12 characters
    assert count_tokens_approximately(messages, chars_per_token=2) == 9
    assert count_tokens_approximately(messages, extra_tokens_per_message=0.5) == 4
    assert count_tokens_approximately(messages * 2, extra_tokens_per_message=0.5) == 7
    assert count_tokens_approximately([]) == 0


_texts = st.text(max_size=40)
_messages = st.lists(
    st.one_of(
        _texts.map(HumanMessage),
        _texts.map(AIMessage),
        _texts.map(SystemMessage),
        st.tuples(_texts, st.text(min_size=1, max_size=8)).map(
            lambda pair: ToolMessage(pair[0], tool_call_id=pair[1])
        ),
    ),
    max_size=8,
)


@given(_messages, _messages)
def test_counts_add_up_over_parts(first: list[BaseMessage], second: list[BaseMessage]) -> None:
    assert count_tokens_approximately(first + second) == count_tokens_approximately(
        first
    ) + count_tokens_approximately(second)
    assert count_tokens_approximately(first) >= 4 * len(first)


def test_trim_messages_counts_approximately_by_name() -> None:
    history = [
        SystemMessage("You are terse."),  # 14 + 6: 5 + 3 = 8
        HumanMessage("first question"),  # 14 + 4: 5 + 3 = 8
        AIMessage("first answer"),  # 12 + 9: 6 + 3 = 9
        HumanMessage("second question"),  # 15 + 4: 5 + 3 = 8
    ]
    kept = trim_messages(history, max_tokens=25, token_counter="approximate", include_system=True)
    assert kept == [history[0], history[2], history[3]]
    trimmer = trim_messages(max_tokens=16, token_counter="approximate")
    assert trimmer.invoke(history) == [history[3]]


def test_another_name_is_refused() -> None:
    with pytest.raises(ValueError, match=r"Received object of type <class 'str'>\.$"):
        trim_messages([HumanMessage("x")], max_tokens=5, token_counter="exact")  # type: ignore[call-overload]
