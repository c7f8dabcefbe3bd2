"""Standard content blocks through the real SDKs: replies read as blocks, blocks sent as input."""

from __future__ import annotations

from providers_support import last_body

from leanchain.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall

PARIS = ScriptedToolCall("get_weather", {"city": "Paris"}, id="call_A")
PARIS_BLOCK = {
    "type": "tool_call",
    "id": "call_A",
    "name": "get_weather",
    "args": {"city": "Paris"},
}
IMAGE = {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}


def test_an_openai_reply_reads_as_text_and_tool_call(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="Looking.", tool_calls=[PARIS]))
    reply = openai_model.invoke("Weather in Paris?")
    assert reply.content_blocks == [{"type": "text", "text": "Looking."}, PARIS_BLOCK]


def test_an_openai_stream_shows_chunks_then_the_call(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(tool_calls=[PARIS], chunk_size=8))
    chunks = list(openai_model.stream("Weather in Paris?"))
    pieces = [block for chunk in chunks[:-1] for block in chunk.content_blocks]
    assert {block["type"] for block in pieces} == {"tool_call_chunk"}
    assert "".join(str(block.get("args") or "") for block in pieces) == '{"city": "Paris"}'
    total = chunks[0] + chunks[1:]
    assert isinstance(total, AIMessageChunk)
    assert total.content_blocks == [PARIS_BLOCK]


def test_an_openai_refusal_is_a_refusal_block(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(refusal="I can't help with that."))
    reply = openai_model.invoke("?")
    assert reply.content_blocks == [{"type": "refusal", "refusal": "I can't help with that."}]


def test_an_anthropic_reply_reads_as_text_and_tool_call(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(text="Looking.", tool_calls=[PARIS]))
    reply = anthropic_model.invoke("Weather in Paris?")
    assert reply.response_metadata["model_provider"] == "anthropic"
    assert reply.content_blocks == [{"type": "text", "text": "Looking."}, PARIS_BLOCK]


def test_an_anthropic_refusal_is_a_refusal_block(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(refusal="Not this one."))
    reply = anthropic_model.invoke("?")
    assert reply.content_blocks == [
        {"type": "text", "text": "Not this one."},
        {"type": "refusal", "refusal": ""},
    ]


def _history() -> list[HumanMessage | AIMessage | ToolMessage]:
    return [
        HumanMessage(content_blocks=[{"type": "text", "text": "What is this?"}, IMAGE]),  # type: ignore[list-item]
        AIMessage(content_blocks=[{"type": "text", "text": "Checking."}, PARIS_BLOCK]),  # type: ignore[list-item]
        ToolMessage(content_blocks=[{"type": "text", "text": "Sunny"}], tool_call_id="call_A"),
    ]


def test_messages_built_from_blocks_go_to_openai(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="A cat in the sun."))
    openai_model.invoke(_history())
    assert last_body(server)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_A",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_A", "content": [{"type": "text", "text": "Sunny"}]},
    ]


def test_messages_built_from_blocks_go_to_anthropic(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(text="A cat in the sun."))
    anthropic_model.invoke(_history())
    messages = last_body(server)["messages"]
    assert messages[0] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is this?"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
            },
        ],
    }
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "call_A", "name": "get_weather", "input": {"city": "Paris"}},
        ],
    }
