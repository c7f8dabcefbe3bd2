"""`fold` (how a step that cannot stream adds up its input stream) holds message chunks of
the sum's class and merges them in one step: the sum is exactly the one adding them one by
one gives, whatever else the stream holds (strings, other chunk classes, metadata of
clashing types), sync and async."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.messages import AIMessageChunk, BaseMessageChunk, HumanMessageChunk, tool_call_chunk
from leanchain.runnables._chunks import afold, fold
from leanchain.runnables.utils import AddableDict
from outcome_support import outcome


def _one_by_one(chunks: list[Any]) -> tuple[bool, Any]:
    """What `fold` gave before it held chunks: each added to the sum, or replacing it."""
    got, total = False, None
    for chunk in chunks:
        if not got:
            total, got = chunk, True
            continue
        try:
            total = total + chunk
        except TypeError:
            total = chunk
    return got, total


_texts = st.text(alphabet='ab {}"', max_size=4)
_metadata = st.dictionaries(st.sampled_from(["k", "model"]), st.integers(0, 2) | _texts, max_size=2)


@st.composite
def _ai_chunks(draw: st.DrawFn) -> AIMessageChunk:
    fields: dict[str, Any] = {}
    if draw(st.booleans()):
        fields["id"] = draw(st.sampled_from(["run-1", "lc_run--2", "chatcmpl-3"]))
    if draw(st.booleans()):
        fields["name"] = draw(st.sampled_from(["bot", "other"]))
    if draw(st.booleans()):
        fields["response_metadata"] = draw(_metadata)
    if draw(st.booleans()):
        fields["additional_kwargs"] = draw(_metadata)
    if draw(st.booleans()):
        n = draw(st.integers(0, 3))
        fields["usage_metadata"] = {"input_tokens": n, "output_tokens": 1, "total_tokens": n + 1}
    if draw(st.booleans()):
        fields["tool_call_chunks"] = [
            tool_call_chunk(
                name=draw(st.sampled_from([None, "echo"])),
                args=draw(_texts),
                id=draw(st.sampled_from([None, "call_1"])),
                index=draw(st.sampled_from([0, 1])),
            )
        ]
    if draw(st.booleans()):
        fields["chunk_position"] = "last"
    return AIMessageChunk(draw(_texts), **fields)


_chunk = st.one_of(
    _ai_chunks(),
    _ai_chunks(),
    _ai_chunks(),
    _texts.map(HumanMessageChunk),
    _texts,
    st.just(AddableDict(a=1)),
)


def _seen(result: tuple[bool, Any]) -> tuple[Any, ...]:
    """The result with what ``==`` does not compare: the class and the fields set."""
    got, total = result
    if isinstance(total, BaseMessageChunk):
        return (got, type(total), total.model_dump(), total.model_fields_set)
    return (got, type(total), total)


def _outcome(call: Any) -> tuple[Any, ...]:
    return outcome(lambda: _seen(call()))


@settings(max_examples=300, deadline=None)
@given(st.lists(_chunk, max_size=12))
def test_the_sum_is_the_one_by_one_sum(chunks: list[Any]) -> None:
    expected = _outcome(lambda: _one_by_one(chunks))
    assert _outcome(lambda: fold(iter(chunks))) == expected

    async def stream() -> AsyncIterator[Any]:
        for chunk in chunks:
            yield chunk

    assert _outcome(lambda: asyncio.run(afold(stream()))) == expected


def test_a_streamed_reply_is_merged_once() -> None:
    merges: list[int] = []

    class Counted(AIMessageChunk):
        def _merge(self, others: Any) -> Any:
            merges.append(len(others))
            return super()._merge(others)

    def reply() -> Iterator[Any]:
        yield from (Counted(piece) for piece in ["The ", "answer ", "is ", "42."])

    got, total = fold(reply())
    assert (got, total.content, merges) == (True, "The answer is 42.", [3])
