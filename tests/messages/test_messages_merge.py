"""Chunk ``+`` and the merge helpers (``langchain-behaviour.md`` §2.4)."""

from __future__ import annotations

import functools
import itertools
import json
import operator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.messages import (
    AIMessageChunk,
    BaseMessageChunk,
    ChatMessageChunk,
    FunctionMessageChunk,
    HumanMessageChunk,
    ToolMessageChunk,
    invalid_tool_call,
    merge_content,
    merge_dicts,
    merge_lists,
    merge_obj,
    tool_call,
    tool_call_chunk,
)

# merge_dicts


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        ({"a": None}, {"a": "x"}, {"a": "x"}),
        ({"a": "x"}, {"a": None}, {"a": "x"}),
        ({}, {"a": None}, {"a": None}),
        ({"t": "a"}, {"t": "b"}, {"t": "ab"}),
        ({"index": "lc_1"}, {"index": "lc_1"}, {"index": "lc_1"}),
        ({"index": "x"}, {"index": "y"}, {"index": "xy"}),
        ({"id": "a"}, {"id": "a"}, {"id": "a"}),
        ({"id": "a"}, {"id": "b"}, {"id": "ab"}),
        ({"output_version": "v1"}, {"output_version": "v1"}, {"output_version": "v1"}),
        ({"model_provider": "o"}, {"model_provider": "o"}, {"model_provider": "o"}),
        (
            {"function_call": {"name": "f", "arguments": '{"a'}},
            {"function_call": {"arguments": '": 1}'}},
            {"function_call": {"name": "f", "arguments": '{"a": 1}'}},
        ),
        ({"l": [1]}, {"l": [2]}, {"l": [1, 2]}),
        ({"f": 1.5}, {"f": 1.5}, {"f": 1.5}),
        ({"b": True}, {"b": True}, {"b": True}),
        ({"n": 1}, {"n": 2}, {"n": 3}),
        ({"index": 0}, {"index": 1}, {"index": 1}),
        ({"created": 5}, {"created": 7}, {"created": 7}),
        ({"timestamp": 5}, {"timestamp": 7}, {"timestamp": 7}),
        ({"a": 1}, {"b": 2}, {"a": 1, "b": 2}),
    ],
)
def test_merge_dicts(left: dict[str, Any], right: dict[str, Any], expected: Any) -> None:
    before = json.dumps([left, right])
    assert merge_dicts(left, right) == expected
    assert json.dumps([left, right]) == before


def test_merge_dicts_errors() -> None:
    with pytest.raises(TypeError) as info:
        merge_dicts({"a": "x"}, {"a": 1})
    assert str(info.value) == (
        'additional_kwargs["a"] already exists in this message, but with a different type.'
    )
    with pytest.raises(TypeError) as info:
        merge_dicts({"b": True}, {"b": False})
    assert str(info.value) == (
        "Additional kwargs key b already exists in left dict and value has unsupported type"
        " <class 'bool'>."
    )
    with pytest.raises(TypeError, match="unsupported type <class 'float'>"):
        merge_dicts({"f": 1.0}, {"f": 2.0})


def test_merge_dicts_many() -> None:
    assert merge_dicts({"a": "x"}, {"a": "y"}, {"a": "z", "b": 1}) == {"a": "xyz", "b": 1}


# merge_lists


def test_merge_lists() -> None:
    assert merge_lists(None, None) is None
    assert merge_lists(None, [1]) == [1]
    assert merge_lists([1], None) == [1]
    text = {"index": 0, "type": "text", "text": "a"}
    assert merge_lists([text], [{"index": 0, "type": "text", "text": "b"}]) == [
        {"index": 0, "type": "text", "text": "ab"}
    ]
    assert text == {"index": 0, "type": "text", "text": "a"}
    assert merge_lists([{"index": 0, "id": "a"}], [{"index": 0, "id": "b"}]) == [
        {"index": 0, "id": "a"},
        {"index": 0, "id": "b"},
    ]
    assert merge_lists([{"index": 0, "id": ""}], [{"index": 0, "id": "b"}]) == [
        {"index": 0, "id": "b"}
    ]
    assert merge_lists([{"index": None, "a": "x"}], [{"index": None, "a": "y"}]) == [
        {"index": None, "a": "x"},
        {"index": None, "a": "y"},
    ]
    assert merge_lists(["s", 1], ["t", {"index": 0}]) == ["s", 1, "t", {"index": 0}]


