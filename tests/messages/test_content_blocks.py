"""``content_blocks``: messages read and built as LangChain 1.x standard content blocks.

The expected values are what langchain-core 1.8 gives for the same messages, except where the
test says leanchain differs (no invented ``lc_`` ids, nothing dropped, no exception).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    ChatMessage,
    ContentBlock,
    FunctionMessage,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    ToolMessage,
    message_chunk_to_message,
    tool_call_chunk,
)

CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}
CALL_BLOCK = {"type": "tool_call", "id": "call_1", "name": "get_weather", "args": {"city": "Paris"}}


# -- text -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls", [HumanMessage, SystemMessage, AIMessage, AIMessageChunk, HumanMessageChunk]
)
def test_a_string_is_one_text_block(cls: Any) -> None:
    assert cls("Hello").content_blocks == [{"type": "text", "text": "Hello"}]


def test_empty_text_is_no_block() -> None:
    assert HumanMessage("").content_blocks == []
    assert AIMessage("").content_blocks == []
    assert AIMessage([]).content_blocks == []


def test_strings_in_a_list_are_text_blocks_and_standard_blocks_are_kept() -> None:
    content: list[Any] = [
        "a",
        {"type": "text", "text": "b", "id": "t1"},
        {"type": "text", "text": "c", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "d", "annotations": [{"type": "citation", "url": "https://x"}]},
    ]
    assert HumanMessage(content).content_blocks == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b", "id": "t1"},
        {"type": "text", "text": "c", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "d", "annotations": [{"type": "citation", "url": "https://x"}]},
    ]


def test_every_kind_of_message_reads_its_content() -> None:
    blocks = [{"type": "text", "text": "r"}]
    assert ToolMessage("r", tool_call_id="c").content_blocks == blocks
    assert ToolMessage([{"type": "text", "text": "r"}], tool_call_id="c").content_blocks == blocks
    assert ChatMessage("r", role="critic").content_blocks == blocks
    assert FunctionMessage("r", name="f").content_blocks == blocks


def test_the_blocks_are_copies() -> None:
    message = HumanMessage([{"type": "text", "text": "a"}])
    block = message.content_blocks[0]
    assert block["type"] == "text"
    block["text"] = "changed"
    assert message.content == [{"type": "text", "text": "a"}]
    assert message.content_blocks == [{"type": "text", "text": "a"}]


def test_unknown_blocks_are_non_standard_and_a_bare_text_part_is_text() -> None:
    content: list[Any] = [
        {"type": "tool_result", "tool_use_id": "x", "content": "r"},
        {"bar": 1},
        {"text": "from gemini"},
        {"type": "non_standard", "value": {"x": 1}},
    ]
    assert HumanMessage(content).content_blocks == [
        {
            "type": "non_standard",
            "value": {"type": "tool_result", "tool_use_id": "x", "content": "r"},
        },
        {"type": "non_standard", "value": {"bar": 1}},
        {"type": "text", "text": "from gemini"},
        {"type": "non_standard", "value": {"x": 1}},
    ]


# -- multimodal input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            {"type": "image", "url": "https://x/y.png"},
        ),
        (
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "image", "mime_type": "image/png", "base64": "AAAA"},
        ),
        (
            {"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "high"}},
            {"type": "image", "url": "https://x/y.png", "extras": {"detail": "high"}},
        ),
        (
            {"type": "image_url", "image_url": {"url": "data:nope"}},
            {"type": "image", "url": "data:nope"},
        ),
        (
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            {"type": "audio", "base64": "AAAA", "mime_type": "audio/wav"},
        ),
        (
            {
                "type": "file",
                "file": {"file_data": "data:application/pdf;base64,AAAA", "filename": "a.pdf"},
            },
            {
                "type": "file",
                "base64": "AAAA",
                "mime_type": "application/pdf",
                "extras": {"filename": "a.pdf"},
            },
        ),
        ({"type": "file", "file": {"file_id": "file-1"}}, {"type": "file", "file_id": "file-1"}),
    ],
)
def test_openai_input_parts_become_data_blocks(
    block: dict[str, Any], expected: dict[str, Any]
) -> None:
    # LangChain also gives each of these a new "lc_<uuid>" id on every read; leanchain invents
    # no id, so that reading a message twice gives equal blocks.
    message = HumanMessage([block])
    assert message.content_blocks == [expected]
    assert message.content_blocks == message.content_blocks


@pytest.mark.parametrize(
    "block",
    [
        {"type": "image_url", "image_url": "https://x"},
        {"type": "image_url", "image_url": {"url": "u", "foo": 1}, "bar": 2},
        {"type": "input_audio", "input_audio": {"data": "AAAA"}},
        {"type": "file", "file": {"filename": "a.pdf"}},
    ],
)
def test_openai_parts_of_another_shape_are_non_standard(block: dict[str, Any]) -> None:
    assert HumanMessage([block]).content_blocks == [{"type": "non_standard", "value": block}]


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            {"type": "image", "source_type": "url", "url": "https://x", "mime_type": "image/png"},
            {"type": "image", "url": "https://x", "mime_type": "image/png"},
        ),
        (
            {"type": "image", "source_type": "base64", "data": "AA", "mime_type": "image/png"},
            {"type": "image", "base64": "AA", "mime_type": "image/png"},
        ),
        (
            {"type": "image", "source_type": "url", "url": "u", "detail": "low", "x": None},
            {"type": "image", "url": "u", "extras": {"detail": "low"}},
        ),
        (
            {"type": "audio", "source_type": "base64", "data": "AA", "mime_type": "audio/wav"},
            {"type": "audio", "base64": "AA", "mime_type": "audio/wav"},
        ),
        (
            {"type": "file", "source_type": "id", "id": "file_1"},
            {"type": "file", "file_id": "file_1"},
        ),
        # LangChain raises TypeError on the next two; they read as their standard forms here.
        (
            {
                "type": "image",
                "source_type": "base64",
                "data": "AA",
                "mime_type": "image/png",
                "id": "b1",
                "cache_control": {"type": "ephemeral"},
            },
            {
                "type": "image",
                "id": "b1",
                "base64": "AA",
                "mime_type": "image/png",
                "extras": {"cache_control": {"type": "ephemeral"}},
            },
        ),
        (
            {"type": "file", "source_type": "text", "text": "hello", "mime_type": "text/plain"},
            {"type": "text-plain", "text": "hello", "mime_type": "text/plain"},
        ),
    ],
)
def test_langchain_v0_blocks_become_v1_blocks(
    block: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert HumanMessage([block]).content_blocks == [expected]


def test_a_v0_block_with_an_unknown_source_is_non_standard() -> None:
    # LangChain passes it on as an "image" block that is not one.
    block = {"type": "image", "source_type": "weird", "data": "AA"}
    assert HumanMessage([block]).content_blocks == [{"type": "non_standard", "value": block}]


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A"}},
            {"type": "image", "base64": "A", "mime_type": "image/png"},
        ),
        (
            {"type": "image", "source": {"type": "url", "url": "https://x"}},
            {"type": "image", "url": "https://x"},
        ),
        (
            {"type": "image", "source": {"type": "file", "file_id": "file_9"}},
            {"type": "image", "file_id": "file_9"},
        ),
        (
            {
                "type": "document",
                "source": {"type": "base64", "data": "AA", "media_type": "application/pdf"},
                "cache_control": {"type": "ephemeral"},
            },
            {
                "type": "file",
                "base64": "AA",
                "mime_type": "application/pdf",
                "extras": {"cache_control": {"type": "ephemeral"}},
            },
        ),
        (
            {"type": "document", "source": {"type": "text", "data": "hello"}, "title": "T"},
            {
                "type": "text-plain",
                "text": "hello",
                "mime_type": "text/plain",
                "extras": {"title": "T"},
            },
        ),
        (
            {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}},
            {"type": "file", "url": "https://x/a.pdf"},
        ),
    ],
)
def test_anthropic_input_blocks_become_data_blocks(
    block: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert HumanMessage([block]).content_blocks == [expected]


def test_an_anthropic_image_without_its_media_type_is_non_standard() -> None:
    block = {"type": "image", "source": {"type": "base64", "data": "AA"}}
    assert HumanMessage([block]).content_blocks == [{"type": "non_standard", "value": block}]


def test_standard_data_blocks_are_kept() -> None:
    blocks: list[Any] = [
        {"type": "image", "url": "https://x/y.png"},
        {"type": "image", "base64": "AAAA", "mime_type": "image/png"},
        {"type": "audio", "base64": "AAAA", "mime_type": "audio/wav"},
        {"type": "file", "base64": "AAAA", "mime_type": "application/pdf"},
        {"type": "video", "url": "https://x/v.mp4"},
        {"type": "text-plain", "text": "notes", "mime_type": "text/plain"},
    ]
    assert HumanMessage(blocks).content_blocks == blocks


# -- model replies ----------------------------------------------------------------------------


def test_a_reply_adds_its_tool_calls_after_the_text() -> None:
    assert AIMessage("", tool_calls=[CALL]).content_blocks == [CALL_BLOCK]
    assert AIMessage("Let me look.", tool_calls=[CALL]).content_blocks == [
        {"type": "text", "text": "Let me look."},
        CALL_BLOCK,
    ]


def test_a_call_already_in_the_content_is_not_repeated() -> None:
    second = {"name": "g", "args": {}, "id": "call_2"}
    message = AIMessage([dict(CALL_BLOCK)], tool_calls=[CALL, second])
    assert message.content_blocks == [
        CALL_BLOCK,
        {"type": "tool_call", "id": "call_2", "name": "g", "args": {}},
    ]


def test_a_call_without_an_id_is_kept() -> None:
    # LangChain leaves out a tool call whose id is None; a block per call is kept here.
    message = AIMessage("x", tool_calls=[{"name": "f", "args": {}, "id": None}])
    assert message.content_blocks == [
        {"type": "text", "text": "x"},
        {"type": "tool_call", "id": None, "name": "f", "args": {}},
    ]


def test_invalid_tool_calls_are_not_blocks() -> None:
    bad = {"name": "f", "args": "{x", "id": "c1", "error": "bad"}
    assert AIMessage("", invalid_tool_calls=[bad]).content_blocks == []


def test_reasoning_content_comes_first() -> None:
    message = AIMessage(
        "42", additional_kwargs={"reasoning_content": "6 times 7"}, tool_calls=[CALL]
    )
    assert message.content_blocks == [
        {"type": "reasoning", "reasoning": "6 times 7"},
        {"type": "text", "text": "42"},
        CALL_BLOCK,
    ]
    reasoned = AIMessage(
        [{"type": "reasoning", "reasoning": "mine"}],
        additional_kwargs={"reasoning_content": "other"},
    )
    assert reasoned.content_blocks == [{"type": "reasoning", "reasoning": "mine"}]


def test_a_streamed_piece_shows_its_tool_call_chunks() -> None:
    piece = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args='{"a"', id="c1", index=0)]
    )
    assert piece.content_blocks == [
        {"type": "tool_call_chunk", "id": "c1", "name": "f", "args": '{"a"', "index": 0}
    ]
    no_index = AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args="1}")])
    assert no_index.content_blocks == [
        {"type": "tool_call_chunk", "id": None, "name": None, "args": "1}"}
    ]
    reasoning = AIMessageChunk("", additional_kwargs={"reasoning_content": "r"})
    assert reasoning.content_blocks == [{"type": "reasoning", "reasoning": "r"}]


def test_a_piece_with_text_or_the_last_piece_shows_the_calls() -> None:
    with_text = AIMessageChunk(
        "hi", tool_call_chunks=[tool_call_chunk(name="f", args='{"a"', id="c1", index=0)]
    )
    assert with_text.content_blocks == [
        {"type": "text", "text": "hi"},
        {"type": "tool_call", "id": "c1", "name": "f", "args": {}},
    ]
    pieces = [
        AIMessageChunk(
            "", tool_call_chunks=[tool_call_chunk(name="f", args='{"a":', id="c1", index=0)]
        ),
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args=" 1}", index=0)]),
        AIMessageChunk("", chunk_position="last"),
    ]
    summed = pieces[0] + pieces[1:]
    expected = [{"type": "tool_call", "id": "c1", "name": "f", "args": {"a": 1}}]
    assert summed.content_blocks == expected
    assert message_chunk_to_message(summed).content_blocks == expected


def test_openai_replies() -> None:
    meta = {"model_provider": "openai"}
    message = AIMessage(
        "hi", tool_calls=[CALL], response_metadata=meta, additional_kwargs={"refusal": "no"}
    )
    assert message.content_blocks == [
        {"type": "text", "text": "hi"},
        CALL_BLOCK,
        {"type": "refusal", "refusal": "no"},
    ]
    assert AIMessage("", response_metadata=meta).content_blocks == []
    piece = AIMessageChunk(
        "x",
        tool_call_chunks=[tool_call_chunk(name="f", args='{"a"', id="c1", index=0)],
        response_metadata=meta,
    )
    assert piece.content_blocks == [
        {"type": "text", "text": "x"},
        {"type": "tool_call_chunk", "id": "c1", "name": "f", "args": '{"a"', "index": 0},
    ]
    last = AIMessageChunk(
        "",
        tool_call_chunks=[tool_call_chunk(name="f", args='{"a": 1}', id="c1", index=0)],
        chunk_position="last",
        response_metadata=meta,
    )
    assert last.content_blocks == [{"type": "tool_call", "id": "c1", "name": "f", "args": {"a": 1}}]


ANTHROPIC = {"model_provider": "anthropic"}


def test_anthropic_replies_with_thinking_citations_and_tool_use() -> None:
    citation = {
        "type": "char_location",
        "cited_text": "c",
        "document_index": 0,
        "document_title": "T",
        "start_char_index": 1,
        "end_char_index": 2,
    }
    web = {
        "type": "web_search_result_location",
        "cited_text": "w",
        "url": "https://w",
        "title": "W",
    }
    message = AIMessage(
        [
            {"type": "thinking", "thinking": "Paris first.", "signature": "sig"},
            {"type": "text", "text": "Looking.", "citations": [citation, web, {"type": "odd"}]},
            {"type": "redacted_thinking", "data": "xx"},
            {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "P"}},
        ],
        tool_calls=[CALL],
        response_metadata=ANTHROPIC,
    )
    assert message.content_blocks == [
        {"type": "reasoning", "reasoning": "Paris first.", "extras": {"signature": "sig"}},
        {
            "type": "text",
            "text": "Looking.",
            "annotations": [
                {
                    "type": "citation",
                    "cited_text": "c",
                    "title": "T",
                    "extras": {"document_index": 0, "start_char_index": 1, "end_char_index": 2},
                },
                {"type": "citation", "cited_text": "w", "url": "https://w", "title": "W"},
                {"type": "non_standard_annotation", "value": {"type": "odd"}},
            ],
        },
        {"type": "non_standard", "value": {"type": "redacted_thinking", "data": "xx"}},
        CALL_BLOCK,  # the parsed call, not the block's raw input
    ]


def test_anthropic_tool_use_without_a_parsed_call_and_indexes() -> None:
    message = AIMessage(
        [
            {"type": "tool_use", "id": "c9", "name": "g", "input": {"z": 1}, "index": 3},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"u": 1}]},
            {"type": "mystery", "index": 5},
        ],
        response_metadata=ANTHROPIC,
    )
    assert message.content_blocks == [
        {"type": "tool_call", "id": "c9", "name": "g", "args": {"z": 1}, "index": 3},
        {
            "type": "server_tool_result",
            "tool_call_id": "s1",
            "status": "success",
            "extras": {"block_type": "web_search_tool_result"},
            "output": [{"u": 1}],
        },
        {"type": "non_standard", "value": {"type": "mystery"}, "index": 5},
    ]
    assert message.content[2] == {"type": "mystery", "index": 5}  # not changed by the read


def test_anthropic_server_tool_use() -> None:
    message = AIMessage(
        [{"type": "server_tool_use", "id": "s1", "name": "code_execution", "input": {"c": "1"}}],
        response_metadata=ANTHROPIC,
    )
    assert message.content_blocks == [
        {"type": "server_tool_call", "name": "code_interpreter", "args": {"c": "1"}, "id": "s1"}
    ]


def test_an_anthropic_refusal_from_the_stop_reason() -> None:
    message = AIMessage(
        [{"type": "text", "text": "t"}],
        response_metadata={**ANTHROPIC, "stop_reason": "refusal"},
    )
    assert message.content_blocks == [
        {"type": "text", "text": "t"},
        {"type": "refusal", "refusal": ""},
    ]


def test_an_anthropic_reply_with_text_content_keeps_its_tool_calls() -> None:
    # ChatAnthropic keeps a text-and-tool-use reply's content a string; LangChain's Anthropic
    # rules would read it as the text alone and lose the call.
    message = AIMessage("Looking.", tool_calls=[CALL], response_metadata=ANTHROPIC)
    assert message.content_blocks == [{"type": "text", "text": "Looking."}, CALL_BLOCK]


def test_anthropic_streamed_pieces() -> None:
    start = AIMessageChunk(
        [{"type": "tool_use", "id": "c1", "name": "f", "input": {}, "index": 0}],
        tool_call_chunks=[tool_call_chunk(name="f", args="", id="c1", index=0)],
        response_metadata=ANTHROPIC,
    )
    assert start.content_blocks == [
        {"type": "tool_call_chunk", "id": "c1", "name": "f", "args": "", "index": 0}
    ]
    delta = AIMessageChunk(
        [{"type": "input_json_delta", "partial_json": '{"a"', "index": 0}],
        tool_call_chunks=[tool_call_chunk(args='{"a"', index=0)],
        response_metadata=ANTHROPIC,
    )
    assert delta.content_blocks == [
        {"type": "tool_call_chunk", "id": None, "name": None, "args": '{"a"', "index": 0}
    ]


def test_v1_output_is_taken_as_it_is() -> None:
    content: list[Any] = [{"type": "text", "text": "x"}, {"type": "weird"}, "y"]
    message = AIMessage(content, response_metadata={"output_version": "v1"})
    assert message.content_blocks == [
        {"type": "text", "text": "x"},
        {"type": "weird"},
        {"type": "text", "text": "y"},
    ]
    text = AIMessage("x", response_metadata={"output_version": "v1"})
    assert text.content_blocks == [{"type": "text", "text": "x"}]


# -- building messages from blocks ------------------------------------------------------------


def test_messages_are_built_from_standard_blocks() -> None:
    image: ContentBlock = {"type": "image", "base64": "AA", "mime_type": "image/png"}
    text: ContentBlock = {"type": "text", "text": "What is this?"}
    message = HumanMessage(content_blocks=[text, image])
    assert message == HumanMessage(
        [
            {"type": "text", "text": "What is this?"},
            {"type": "image", "base64": "AA", "mime_type": "image/png"},
        ]
    )
    assert message.content_blocks == [text, image]
    assert SystemMessage(content_blocks=[text]).content == [text]
    tool = ToolMessage(content_blocks=[{"type": "text", "text": "y"}], tool_call_id="c")
    assert tool == ToolMessage([{"type": "text", "text": "y"}], tool_call_id="c")
    assert AIMessage(content_blocks=[]) == AIMessage([])


def test_a_reply_built_from_blocks_gets_their_tool_calls() -> None:
    message = AIMessage(content_blocks=[{"type": "text", "text": "x"}, CALL_BLOCK])  # type: ignore[list-item]
    assert message.tool_calls == [{**CALL, "type": "tool_call"}]
    assert message.content == [{"type": "text", "text": "x"}, CALL_BLOCK]
    assert message.content_blocks == [{"type": "text", "text": "x"}, CALL_BLOCK]
    given = AIMessage(content_blocks=[CALL_BLOCK], tool_calls=[])  # type: ignore[list-item]
    assert given.tool_calls == []
    chunk = AIMessageChunk(content_blocks=[CALL_BLOCK])  # type: ignore[list-item]
    assert chunk.tool_calls == [{**CALL, "type": "tool_call"}]
    assert chunk.tool_call_chunks == [
        {
            "name": "get_weather",
            "args": '{"city": "Paris"}',
            "id": "call_1",
            "index": None,
            "type": "tool_call_chunk",
        }
    ]


def test_content_blocks_win_over_content() -> None:
    message = HumanMessage("x", content_blocks=[{"type": "text", "text": "y"}])
    assert message.content == [{"type": "text", "text": "y"}]
    assert HumanMessage("x", content_blocks=None).content == "x"


def test_the_blocks_given_are_copied() -> None:
    block: dict[str, Any] = {"type": "text", "text": "a"}
    message = HumanMessage(content_blocks=[block])  # type: ignore[list-item]
    block["text"] = "changed"
    assert message.content == [{"type": "text", "text": "a"}]


@pytest.mark.parametrize("blocks", ["text", 3])
def test_content_blocks_must_be_a_list(blocks: Any) -> None:
    with pytest.raises(TypeError) as caught:
        HumanMessage(content_blocks=blocks)
    assert str(caught.value) == (
        f"content_blocks must be a list of content blocks (dicts), got {type(blocks).__name__}"
    )


def test_the_block_readers_and_types_load_on_first_use() -> None:
    code = (
        "import sys\n"
        "from leanchain.messages import AIMessage, HumanMessage\n"
        "message = HumanMessage([{'type': 'image_url', 'image_url': {'url': 'https://x'}}])\n"
        "AIMessage('x')\n"
        "lazy = ['leanchain.messages._blocks', 'leanchain.messages._anthropic_blocks',\n"
        "        'leanchain.messages._block_types']\n"
        "assert not [name for name in lazy if name in sys.modules], sys.modules.keys()\n"
        "assert message.content_blocks == [{'type': 'image', 'url': 'https://x'}]\n"
        "assert all(name in sys.modules for name in lazy)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_every_block_type_is_exported() -> None:
    import leanchain.messages as messages
    from leanchain.messages import _block_types

    assert set(_block_types.__all__) - {"KNOWN_BLOCK_TYPES"} <= set(messages.__all__)
    for name in _block_types.__all__:
        if name != "KNOWN_BLOCK_TYPES":
            assert getattr(messages, name) is getattr(_block_types, name)


def test_a_call_blocks_index_and_extras_stay_in_the_content() -> None:
    block = {**CALL_BLOCK, "index": 0, "extras": {"caller": "x"}}
    message = AIMessage(content_blocks=[block])  # type: ignore[list-item]
    assert message.tool_calls == [{**CALL, "type": "tool_call"}]
    assert message.content == [block]
