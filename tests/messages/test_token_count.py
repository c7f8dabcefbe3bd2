"""`count_tokens_approximately` (LangChain's rule), and `trim_messages` counting with it."""

from __future__ import annotations

import math

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


def test_block_content_counts_as_its_repr_and_holds_the_tool_calls() -> None:
    blocks: list[str | dict[str, object]] = [{"type": "text", "text": "hi"}]
    ai = AIMessage(blocks, tool_calls=[tool_call(name="add", args={}, id="c1")])
    expected = math.ceil((len(repr(blocks)) + len("assistant")) / 4) + 3
    assert count_tokens_approximately([ai]) == expected


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