def test_merge_lists_joins_the_last_element_with_that_index() -> None:
    left = [{"index": 0, "id": "a", "args": "1"}, {"index": 0, "id": "b", "args": "2"}]
    assert merge_lists(left, [{"index": 0, "id": None, "args": "3"}]) == [
        {"index": 0, "id": "a", "args": "1"},
        {"index": 0, "id": "b", "args": "23"},
    ]


# merge_content


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (["a", "b", "c"], "abc"),
        (["a", [{"type": "text", "text": "b"}]], ["a", {"type": "text", "text": "b"}]),
        (["", [{"type": "text", "text": "b"}]], [{"type": "text", "text": "b"}]),
        ([[{"type": "text", "text": "b"}], "x"], [{"type": "text", "text": "b"}, "x"]),
        ([["a"], "b"], ["ab"]),
        ([[], "x"], ["x"]),
        ([[{"type": "image"}], ""], [{"type": "image"}]),
        (
            [
                [{"type": "text", "text": "he", "index": 0}],
                [{"type": "text", "text": "llo", "index": 0}],
                [{"type": "tool_use", "id": "t", "index": 1}],
            ],
            [
                {"type": "text", "text": "hello", "index": 0},
                {"type": "tool_use", "id": "t", "index": 1},
            ],
        ),
    ],
)
def test_merge_content(parts: list[Any], expected: Any) -> None:
    before = json.dumps(parts)
    assert merge_content(parts[0], *parts[1:]) == expected
    assert json.dumps(parts) == before


def test_merge_obj() -> None:
    assert merge_obj(None, 1) == 1
    assert merge_obj(1, None) == 1
    assert merge_obj("a", "b") == "ab"
    assert merge_obj({"a": "x"}, {"a": "y"}) == {"a": "xy"}
    assert merge_obj([1], [2]) == [1, 2]
    assert merge_obj(3, 3) == 3
    with pytest.raises(TypeError) as type_info:
        merge_obj("a", 1)
    assert str(type_info.value) == (
        "left and right are of different types. Left type:  <class 'str'>."
        " Right type: <class 'int'>."
    )
    with pytest.raises(ValueError) as value_info:
        merge_obj(3, 4)
    assert str(value_info.value) == (
        "Unable to merge left=3 and right=4. Both must be of type str, dict, or list,"
        " or else be two equal objects."
    )


# Chunk +


def test_result_has_the_left_class() -> None:
    assert AIMessageChunk("a") + HumanMessageChunk("b") == AIMessageChunk("ab")
    assert HumanMessageChunk("a") + AIMessageChunk("b") == HumanMessageChunk("ab")


def test_adding_something_else_is_a_type_error() -> None:
    with pytest.raises(TypeError) as info:
        AIMessageChunk("a") + "s"  # type: ignore[operator]
    assert str(info.value) == 'unsupported operand type(s) for +: "AIMessageChunk" and "str"'
    mixed: list[Any] = [HumanMessageChunk("b"), "c"]
    with pytest.raises(TypeError) as info:
        HumanMessageChunk("a") + mixed
    assert str(info.value) == 'unsupported operand type(s) for +: "HumanMessageChunk" and "list"'


def test_adding_a_list_of_chunks() -> None:
    left = AIMessageChunk("a", id="x")
    rest = [AIMessageChunk("b"), AIMessageChunk("c")]
    assert left + rest == AIMessageChunk("abc", id="x")
    nothing: list[AIMessageChunk] = []
    assert left + nothing is left


