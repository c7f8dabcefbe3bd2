"""Property tests of the cassette format: what is written reads back, and loading never
raises anything but `CassetteFormatError`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanchain.messages import AIMessage, AIMessageChunk, HumanMessage, tool_call, tool_call_chunk
from leanchain.testing import CassetteFormatError
from leanchain.testing._cassette import load_entries
from leanchain.testing._cassette_format import (
    chunk_data,
    chunk_from_data,
    dumps,
    message_data,
    message_from_data,
    request_key,
)

scalars: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=20),
    st.floats(allow_nan=False, allow_infinity=False),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
texts = st.text(max_size=40) | st.lists(st.text(max_size=10), max_size=4).map("\n".join)
names = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=8)
args = st.dictionaries(names, json_values, max_size=3)


@st.composite
def ai_messages(draw: st.DrawFn) -> AIMessage:
    calls = draw(
        st.lists(st.builds(tool_call, name=names, args=args, id=st.none() | names), max_size=3)
    )
    usage = draw(
        st.none()
        | st.builds(
            lambda i, o: {"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
            st.integers(0, 10_000),
            st.integers(0, 10_000),
        )
    )
    return AIMessage(
        content=draw(texts),
        tool_calls=calls,
        usage_metadata=usage,
        id=draw(st.none() | names),
        response_metadata=draw(st.dictionaries(names, scalars, max_size=3)),
    )


@st.composite
def chunks(draw: st.DrawFn) -> AIMessageChunk:
    pieces = draw(
        st.lists(
            st.builds(
                tool_call_chunk,
                name=st.none() | names,
                args=st.none() | st.text(max_size=20),
                id=st.none() | names,
                index=st.none() | st.integers(0, 3),
            ),
            max_size=3,
        )
    )
    return AIMessageChunk(
        content=draw(texts),
        tool_call_chunks=pieces,
        chunk_position=draw(st.sampled_from([None, "last"])),
    )


def through_the_file(data: Any) -> Any:
    return json.loads(dumps({"x": data}))["x"]


@given(ai_messages())
def test_a_reply_reads_back_as_it_was(message: AIMessage) -> None:
    assert message_from_data(through_the_file(message_data(message)), "here") == message


@given(chunks())
def test_a_chunk_reads_back_as_it_was(chunk: AIMessageChunk) -> None:
    assert chunk_from_data(through_the_file(chunk_data(chunk)), "here") == chunk


@given(texts)
def test_a_human_message_reads_back_as_it_was(text: str) -> None:
    message = HumanMessage(text)
    assert message_from_data(through_the_file(message_data(message)), "here") == message


@given(json_values)
def test_dumps_writes_the_json_it_was_given(value: Any) -> None:
    document = {"version": 1, "entries": [value], "chunks": [value, value]}
    assert json.loads(dumps(document)) == document


@settings(max_examples=50)
@given(st.dictionaries(names, json_values, max_size=5))
def test_the_key_does_not_depend_on_key_order_or_layout(request: dict[str, Any]) -> None:
    reordered = dict(reversed(list(request.items())))
    assert request_key(through_the_file(reordered)) == request_key(request)


entry_like = st.fixed_dictionaries(
    {},
    optional={
        "call": st.sampled_from(["invoke", "stream", "astream", "other"]) | json_values,
        "model": names | json_values,
        "request": st.fixed_dictionaries({"messages": st.lists(json_values, max_size=2)})
        | json_values,
        "reply": st.fixed_dictionaries(
            {"type": st.sampled_from(["ai", "human", "AIMessageChunk", "eval"])},
            optional={
                "content": json_values,
                "content_lines": json_values,
                "tool_calls": json_values,
                "usage_metadata": json_values,
                "id": json_values,
            },
        )
        | json_values,
        "chunks": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "content": json_values,
                    "tool_call_chunks": json_values,
                    "chunk_position": json_values,
                },
            )
            | json_values,
            max_size=3,
        )
        | json_values,
    },
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(entry_like | json_values, max_size=3))
def test_loading_gives_entries_or_a_format_error(tmp_path: Path, entries: list[Any]) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"version": 1, "entries": entries}))
    problem: CassetteFormatError | None = None
    try:
        loaded = load_entries(path)
    except CassetteFormatError as exc:
        problem = exc
    if problem is not None:
        assert str(problem).startswith(f"cassette {path}")
        return
    assert len(loaded) == len(entries)
    for entry in loaded:
        assert entry.reply is None or type(entry.reply) is AIMessage
        assert entry.chunks is None or all(type(c) is AIMessageChunk for c in entry.chunks)
