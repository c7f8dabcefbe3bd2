"""The stream readers over any chunking, interleaving and compatible-server quirk (property tests).

The events are the SDKs' own types, validated from the JSON a server would send; nothing of the
SDK is mocked.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from anthropic.types import (
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawMessageStartEvent,
    RawMessageStreamEvent,
    TextBlock,
    TextDelta,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionChunk
from pydantic import TypeAdapter

from leanchain.messages import AIMessageChunk
from leanchain.providers._anthropic_reply import AnthropicStreamReader
from leanchain.providers._openai_reply import OpenAIStreamReader

ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
arguments = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
calls = st.lists(
    st.tuples(st.sampled_from(["get_weather", "get_time", "search"]), arguments),
    min_size=1,
    max_size=4,
)


def cut(text: str, cuts: list[int]) -> list[str]:
    """`text` cut at the given positions (modulo its length), keeping every character."""
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a] or [""]


def merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    return chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]


def openai_chunk(delta: dict[str, Any], finish: str | None = None) -> Any:
    return ChatCompletionChunk.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


@settings(max_examples=60, deadline=None)
@given(
    calls=calls,
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=6),
    order=st.randoms(use_true_random=False),
    quirk=st.sampled_from(["standard", "repeat", "no_index", "missing_id"]),
)
def test_openai_reader_rebuilds_any_interleaving_of_calls(
    calls: list[tuple[str, dict[str, Any]]], cuts: list[int], order: Any, quirk: str
) -> None:
    queues = []
    for index, (name, args) in enumerate(calls):
        call_id = None if quirk == "missing_id" else f"call_{index}"
        pieces = cut(json.dumps(args), cuts)
        deltas = []
        for position, piece in enumerate(pieces):
            first = position == 0
            delta: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if first or quirk in ("repeat", "no_index"):
                delta["function"]["name"] = name
                if call_id is not None:
                    delta["id"] = call_id
                delta["type"] = "function"
            deltas.append(delta)
        queues.append(deltas)
    events = [openai_chunk({"role": "assistant", "content": "Checking."})]
    # Interleave the calls' fragments: each call's own fragments in order, and the calls
    # starting in index order (as servers number them).
    started = 0
    while any(queues):
        ready = [q for q in queues[: started + 1] if q]
        queue = order.choice(ready)
        if started < len(queues) and queue is queues[started]:
            started += 1
        event = openai_chunk({"tool_calls": [queue.pop(0)]})
        if quirk == "no_index":
            # The SDK builds stream events without validation, so a server's null index
            # arrives as None (validation would refuse it).
            object.__setattr__(event.choices[0].delta.tool_calls[0], "index", None)
        events.append(event)
    events.append(openai_chunk({}, finish="tool_calls"))
    reader = OpenAIStreamReader()
    chunks = [chunk for event in events if (chunk := reader.read(event)) is not None]
    whole = merged([*chunks, reader.finish()])
    assert whole.content == "Checking."
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == calls
    assert whole.invalid_tool_calls == []
    ids = [c["id"] for c in whole.tool_calls]
    if quirk == "missing_id":
        assert all(i is not None and i.startswith("call_") for i in ids)
        assert len(set(ids)) == len(ids)
    else:
        assert ids == [f"call_{i}" for i in range(len(calls))]
    assert whole.response_metadata["finish_reason"] == "tool_calls"


def anthropic_events(calls: list[tuple[str, dict[str, Any]]], cuts: list[int]) -> list[Any]:
    raw: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 7, "output_tokens": 1, "cache_read_input_tokens": 3},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hm."}},
        {"type": "content_block_stop", "index": 0},
    ]
    for number, (name, args) in enumerate(calls, start=1):
        block = {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": {}}
        raw.append({"type": "content_block_start", "index": number, "content_block": block})
        for piece in ["", *cut(json.dumps(args), cuts)]:
            delta = {"type": "input_json_delta", "partial_json": piece}
            raw.append({"type": "content_block_delta", "index": number, "delta": delta})
        raw.append({"type": "content_block_stop", "index": number})
    raw.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 42},
        }
    )
    raw.append({"type": "message_stop"})
    return [ANTHROPIC_EVENT.validate_python(event) for event in raw]


@settings(max_examples=60, deadline=None)
@given(calls=calls, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=6))
def test_anthropic_reader_rebuilds_any_chunking_of_calls(
    calls: list[tuple[str, dict[str, Any]]], cuts: list[int]
) -> None:
    reader = AnthropicStreamReader()
    events = anthropic_events(calls, cuts)
    chunks = [chunk for event in events if (chunk := reader.read(event)) is not None]
    whole = merged([*chunks, reader.finish()])
    assert whole.content == "Hm."
    assert [(c["name"], c["args"], c["id"]) for c in whole.tool_calls] == [
        (name, args, f"toolu_{number}") for number, (name, args) in enumerate(calls, start=1)
    ]
    assert [piece["index"] for piece in whole.tool_call_chunks] == list(range(len(calls)))
    assert whole.usage_metadata == {
        "input_tokens": 10,
        "output_tokens": 42,
        "total_tokens": 52,
        "input_token_details": {"cache_read": 3},
    }


def test_anthropic_unknown_events_and_blocks_are_ignored() -> None:
    # The SDK builds an unknown event as the first class of the union with the unknown type
    # (provider-wire.md §3.4); model_construct makes exactly such objects.
    reader = AnthropicStreamReader()
    unknown: dict[str, Any] = {"type": "future_event"}
    block: dict[str, Any] = {"type": "future_block", "text": ""}
    delta: dict[str, Any] = {"type": "future_delta", "text": "x"}
    events = [
        RawMessageStartEvent.model_construct(**unknown),
        RawContentBlockStartEvent.model_construct(
            type="content_block_start", index=0, content_block=TextBlock.model_construct(**block)
        ),
        RawContentBlockDeltaEvent.model_construct(
            type="content_block_delta", index=0, delta=TextDelta.model_construct(**delta)
        ),
    ]
    assert [reader.read(event) for event in events] == [None, None, None]
    assert reader.id is None


def test_openai_usage_only_chunk_and_empty_deltas_yield_nothing() -> None:
    reader = OpenAIStreamReader()
    usage_chunk = ChatCompletionChunk.model_validate(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    )
    assert reader.read(openai_chunk({"role": "assistant", "content": ""})) is None
    assert reader.read(openai_chunk({}, finish="stop")) is None
    assert reader.read(usage_chunk) is None
    assert reader.finish() == AIMessageChunk(
        "",
        response_metadata={"model_provider": "openai", "model_name": "m", "finish_reason": "stop"},
        id="chatcmpl-1",
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        chunk_position="last",
    )
