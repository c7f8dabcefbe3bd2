"""Property tests: whatever the chunking, a scripted stream adds up to the invoked reply."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from leanchain.language_models import ScriptedChatModel
from leanchain.language_models._chunking import Chunking
from leanchain.messages import AIMessage, message_chunk_to_message

chunkings: st.SearchStrategy[Chunking] = st.one_of(
    st.sampled_from(["words", "chars"]), st.integers(min_value=1, max_value=7)
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.dictionaries(st.text(max_size=8), json_values, max_size=4)


def _streamed(model: ScriptedChatModel, **kwargs: Any) -> AIMessage:
    chunks = list(model.stream("q", **kwargs))
    assert [c.chunk_position for c in chunks] == [None] * (len(chunks) - 1) + ["last"]
    merged = chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]
    message = message_chunk_to_message(merged)
    assert isinstance(message, AIMessage)
    return message


@given(text=st.text(), chunking=chunkings)
def test_streamed_text_adds_up_to_the_reply(text: str, chunking: Chunking) -> None:
    model = ScriptedChatModel([text, text], chunking=chunking)
    assert _streamed(model) == model.invoke("q") == AIMessage(content=text)


@given(
    text=st.text(),
    stop=st.lists(st.text(min_size=1, max_size=3), max_size=3),
    chunking=chunkings,
)
def test_stop_cuts_before_the_first_stop_sequence(
    text: str, stop: list[str], chunking: Chunking
) -> None:
    model = ScriptedChatModel([text, text], chunking=chunking)
    invoked = model.invoke("q", stop=stop)
    assert _streamed(model, stop=stop) == invoked
    assert text.startswith(invoked.text)
    assert not any(s in invoked.text for s in stop)
    if invoked.text != text:
        assert any(text[len(invoked.text) :].startswith(s) for s in stop)


@given(
    calls=st.lists(st.tuples(st.text(min_size=1, max_size=8), arguments), max_size=3),
    content=st.text(max_size=20),
    chunking=chunkings,
)
def test_streamed_tool_calls_add_up_to_the_calls(
    calls: list[tuple[str, dict[str, Any]]], content: str, chunking: Chunking
) -> None:
    reply = ScriptedChatModel.tool_calls(*calls, content=content)
    model = ScriptedChatModel([reply, reply], chunking=chunking)
    streamed = _streamed(model)
    assert streamed.tool_calls == [
        {"name": name, "args": args, "id": f"call_{i + 1}", "type": "tool_call"}
        for i, (name, args) in enumerate(calls)
    ]
    assert streamed.content == content
    assert streamed.invalid_tool_calls == []
