"""trim_messages: each strategy and option with the exact messages kept, and the exact errors.

The fixtures are LangChain's own test fixtures (``dummy_token_counter``: 10 tokens for a text
message, 3 + 4 per block + 3 for a list), so the expectations are the ones LangChain's tests
assert.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from leanchain.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    tool_call,
    trim_messages,
)

if TYPE_CHECKING:
    import leanchain.messages as lc


def dummy_token_counter(messages: list[BaseMessage]) -> int:
    count = 0
    for message in messages:
        if isinstance(message.content, str):
            count += 3 + 4 + 3
        else:
            count += 3 + 4 * len(message.content) + 3
    return count


def tokens_of(message: BaseMessage) -> int:
    return dummy_token_counter([message])


SYSTEM = SystemMessage("This is a 4 token text.")
FIRST = HumanMessage("This is a 4 token text.", id="first")
SECOND = AIMessage(
    [
        {"type": "text", "text": "This is the FIRST 4 token block."},
        {"type": "text", "text": "This is the SECOND 4 token block."},
    ],
    id="second",
)
THIRD = HumanMessage("This is a 4 token text.", id="third")
FOURTH = AIMessage("This is a 4 token text.", id="fourth")
MESSAGES = [SYSTEM, FIRST, SECOND, THIRD, FOURTH]  # 10, 10, 14, 10, 10 tokens
SECOND_FIRST_BLOCK = AIMessage(
    [{"type": "text", "text": "This is the FIRST 4 token block."}], id="second"
)
SECOND_LAST_BLOCK = AIMessage(
    [{"type": "text", "text": "This is the SECOND 4 token block."}], id="second"
)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"max_tokens": 30, "strategy": "first"}, [SYSTEM, FIRST]),
        (
            {"max_tokens": 30, "strategy": "first", "allow_partial": True},
            [SYSTEM, FIRST, SECOND_FIRST_BLOCK],
        ),
        (
            {"max_tokens": 30, "strategy": "first", "allow_partial": True, "end_on": "human"},
            [SYSTEM, FIRST],
        ),
        ({"max_tokens": 100, "strategy": "first"}, MESSAGES),
        (
            {"max_tokens": 100, "strategy": "first", "end_on": "human"},
            [SYSTEM, FIRST, SECOND, THIRD],
        ),
        ({"max_tokens": 100, "strategy": "first", "end_on": "tool"}, []),
        ({"max_tokens": 9, "strategy": "first"}, []),
        ({"max_tokens": 30}, [THIRD, FOURTH]),
        ({"max_tokens": 30, "include_system": True}, [SYSTEM, THIRD, FOURTH]),
        (
            {"max_tokens": 40, "include_system": True, "allow_partial": True},
            [SYSTEM, SECOND_LAST_BLOCK, THIRD, FOURTH],
        ),
        (
            {"max_tokens": 30, "include_system": True, "allow_partial": True, "end_on": "human"},
            [SYSTEM, SECOND_LAST_BLOCK, THIRD],
        ),
        (
            {"max_tokens": 40, "include_system": True, "allow_partial": True, "start_on": "human"},
            [SYSTEM, THIRD, FOURTH],
        ),
        ({"max_tokens": 44, "start_on": "human"}, [FIRST, SECOND, THIRD, FOURTH]),
        ({"max_tokens": 43, "start_on": "human"}, [THIRD, FOURTH]),
        ({"max_tokens": 43, "start_on": ["ai", SystemMessage]}, [SECOND, THIRD, FOURTH]),
        ({"max_tokens": 100, "start_on": "human"}, [FIRST, SECOND, THIRD, FOURTH]),
        ({"max_tokens": 100, "end_on": "human", "start_on": "ai"}, [SECOND, THIRD]),
        ({"max_tokens": 100, "include_system": True}, MESSAGES),
        ({"max_tokens": 0}, []),
        # The system message alone over budget: kept anyway, as LangChain does.
        ({"max_tokens": 5, "include_system": True}, [SYSTEM]),
        # include_system only keeps a system message that comes first.
        ({"max_tokens": 20, "include_system": True}, [SYSTEM, FOURTH]),
    ],
)
def test_strategies_and_options(options: dict[str, Any], expected: list[BaseMessage]) -> None:
    assert trim_messages(MESSAGES, token_counter=dummy_token_counter, **options) == expected
    # A per-message counter gives the same results (its counts are summed).
    assert trim_messages(MESSAGES, token_counter=tokens_of, **options) == expected


def test_include_system_needs_the_system_message_first() -> None:
    messages = [FIRST, SYSTEM, FOURTH]
    assert trim_messages(messages, max_tokens=20, token_counter=len, include_system=True) == [
        FIRST,
        SYSTEM,
        FOURTH,
    ]
    assert trim_messages(messages, max_tokens=1, token_counter=len, include_system=True) == [FOURTH]


def test_len_counts_messages() -> None:
    assert trim_messages(MESSAGES, max_tokens=2, token_counter=len) == [THIRD, FOURTH]
    assert trim_messages(MESSAGES, max_tokens=2, token_counter=len, strategy="first") == [
        SYSTEM,
        FIRST,
    ]
    assert trim_messages(MESSAGES, max_tokens=2, token_counter=len, include_system=True) == [
        SYSTEM,
        FOURTH,
    ]


def test_the_kept_messages_are_the_same_objects() -> None:
    kept = trim_messages(MESSAGES, max_tokens=30, token_counter=len)
    assert all(a is b for a, b in zip(kept, MESSAGES[-len(kept) :], strict=True))


def count_chars(messages: list[BaseMessage]) -> int:
    return sum(len(message.text) for message in messages)


def test_partial_text_first_and_last() -> None:
    funky = [HumanMessage("This is a funky text.", id="third")]
    assert trim_messages(
        funky,
        max_tokens=2,
        token_counter=count_chars,
        text_splitter=list,
        strategy="first",
        allow_partial=True,
    ) == [HumanMessage("Th", id="third")]
    assert trim_messages(
        funky, max_tokens=2, token_counter=count_chars, text_splitter=list, allow_partial=True
    ) == [HumanMessage("t.", id="third")]


def count_words(messages: list[BaseMessage]) -> int:
    return sum(len(message.text.split(" ")) if message.text else 0 for message in messages)


def split_on_space(text: str) -> list[str]:
    pieces = text.split(" ")
    return [piece + " " for piece in pieces[:-1]] + pieces[-1:]


def test_partial_text_with_a_text_splitter() -> None:
    assert trim_messages(
        MESSAGES,
        max_tokens=10,
        token_counter=count_words,
        allow_partial=True,
        text_splitter=split_on_space,
    ) == [HumanMessage("a 4 token text.", id="third"), FOURTH]


class WordSplitter:
    """Stands for a LangChain ``TextSplitter``: only ``split_text`` is used."""

    def split_text(self, text: str) -> list[str]:
        return split_on_space(text)


def test_partial_text_with_a_splitter_object() -> None:
    assert trim_messages(
        MESSAGES,
        max_tokens=3,
        token_counter=count_words,
        strategy="first",
        allow_partial=True,
        text_splitter=WordSplitter(),
    ) == [SystemMessage("This is ")]  # "This is " counts 3: the split leaves an empty word


def test_default_splitter_cuts_at_lines() -> None:
    poem = HumanMessage("one\ntwo\nthree", id="p")
    assert trim_messages(
        [poem], max_tokens=8, token_counter=count_chars, strategy="first", allow_partial=True
    ) == [HumanMessage("one\ntwo\n", id="p")]
    assert trim_messages([poem], max_tokens=8, token_counter=count_chars, allow_partial=True) == [
        HumanMessage("three", id="p")
    ]
    assert trim_messages([poem], max_tokens=9, token_counter=count_chars, allow_partial=True) == [
        HumanMessage("two\nthree", id="p")
    ]


def test_partial_of_blocks_keeps_whole_blocks_else_the_first_text() -> None:
    blocks = AIMessage(
        [
            {"type": "text", "text": "aaaa"},
            {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            {"type": "text", "text": "bb\ncc"},
        ],
        id="m",
    )
    # Whole blocks from the start: the first two fit (an image has no text to count).
    assert trim_messages(
        [blocks], max_tokens=4, token_counter=count_chars, strategy="first", allow_partial=True
    ) == [
        AIMessage(
            [
                {"type": "text", "text": "aaaa"},
                {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            ],
            id="m",
        )
    ]
    # From the end: the last two blocks fit.
    assert trim_messages([blocks], max_tokens=5, token_counter=count_chars, allow_partial=True) == [
        AIMessage(
            [
                {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                {"type": "text", "text": "bb\ncc"},
            ],
            id="m",
        )
    ]
    # No block fits whole: lines of the first text, as a string content.
    assert (
        trim_messages(
            [blocks], max_tokens=3, token_counter=count_chars, strategy="first", allow_partial=True
        )
        == []
    )
    one_line = AIMessage([{"type": "text", "text": "ab\ncdefgh"}, "xyz"], id="n")
    assert trim_messages(
        [one_line], max_tokens=3, token_counter=count_chars, strategy="first", allow_partial=True
    ) == [AIMessage("ab\n", id="n")]


def test_partial_needs_text() -> None:
    image_only = HumanMessage([{"type": "image_url", "image_url": {"url": "u"}}])
    assert (
        trim_messages(
            [image_only], max_tokens=5, token_counter=dummy_token_counter, allow_partial=True
        )
        == []
    )


def test_start_on_keeps_tool_results_from_opening_the_history() -> None:
    call = AIMessage("", tool_calls=[tool_call(name="f", args={}, id="c1")])
    result = ToolMessage("42", tool_call_id="c1")
    history = [HumanMessage("q"), call, result, AIMessage("It is 42.")]
    assert trim_messages(history, max_tokens=2, token_counter=len) == [
        result,
        AIMessage("It is 42."),
    ]
    assert trim_messages(history, max_tokens=3, token_counter=len, start_on="human") == []
    assert trim_messages(history, max_tokens=4, token_counter=len, start_on="human") == history
    assert (
        trim_messages(history, max_tokens=4, token_counter=len, end_on=("human", "tool"))
        == history[:3]
    )


class CountingModel:
    """A model that counts tokens, as LangChain chat models do."""

    def __init__(self) -> None:
        self.calls = 0

    def get_num_tokens_from_messages(self, messages: list[BaseMessage]) -> int:
        self.calls += 1
        return dummy_token_counter(messages)


def test_a_model_with_get_num_tokens_from_messages_counts() -> None:
    model = CountingModel()
    assert trim_messages(MESSAGES, max_tokens=30, token_counter=model) == [THIRD, FOURTH]
    assert model.calls > 0


def test_a_per_message_counter_counts_each_message_once() -> None:
    seen: list[str | None] = []

    def count(message: BaseMessage) -> int:
        seen.append(message.id)
        return 10

    assert trim_messages(MESSAGES, max_tokens=25, token_counter=count) == [THIRD, FOURTH]
    assert sorted(seen, key=str) == sorted([None, "first", "second", "third", "fourth"], key=str)


def test_a_per_message_counter_is_known_by_its_annotation() -> None:
    def unresolvable(message: lc.BaseMessage) -> int:  # `lc` exists for type checkers only
        return 1

    def subclass(message: HumanMessage) -> int:
        return 1

    def unannotated(messages: Any) -> int:  # read as a list counter, as in LangChain
        return len(messages)

    assert trim_messages(MESSAGES, max_tokens=2, token_counter=unresolvable) == [THIRD, FOURTH]
    assert trim_messages(MESSAGES, max_tokens=2, token_counter=subclass) == [  # type: ignore[arg-type]
        THIRD,
        FOURTH,
    ]
    assert trim_messages(MESSAGES, max_tokens=2, token_counter=unannotated) == [THIRD, FOURTH]


def test_prompt_values_and_message_forms_are_read() -> None:
    class Prompt:
        def to_messages(self) -> list[BaseMessage]:
            return [SYSTEM, FIRST]

    assert trim_messages(Prompt(), max_tokens=1, token_counter=len) == [FIRST]
    assert trim_messages(
        [("system", "s"), "hi", ("ai", "yo")], max_tokens=1, token_counter=len
    ) == [AIMessage("yo")]
    assert trim_messages([], max_tokens=1, token_counter=len) == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"strategy": "middle"},
            "Unrecognized strategy='middle'. Supported strategies are 'last' and 'first'.",
        ),
        (
            {"strategy": "first", "start_on": "human"},
            "start_on parameter is only valid with strategy='last'",
        ),
        (
            {"strategy": "first", "include_system": True},
            "include_system parameter is only valid with strategy='last'",
        ),
        ({"max_tokens": -1}, "max_tokens must not be negative, got -1"),
        ({"max_tokens": "10"}, "max_tokens must be a number of tokens, got '10'"),
        ({"max_tokens": True}, "max_tokens must be a number of tokens, got True"),
        (
            {"token_counter": {}},
            "'token_counter' expected to be a model that implements "
            "'get_num_tokens_from_messages()' or a function. Received object of type "
            "<class 'dict'>.",
        ),
        (
            {"text_splitter": 3},
            "text_splitter must be a function of a str returning a list of str, or have a "
            "split_text method; got 3",
        ),
        (
            {"end_on": [1]},
            "end_on takes message type names (such as 'human') or message classes, got 1",
        ),
        (
            {"start_on": [None]},
            "start_on takes message type names (such as 'human') or message classes, got None",
        ),
    ],
)
def test_invalid_arguments(options: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {"max_tokens": 10, "token_counter": len, **options}
    with pytest.raises(ValueError) as raised:
        trim_messages(MESSAGES, **arguments)
    assert str(raised.value) == message
    # The runnable form checks its arguments when it is built, not on the first call.
    with pytest.raises(ValueError) as raised:
        trim_messages(**arguments)
    assert str(raised.value) == message