def test_common_fields_merge() -> None:
    left = HumanMessageChunk("a", id="1", additional_kwargs={"k": "x"})
    right = HumanMessageChunk("b", id="2", name="n", response_metadata={"m": 1})
    assert left + right == HumanMessageChunk(
        "ab", id="1", name="n", additional_kwargs={"k": "x"}, response_metadata={"m": 1}
    )


def test_reference_tool_call_chunk_example() -> None:
    chunks = [
        AIMessageChunk(
            "", tool_call_chunks=[tool_call_chunk(name="tool1", args="", id="1", index=0)]
        ),
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args='{"arg1": "val', index=0)]),
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args='ue}"', index=0)]),
    ]
    total = chunks[0] + chunks[1] + chunks[2]
    assert total.tool_call_chunks == [
        tool_call_chunk(name="tool1", args='{"arg1": "value}"', id="1", index=0)
    ]
    assert total.tool_calls == [tool_call(name="tool1", args={"arg1": "value}"}, id="1")]
    assert total.invalid_tool_calls == []
    assert (chunks[0] + chunks[1]).tool_calls == [
        tool_call(name="tool1", args={"arg1": "val"}, id="1")
    ]
    assert chunks[0].tool_calls == [tool_call(name="tool1", args={}, id="1")]


def test_parallel_calls_sharing_an_index_stay_apart() -> None:
    pieces = [
        tool_call_chunk(name="add_new_task", args="", id="a", index=0),
        tool_call_chunk(args='{"x": 1}', index=0),
        tool_call_chunk(name="add_ideas", args="", id="b", index=0),
        tool_call_chunk(args='{"y": 2}', index=0),
    ]
    total = functools.reduce(
        operator.add, [AIMessageChunk("", tool_call_chunks=[p]) for p in pieces]
    )
    assert total.tool_calls == [
        tool_call(name="add_new_task", args={"x": 1}, id="a"),
        tool_call(name="add_ideas", args={"y": 2}, id="b"),
    ]


def test_chunks_without_index_never_join() -> None:
    left = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(name="f", args="{}", index=None)])
    right = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(name="f", args="{}", index=None)])
    assert len((left + right).tool_call_chunks) == 2


def test_names_concatenate_like_langchain() -> None:
    left = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(name="f", args="{", index=0)])
    right = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(name="f", args="}", index=0)])
    assert (left + right).tool_calls == [tool_call(name="ff", args={}, id=None)]


def test_arguments_that_are_not_an_object_are_invalid_until_repaired() -> None:
    start = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args="[1,", id="c", index=0)]
    )
    assert start.tool_calls == []
    assert start.invalid_tool_calls == [invalid_tool_call(name="f", args="[1,", id="c")]
    broken = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args="{]", id="d", index=1)])
    assert broken.invalid_tool_calls == [invalid_tool_call(args="{]", id="d")]
    assert (
        broken + AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args="}", index=1)])
    ).invalid_tool_calls == [invalid_tool_call(args="{]}", id="d")]
    opening = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(name=None, args=" ", index=0)])
    assert opening.invalid_tool_calls == [invalid_tool_call(args=" ")]
    later = opening + AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(args='{"a": 1}', index=0)]
    )
    assert later.tool_calls == [tool_call(name="", args={"a": 1}, id=None)]
    assert later.invalid_tool_calls == []


def test_usage_adds_up() -> None:
    usage: Any = {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}
    more: Any = {"input_tokens": 0, "output_tokens": 2, "total_tokens": 2}
    total = (
        AIMessageChunk("a", usage_metadata=usage)
        + AIMessageChunk("b")
        + AIMessageChunk("c", usage_metadata=more)
    )
    assert total.usage_metadata == {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}
    assert (AIMessageChunk("a") + AIMessageChunk("b")).usage_metadata is None


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        ([None, "lc_abc", "provider-1", "provider-2"], "provider-1"),
        (["lc_abc", "lc_run-1", "lc_run-2"], "lc_run-1"),
        (["lc_abc", None, "lc_def"], "lc_abc"),
        ([None, None], None),
    ],
)
def test_id_preference(ids: list[str | None], expected: str | None) -> None:
    chunks = [AIMessageChunk("", id=i) for i in ids]
    assert (chunks[0] + chunks[1:]).id == expected
    assert functools.reduce(operator.add, chunks).id == expected


