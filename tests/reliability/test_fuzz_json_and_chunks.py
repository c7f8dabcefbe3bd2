"""Bad input against the JSON readers and the chunk mergers; streaming equals one-shot.

- `parse_partial_json` / `parse_json_markdown`: a value or `json.JSONDecodeError`.
- `JsonOutputParser`: a value or `OutputParserException`, and streamed in any pieces (text or
  message chunks) it ends where `invoke` on the whole reply ends.
- `StrOutputParser`: every piece passes through unchanged.
- `AIMessageChunk` ``+``: any split of a streamed reply (text, tool-call arguments, usage)
  adds back up to the reply; arbitrary chunks merge or raise the documented `TypeError`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import operator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from reliability_support import (
    FUZZ,
    Dice,
    dice,
    json_document,
    json_text,
    json_value,
    split,
)

from leanchain._partial_json import parse_json_markdown, parse_partial_json
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage, AIMessageChunk, tool_call_chunk
from leanchain.output_parsers import JsonOutputParser, StrOutputParser

JSON_PARSER = JsonOutputParser()
STR_PARSER = StrOutputParser()


def _mangled_document(d: Dice) -> str:
    return d.mangle(json_document(d)[1])


ANY_JSONISH = st.one_of(dice(json_text), dice(_mangled_document), st.text(max_size=40))


def canon(value: Any) -> str:
    """JSON values compared as JSON text (``NaN`` equals ``NaN``, ``1`` differs from ``1.0``)."""
    return json.dumps(value)


def one_shot(text: Any) -> tuple[str, Any]:
    try:
        return "value", canon(JSON_PARSER.invoke(text))
    except OutputParserException as exc:
        error = exc
    assert error.llm_output is not None
    return "error", str(error)


def streamed(pieces: list[Any]) -> tuple[str, Any]:
    last: Any = None
    try:
        for value in JSON_PARSER.transform(iter(pieces)):
            assert value is not None
            last = value
    except OutputParserException as exc:
        return "error", str(exc)
    return "value", canon(last)


# -- partial JSON -----------------------------------------------------------------------------


@FUZZ
@given(ANY_JSONISH)
def test_partial_json_gives_a_value_or_json_decode_error(text: str) -> None:
    try:
        complete: Any = canon(json.loads(text, strict=False))
    except (ValueError, RecursionError):  # json.loads' own failures are wider
        complete = None
    try:
        value: Any = canon(parse_partial_json(text))
    except json.JSONDecodeError:
        value = None
    if complete is not None:
        assert value == complete
    with contextlib.suppress(json.JSONDecodeError):
        parse_json_markdown(text)


@FUZZ
@given(dice(json_document))
def test_every_prefix_of_a_json_document_is_read_without_surprises(case: tuple[Any, str]) -> None:
    value, text = case
    assert canon(parse_json_markdown(text)) == canon(value)
    # A reply cut anywhere (as a stream is) reads as a value or the documented error.
    for end in range(0, len(text), max(1, len(text) // 7)):
        with contextlib.suppress(json.JSONDecodeError):
            parse_json_markdown(text[:end])


# -- JsonOutputParser -------------------------------------------------------------------------


@FUZZ
@given(ANY_JSONISH)
def test_json_output_parser_gives_a_value_or_output_parser_exception(text: str) -> None:
    kind, value = one_shot(text)
    if kind == "value":
        assert canon(JSON_PARSER.parse_result([text], partial=True)) == value  # type: ignore[list-item]


def _document_text(d: Dice) -> str:
    return json_document(d)[1]


def _text_stream(d: Dice) -> tuple[str, list[str]]:
    text = d.pick([json_text, _mangled_document, _document_text])(d)
    return text, split(text, d)


@FUZZ
@given(dice(_text_stream))
def test_json_output_parser_streams_text_pieces_to_the_one_shot_outcome(
    case: tuple[str, list[str]],
) -> None:
    text, pieces = case
    assert streamed(pieces) == one_shot(text)


def _message_stream(d: Dice) -> tuple[str, list[AIMessageChunk]]:
    text = d.pick([json_text, _document_text])(d)
    return text, [AIMessageChunk(piece) for piece in split(text, d)]


@FUZZ
@given(dice(_message_stream))
def test_json_output_parser_streams_message_chunks_to_the_one_shot_outcome(
    case: tuple[str, list[AIMessageChunk]],
) -> None:
    text, chunks = case
    expected = one_shot(AIMessage(text))
    if expected == ("value", None):
        # A reply whose JSON is null ('{```null': the fence turns up after the '{'): a stream
        # never yields None (as LangChain's), so it cannot end on it; what it yielded before
        # came from earlier prefixes, which the partial-JSON tests above check.
        assert streamed(chunks)[0] == "value"
        return
    assert streamed(chunks) == expected


@FUZZ
@given(dice(lambda d: split(d.text(40), d)))
def test_str_output_parser_streams_every_piece_unchanged(pieces: list[str]) -> None:
    assert list(STR_PARSER.transform(iter(pieces))) == pieces
    chunks = [AIMessageChunk(p) for p in pieces]
    assert list(STR_PARSER.transform(iter(chunks))) == pieces
    assert STR_PARSER.invoke(AIMessage("".join(pieces))) == "".join(pieces)


# -- chunk merging ----------------------------------------------------------------------------

NAMES = ("search", "echo", "", "日本")
USAGE = {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}


def streamed_reply(d: Dice) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    """A reply cut into chunks the way a provider streams it, and the reply in one chunk.

    Text in pieces, then 0-3 tool calls whose arguments (JSON, cut short or near-valid
    garbage) arrive in pieces, interleaved between calls; the usage on the last chunk.
    """
    text = d.text(12)
    calls = []
    for index in range(d.below(4)):
        args = json.dumps({"q": json_value(d, 2)}) if d.below(3) else json_text(d)
        if d.coin():
            args = args[: d.below(256) * len(args) // 255]
        calls.append((d.pick(NAMES), f"call_{index}", index, args, split(args, d, 5)))
    chunks = [AIMessageChunk(piece, id="run-1") for piece in split(text, d, 5)]
    order = [i for i, call in enumerate(calls) for _ in call[4]]
    # Interleave: a stable shuffle that keeps each call's own pieces in order.
    order.sort(key=lambda i: d.below(4))
    started: set[int] = set()
    taken = [0] * len(calls)
    for i in order:
        name, call_id, index, _, pieces = calls[i]
        first = i not in started
        started.add(i)
        piece = pieces[taken[i]]
        taken[i] += 1
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
    chunks.append(AIMessageChunk("", usage_metadata=USAGE, chunk_position="last"))
    whole = AIMessageChunk(
        text,
        id="run-1",
        tool_call_chunks=[
            tool_call_chunk(name=calls[i][0], args=calls[i][3], id=calls[i][1], index=calls[i][2])
            for i in dict.fromkeys(order)
        ],
        usage_metadata=USAGE,
        chunk_position="last",
    )
    return chunks, whole


@FUZZ
@given(dice(streamed_reply))
def test_any_split_of_a_streamed_reply_adds_back_up_to_it(
    case: tuple[list[AIMessageChunk], AIMessageChunk],
) -> None:
    chunks, whole = case
    pairwise = functools.reduce(operator.add, chunks)
    at_once = chunks[0] + chunks[1:]
    for total in (pairwise, at_once):
        assert total == whole
        assert total.tool_calls == whole.tool_calls
        assert total.invalid_tool_calls == whole.invalid_tool_calls
    # Every call's arguments either parse to an object or are kept as an invalid call.
    assert len(whole.tool_calls) + len(whole.invalid_tool_calls) == len(whole.tool_call_chunks)


_META_VALUES: tuple[Any, ...] = (None, "a", "b", 1, 2, 1.5, True, ["x"], {"k": "v"}, {"k": 1})


def random_chunk(d: Dice) -> AIMessageChunk:
    """Any chunk: text or block content, arbitrary tool-call pieces, metadata of any type."""
    content: Any = d.text(4)
    if d.below(4) == 0:
        content = [
            d.pick(["a", {"type": "text", "text": d.text(2), "index": d.below(3)}])
            for _ in range(d.below(3))
        ]
    pieces = [
        tool_call_chunk(
            name=d.pick([None, *NAMES]),
            args=d.pick([None, json_text(d)]),
            id=d.pick([None, "", "c1", "c2"]),
            index=d.pick([None, 0, 1]),
        )
        for _ in range(d.below(3))
    ]
    metadata = {d.pick(["index", "id", "n", "model_name"]): d.pick(_META_VALUES) for _ in "ab"}
    return AIMessageChunk(
        content,
        tool_call_chunks=pieces,
        response_metadata=metadata,
        additional_kwargs={d.pick(["x", "index"]): d.pick(_META_VALUES)},
        id=d.pick([None, "lc_run-1", "msg_1"]),
        usage_metadata=d.pick([None, USAGE]),
        chunk_position=d.pick([None, "last"]),
    )


@FUZZ
@given(dice(lambda d: [random_chunk(d) for _ in range(1 + d.below(4))]))
def test_arbitrary_chunks_merge_or_raise_type_error(chunks: list[AIMessageChunk]) -> None:
    try:
        total = functools.reduce(operator.add, chunks)
    except TypeError as exc:
        error = str(exc)
    else:
        error = ""
    if error:
        # The one documented failure: a metadata key holding values that cannot be combined.
        assert "already exists" in error
        return
    assert isinstance(total, AIMessageChunk)
    assert len(total.tool_calls) + len(total.invalid_tool_calls) == len(total.tool_call_chunks)
    assert total == chunks[0] + chunks[1:]
