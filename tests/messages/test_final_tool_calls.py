"""A finished reply only carries tool calls whose arguments are complete JSON.

While a stream runs, tool-call arguments are read as partial JSON (they grow, as in
LangChain). Once the reply is finished — a chunk marked ``chunk_position="last"``, or
``message_chunk_to_message`` — arguments the stream cut off must become an invalid tool call,
never a valid-looking call with truncated arguments that an agent would run.
"""

from __future__ import annotations

import functools
import json
import operator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    invalid_tool_call,
    message_chunk_to_message,
    parse_tool_call_args,
    tool_call,
    tool_call_chunk,
)

CUT = "the arguments were cut off before their JSON was complete: "


def pieces(*args: str, name: str = "add", call_id: str = "c1") -> list[AIMessageChunk]:
    """A streamed tool call: the first piece names it, the others continue its arguments."""
    return [
        AIMessageChunk(
            "",
            tool_call_chunks=[
                tool_call_chunk(
                    name=name if i == 0 else None,
                    args=piece,
                    id=call_id if i == 0 else None,
                    index=0,
                )
            ],
        )
        for i, piece in enumerate(args)
    ]


LAST = AIMessageChunk("", chunk_position="last")
TRUNCATED = invalid_tool_call(
    name="add",
    args='{"a": 1, "b": 2',
    id="c1",
    error=CUT + "Expecting ',' delimiter: line 1 column 16 (char 15)",
)


def test_a_growing_stream_shows_partial_arguments() -> None:
    total = functools.reduce(operator.add, pieces('{"a": 1', ', "b": 2'))
    assert total.tool_calls == [tool_call(name="add", args={"a": 1, "b": 2}, id="c1")]
    assert total.invalid_tool_calls == []
    assert total.chunk_position is None


def test_a_stream_cut_inside_the_arguments_ends_in_an_invalid_call() -> None:
    chunks = [*pieces('{"a": 1', ', "b": 2'), LAST]
    pairwise = functools.reduce(operator.add, chunks)
    at_once = chunks[0] + chunks[1:]
    for total in (pairwise, at_once):
        assert total.chunk_position == "last"
        assert total.tool_calls == []
        assert total.invalid_tool_calls == [TRUNCATED]
    final = message_chunk_to_message(pairwise)
    assert final == AIMessage("", invalid_tool_calls=[TRUNCATED])


def test_the_last_piece_may_itself_carry_the_cut_arguments() -> None:
    first, second = pieces('{"a": 1', ', "b": 2')
    last = second.model_copy(update={"chunk_position": "last"})
    assert last.tool_calls == []
    assert (first + last).invalid_tool_calls == [TRUNCATED]


def test_the_sum_of_a_stream_that_never_ended_is_read_as_finished() -> None:
    total = functools.reduce(operator.add, pieces('{"a": 1', ', "b": 2'))
    assert message_chunk_to_message(total) == AIMessage("", invalid_tool_calls=[TRUNCATED])
    # Reading it does not change the chunk: it still streams.
    assert total.tool_calls == [tool_call(name="add", args={"a": 1, "b": 2}, id="c1")]


def test_a_complete_stream_gives_the_call() -> None:
    chunks = [AIMessageChunk("Adding.", id="run-1"), *pieces('{"a": 1', ', "b": 25}'), LAST]
    total = chunks[0] + chunks[1:]
    call = tool_call(name="add", args={"a": 1, "b": 25}, id="c1")
    assert total.tool_calls == [call]
    assert total.invalid_tool_calls == []
    assert message_chunk_to_message(total) == AIMessage("Adding.", id="run-1", tool_calls=[call])
    assert message_chunk_to_message(functools.reduce(operator.add, chunks[:-1])) == (
        AIMessage("Adding.", id="run-1", tool_calls=[call])
    )


