"""Properties of ``content_blocks``: any content reads, never fails, never changes the message.

Content here is anything a message may hold: strings and dicts whose types, keys and nested
values are drawn from the shapes the readers look for (OpenAI, Anthropic, LangChain v0 and v1)
and from everything else.
"""

from __future__ import annotations

import copy
from typing import Any, get_args, get_type_hints

from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    ContentBlock,
    HumanMessage,
    tool_call_chunk,
)
from leanchain.messages._block_types import KNOWN_BLOCK_TYPES

TYPES = [
    *sorted(KNOWN_BLOCK_TYPES),
    "image_url",
    "input_audio",
    "document",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "input_json_delta",
    "server_tool_use",
    "mcp_tool_use",
    "web_search_tool_result",
    "mystery",
]
KEYS = [
    "type",
    "text",
    "url",
    "data",
    "base64",
    "mime_type",
    "media_type",
    "source_type",
    "source",
    "image_url",
    "input_audio",
    "file",
    "file_id",
    "file_data",
    "filename",
    "format",
    "id",
    "index",
    "detail",
    "thinking",
    "signature",
    "citations",
    "input",
    "partial_json",
    "name",
    "tool_use_id",
    "content",
    "is_error",
    "extras",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["", "a", "data:image/png;base64,AAAA", "data:x", "https://x", "base64"]),
    st.sampled_from(TYPES),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    ),
    max_leaves=8,
)
blocks = st.dictionaries(st.sampled_from(KEYS), values, max_size=5) | st.builds(
    lambda kind, rest: {"type": kind, **rest},
    st.sampled_from(TYPES),
    st.dictionaries(st.sampled_from(KEYS[1:]), values, max_size=4),
)
contents = st.one_of(
    st.text(max_size=5), st.lists(st.one_of(st.text(max_size=3), blocks), max_size=5)
)
metadata = st.sampled_from(
    [{}, {"model_provider": "openai"}, {"model_provider": "anthropic"}, {"output_version": "v1"}]
)

STANDARD_TYPES = {
    args[0]
    for block_type in get_args(ContentBlock)
    for args in [get_args(get_type_hints(block_type)["type"])]
    if args
}


def _check(message: Any) -> None:
    before = copy.deepcopy(message.content)
    first = message.content_blocks
    assert message.content == before
    assert message.content_blocks == first
    if message.response_metadata.get("output_version") == "v1" and isinstance(before, list):
        # v1 output is standard content already: taken as it is, strings as text blocks.
        assert first == [{"type": "text", "text": b} if isinstance(b, str) else b for b in before]
        return
    for block in first:
        assert isinstance(block, dict)
        assert block["type"] in KNOWN_BLOCK_TYPES


@settings(max_examples=300, deadline=None)
@given(contents)
def test_any_human_content_reads_into_standard_blocks(content: Any) -> None:
    _check(HumanMessage(content))


@settings(max_examples=300, deadline=None)
@given(contents, metadata, st.booleans())
def test_any_reply_reads_into_standard_blocks(content: Any, meta: Any, with_call: bool) -> None:
    calls = [{"name": "f", "args": {"a": 1}, "id": "c1"}] if with_call else []
    _check(AIMessage(content, response_metadata=meta, tool_calls=calls))
    chunks = [tool_call_chunk(name="f", args='{"a"', id="c1", index=0)] if with_call else []
    _check(AIMessageChunk(content, response_metadata=meta, tool_call_chunks=chunks))


def _texts(content: Any) -> list[str]:
    """The texts a reply's content holds: strings, text blocks, bare ``{"text": ...}`` parts."""
    if isinstance(content, str):
        return [content] if content else []
    texts = []
    for item in content:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item.get("text"), str) and (
            item.get("type") == "text" or (len(item) == 1 and item["text"])
        ):
            texts.append(item["text"])
    return texts


@settings(max_examples=300, deadline=None)
@given(contents, st.booleans())
def test_no_text_and_no_tool_call_is_dropped(content: Any, with_call: bool) -> None:
    calls = [{"name": "f", "args": {"a": 1}, "id": "c1"}] if with_call else []
    read = AIMessage(content, tool_calls=calls).content_blocks
    texts = [b["text"] for b in read if b["type"] == "text" and isinstance(b.get("text"), str)]
    assert texts == _texts(content)
    if with_call:
        assert {"type": "tool_call", "id": "c1", "name": "f", "args": {"a": 1}} in read


def test_the_standard_types_are_the_known_types() -> None:
    assert STANDARD_TYPES == KNOWN_BLOCK_TYPES