def test_chunk_position_last_wins() -> None:
    assert (
        AIMessageChunk("a") + AIMessageChunk("b", chunk_position="last")
    ).chunk_position == "last"
    assert (
        AIMessageChunk("a", chunk_position="last") + AIMessageChunk("b")
    ).chunk_position == "last"
    assert (AIMessageChunk("a") + AIMessageChunk("b")).chunk_position is None


def test_chunk_built_from_tool_calls_gets_chunks() -> None:
    chunk = AIMessageChunk(
        "",
        tool_calls=[tool_call(name="f", args={"a": 1}, id="c1")],
        invalid_tool_calls=[invalid_tool_call(name="g", args="{x", id="c2")],
    )
    assert chunk.tool_call_chunks == [
        tool_call_chunk(name="f", args='{"a": 1}', id="c1", index=None),
        tool_call_chunk(name="g", args="{x", id="c2", index=None),
    ]
    assert chunk.tool_calls == [tool_call(name="f", args={"a": 1}, id="c1")]
    assert chunk.invalid_tool_calls == [invalid_tool_call(name="g", args="{x", id="c2")]


def test_tool_message_chunks() -> None:
    left = ToolMessageChunk("a", tool_call_id="1", artifact=[1])
    right = ToolMessageChunk("b", tool_call_id="1", artifact=[2], status="error")
    assert left + right == ToolMessageChunk("ab", tool_call_id="1", artifact=[1, 2], status="error")
    with pytest.raises(
        ValueError, match=r"^Cannot concatenate ToolMessageChunks with different names\.$"
    ):
        left + ToolMessageChunk("b", tool_call_id="2")
    assert left + HumanMessageChunk("c") == ToolMessageChunk("ac", tool_call_id="1", artifact=[1])


def test_chat_and_function_message_chunks() -> None:
    assert ChatMessageChunk("a", role="r") + ChatMessageChunk("b", role="r") == ChatMessageChunk(
        "ab", role="r"
    )
    with pytest.raises(
        ValueError, match=r"^Cannot concatenate ChatMessageChunks with different roles\.$"
    ):
        ChatMessageChunk("a", role="r") + ChatMessageChunk("b", role="s")
    assert FunctionMessageChunk("a", name="f") + FunctionMessageChunk("b", name="f") == (
        FunctionMessageChunk("ab", name="f")
    )
    with pytest.raises(
        ValueError, match=r"^Cannot concatenate FunctionMessageChunks with different names\.$"
    ):
        FunctionMessageChunk("a", name="f") + FunctionMessageChunk("b", name="g")


def test_many_pieces_of_one_argument_stream() -> None:
    pieces = ['{"xs": ['] + [f'{{"k": {i}}}, ' for i in range(300)] + ['"end"], "s": "a\\u00e9"}']
    chunks = [
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args=p, index=0)]) for p in pieces
    ]
    total = functools.reduce(operator.add, chunks)
    expected = {"xs": [{"k": i} for i in range(300)] + ["end"], "s": "a\u00e9"}
    assert total.tool_calls == [tool_call(name="", args=expected, id=None)]
    assert total == AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(args="".join(pieces), index=0)]
    )


def test_a_copy_with_other_chunks_does_not_reuse_stale_scans() -> None:
    left = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args='{"a": "x', index=0)])
    left = left + AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args="y", index=0)])
    swapped = left.model_copy(
        update={"tool_call_chunks": [tool_call_chunk(args='["not", "an object"', index=0)]}
    )
    more = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args="]", index=0)])
    assert (swapped + more).invalid_tool_calls == [invalid_tool_call(args='["not", "an object"]')]
    assert (left + more).tool_calls == [tool_call(name="", args={"a": "xy]"}, id=None)]