def test_a_chunk_built_last_reads_its_arguments_as_finished() -> None:
    chunk = AIMessageChunk(
        "",
        chunk_position="last",
        tool_call_chunks=[
            tool_call_chunk(name="add", args='{"a": 1}', id="c0", index=0),
            tool_call_chunk(name="add", args='{"a": 1, "b": 2', id="c1", index=1),
            tool_call_chunk(name="f", args="[1, 2]", id="c2", index=2),
            tool_call_chunk(name="g", args='{"a": 1]', id="c3", index=3),
            tool_call_chunk(name="h", args="", id="c4", index=4),
        ],
    )
    assert chunk.tool_calls == [
        tool_call(name="add", args={"a": 1}, id="c0"),
        tool_call(name="h", args={}, id="c4"),
    ]
    assert chunk.invalid_tool_calls == [
        TRUNCATED,
        invalid_tool_call(
            name="f", args="[1, 2]", id="c2", error="expected a JSON object, got list"
        ),
        invalid_tool_call(
            name="g",
            args='{"a": 1]',
            id="c3",
            error="Expecting ',' delimiter: line 1 column 8 (char 7)",
        ),
    ]
    # The same chunk while streaming: partial reading, no errors (LangChain's behaviour).
    streaming = AIMessageChunk("", tool_call_chunks=chunk.tool_call_chunks)
    assert streaming.tool_calls == [
        tool_call(name="add", args={"a": 1}, id="c0"),
        tool_call(name="add", args={"a": 1, "b": 2}, id="c1"),
        tool_call(name="h", args={}, id="c4"),
    ]
    assert [bad["error"] for bad in streaming.invalid_tool_calls] == [None, None]


def test_model_copy_keeps_calls_it_is_given() -> None:
    (chunk,) = pieces('{"a": 1')
    given_calls = [tool_call(name="add", args={"a": 7}, id="c1")]
    copied = chunk.model_copy(update={"chunk_position": "last", "tool_calls": given_calls})
    assert copied.tool_calls == given_calls
    assert chunk.model_copy(update={"content": "x"}).tool_calls == chunk.tool_calls
    assert LAST.model_copy(update={"content": "x"}) == AIMessageChunk("x", chunk_position="last")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (None, ({}, None)),
        ("", ({}, None)),
        ('{"a": [1, {"b": "c"}]}', ({"a": [1, {"b": "c"}]}, None)),
        ('{"text": "two\nlines"}', ({"text": "two\nlines"}, None)),
        (
            '{"a": "unfinished',
            (None, CUT + "Unterminated string starting at: line 1 column 7 (char 6)"),
        ),
        ('{"a": tr', (None, CUT + "Expecting value: line 1 column 7 (char 6)")),
        ("[1,", (None, CUT + "Expecting value: line 1 column 4 (char 3)")),
        ('{"a": 1} x', (None, "Extra data: line 1 column 10 (char 9)")),
        (
            "{bad",
            (None, "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ),
        ("   ", (None, "Expecting value: line 1 column 4 (char 3)")),
        ("null", (None, "expected a JSON object, got NoneType")),
        ('"x"', (None, "expected a JSON object, got str")),
        ("[" * 5000, (None, "Nesting deeper than 1000 levels: line 1 column 1 (char 0)")),
    ],
)
def test_parse_tool_call_args(args: str | None, expected: tuple[Any, str | None]) -> None:
    assert parse_tool_call_args(args) == expected


@given(
    st.dictionaries(
        st.text(max_size=4),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=6),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
            max_leaves=6,
        ),
        min_size=1,
        max_size=4,
    ),
    st.data(),
)
def test_a_finished_stream_never_runs_cut_arguments(value: dict[str, Any], data: Any) -> None:
    text = json.dumps(value)
    cut = data.draw(st.integers(min_value=1, max_value=len(text)), label="cut")
    bounds = sorted(data.draw(st.sets(st.integers(1, cut - 1) if cut > 1 else st.nothing())))
    parts = [text[a:b] for a, b in zip([0, *bounds], [*bounds, cut], strict=True)]
    streamed = [*pieces(*parts), LAST]
    total = streamed[0] + streamed[1:]
    assert total == functools.reduce(operator.add, streamed)
    if cut == len(text):
        assert total.tool_calls == [tool_call(name="add", args=value, id="c1")]
        assert total.invalid_tool_calls == []
    else:
        assert total.tool_calls == []
        [bad] = total.invalid_tool_calls
        assert bad["args"] == text[:cut]
        assert (bad["error"] or "").startswith(CUT)
