"""`list_token_counter`: every form of `TokenCounter` as a function of a list of messages."""

from __future__ import annotations

import pytest

from leanchain.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    count_tokens_approximately,
    list_token_counter,
)

HISTORY: list[BaseMessage] = [HumanMessage("one two three"), AIMessage("four")]


def words(message: BaseMessage) -> int:
    return len(message.text.split())


class Model:
    def get_num_tokens_from_messages(self, messages: list[BaseMessage]) -> int:
        return 100 * len(messages)


def test_a_function_of_a_list_is_used_as_it_is() -> None:
    assert list_token_counter(len) is len


def test_approximate_is_count_tokens_approximately() -> None:
    assert list_token_counter("approximate") is count_tokens_approximately


def test_a_per_message_counter_is_summed_over_the_list() -> None:
    count = list_token_counter(words)
    assert count(HISTORY) == 4
    assert count(HISTORY) == 4
    assert count([]) == 0


def test_a_model_counts_with_its_method() -> None:
    assert list_token_counter(Model())(HISTORY) == 200


def test_anything_else_is_refused() -> None:
    with pytest.raises(ValueError) as caught:
        list_token_counter(3)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "'token_counter' expected to be a model that implements "
        "'get_num_tokens_from_messages()' or a function. Received object of type "
        "<class 'int'>."
    )