# Properties: any split of a message into chunks adds back up to the whole.


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    edges = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges)]


@settings(max_examples=200, deadline=None)
@given(st.text(), st.lists(st.integers(min_value=0, max_value=60), max_size=10), st.booleans())
def test_property_text_chunks_add_up(text: str, cuts: list[int], as_list: bool) -> None:
    pieces = split(text, cuts)
    chunks: list[BaseMessageChunk] = [AIMessageChunk(pieces[0], id="run", name="bot")]
    chunks += [AIMessageChunk(p) for p in pieces[1:]]
    whole = AIMessageChunk(text, id="run", name="bot")
    total = chunks[0] + chunks[1:] if as_list else functools.reduce(operator.add, chunks)
    assert total == whole
    human = functools.reduce(operator.add, [HumanMessageChunk(p) for p in pieces])
    assert human == HumanMessageChunk(text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(min_size=1), min_size=1, max_size=3), st.data())
def test_property_indexed_blocks_add_up(texts: list[str], data: st.DataObject) -> None:
    whole: list[str | dict[str, Any]] = [
        {"type": "text", "text": t, "index": i} for i, t in enumerate(texts)
    ]
    chunks = []
    for i, text in enumerate(texts):
        for piece in split(text, data.draw(st.lists(st.integers(0, 30), max_size=4))):
            chunks.append(AIMessageChunk([{"type": "text", "text": piece, "index": i}]))
    assert functools.reduce(operator.add, chunks) == AIMessageChunk(whole)


arg_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def tool_call_streams(draw: st.DrawFn) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    """Chunks of 1-3 tool calls (arguments possibly cut short) in any interleaving, and the
    chunk built from the whole stream at once."""
    count = draw(st.integers(1, 3))
    calls = []
    for index in range(count):
        args = json.dumps(draw(st.dictionaries(st.text(max_size=5), arg_values, max_size=3)))
        if draw(st.booleans()):
            args = args[: draw(st.integers(0, len(args)))]
        pieces = split(args, draw(st.lists(st.integers(0, len(args)), max_size=6)))
        calls.append((f"tool{index}", f"call_{index}", index, args, pieces))
    schedule = draw(st.permutations([i for i, call in enumerate(calls) for _ in call[4]]))
    text = draw(st.text(max_size=10))
    text_pieces = split(text, draw(st.lists(st.integers(0, 10), max_size=3)))
    usage: Any = {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}

    chunks = [AIMessageChunk(p) for p in text_pieces]
    started: set[int] = set()
    position = [0] * count
    for i in schedule:
        name, call_id, index, _, pieces = calls[i]
        first = i not in started
        started.add(i)
        piece = pieces[position[i]]
        position[i] += 1
        chunks.append(
            AIMessageChunk(
                "",
                tool_call_chunks=[
                    tool_call_chunk(
                        name=name if first else None,
                        args=piece,
                        id=call_id if first else None,
                        index=index,
                    )
                ],
            )
        )
    chunks.append(AIMessageChunk("", usage_metadata=usage, chunk_position="last"))
    order = list(dict.fromkeys(schedule))
    whole = AIMessageChunk(
        text,
        tool_call_chunks=[
            tool_call_chunk(name=calls[i][0], args=calls[i][3], id=calls[i][1], index=calls[i][2])
            for i in order
        ],
        usage_metadata=usage,
        chunk_position="last",
    )
    return chunks, whole


@settings(max_examples=200, deadline=None)
@given(tool_call_streams(), st.booleans())
def test_property_tool_call_chunks_add_up(
    stream: tuple[list[AIMessageChunk], AIMessageChunk], as_list: bool
) -> None:
    chunks, whole = stream
    total = chunks[0] + chunks[1:] if as_list else functools.reduce(operator.add, chunks)
    assert total == whole
    assert total.tool_calls == whole.tool_calls
    assert total.invalid_tool_calls == whole.invalid_tool_calls
