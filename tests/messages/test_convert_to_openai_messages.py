"""convert_to_openai_messages: the exact OpenAI Chat Completions dicts for each message form."""

from __future__ import annotations

import json
from typing import Any

import pytest

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_openai_messages,
    invalid_tool_call,
    tool_call,
)

IMAGE = "iVBORw0KGgo="


def test_one_message_gives_one_dict() -> None:
    assert convert_to_openai_messages(HumanMessage("Hello")) == {"role": "user", "content": "Hello"}
    assert convert_to_openai_messages("Hi") == {"role": "user", "content": "Hi"}
    assert convert_to_openai_messages({"role": "assistant", "content": "Yo"}) == {
        "role": "assistant",
        "content": "Yo",
    }
    assert convert_to_openai_messages(HumanMessage("")) == {"role": "user", "content": ""}
    assert convert_to_openai_messages([]) == []


def test_roles() -> None:
    messages: list[BaseMessage] = [
        SystemMessage("System message"),
        SystemMessage("a", additional_kwargs={"__openai_role__": "developer"}),
        HumanMessage("Human message", name="ann"),
        AIMessage("AI message"),
        ToolMessage("Tool result", tool_call_id="123"),
        FunctionMessage("42", name="answer"),
        ChatMessage("Looks fine.", role="critic"),
        AIMessageChunk("chunk"),
    ]
    assert convert_to_openai_messages(messages) == [
        {"role": "system", "content": "System message"},
        {"role": "developer", "content": "a"},
        {"role": "user", "name": "ann", "content": "Human message"},
        {"role": "assistant", "content": "AI message"},
        {"role": "tool", "tool_call_id": "123", "content": "Tool result"},
        {"role": "function", "name": "answer", "content": "42"},
        {"role": "critic", "content": "Looks fine."},
        {"role": "assistant", "content": "chunk"},
    ]
    assert convert_to_openai_messages([{"role": "developer", "content": "a"}]) == [
        {"role": "developer", "content": "a"}
    ]


def test_text_formats() -> None:
    messages = [
        HumanMessage([{"type": "text", "text": "Hello"}, {"type": "text", "text": "World"}]),
        AIMessage([{"type": "text", "text": "Hi"}, "there"]),
        AIMessage(""),
    ]
    assert convert_to_openai_messages(messages) == [
        {"role": "user", "content": "Hello\nWorld"},
        {"role": "assistant", "content": "Hi\nthere"},
        {"role": "assistant", "content": ""},
    ]
    assert convert_to_openai_messages(messages, text_format="block") == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": "World"}],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "there"}],
        },
        {"role": "assistant", "content": []},
    ]
    assert convert_to_openai_messages([HumanMessage("Hello")], text_format="block") == [
        {"role": "user", "content": [{"type": "text", "text": "Hello"}]}
    ]


def test_tool_calls_and_ids() -> None:
    reply = AIMessage(
        "",
        id="msg-1",
        tool_calls=[tool_call(name="weather", args={"city": "Zürich"}, id="c1")],
        invalid_tool_calls=[invalid_tool_call(name="search", args="{bad", id="c2", error="nope")],
        additional_kwargs={"refusal": "I won't."},
    )
    expected = {
        "role": "assistant",
        "tool_calls": [
            {
                "type": "function",
                "id": "c1",
                "function": {"name": "weather", "arguments": '{"city": "Zürich"}'},
            },
            {"type": "function", "id": "c2", "function": {"name": "search", "arguments": "{bad"}},
        ],
        "refusal": "I won't.",
        "content": "",
    }
    assert convert_to_openai_messages(reply) == expected
    assert convert_to_openai_messages(reply, include_id=True) == {**expected, "id": "msg-1"}
    assert json.dumps(convert_to_openai_messages(reply)) == json.dumps(expected)  # key order


def test_images_in_every_spelling() -> None:
    url = "https://example.com/cat.png"
    data_url = f"data:image/png;base64,{IMAGE}"
    message = HumanMessage(
        [
            "Text message",
            {"type": "text", "text": "Structured text", "cache_control": {"type": "ephemeral"}},
            {"type": "image_url", "image_url": {"url": url, "detail": "low"}},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": IMAGE},
            },
            {"type": "image", "source": {"type": "url", "url": url}},
            {"type": "image", "url": url},
            {"type": "image", "base64": IMAGE, "mime_type": "image/png"},
            {"type": "image", "source_type": "base64", "data": IMAGE, "mime_type": "image/png"},
            {"type": "image", "source_type": "url", "url": url},
        ]
    )
    assert convert_to_openai_messages(message) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Text message"},
            {"type": "text", "text": "Structured text"},
            {"type": "image_url", "image_url": {"url": url, "detail": "low"}},
            {"type": "image_url", "image_url": {"url": data_url}},
            {"type": "image_url", "image_url": {"url": url}},
            {"type": "image_url", "image_url": {"url": url}},
            {"type": "image_url", "image_url": {"url": data_url}},
            {"type": "image_url", "image_url": {"url": data_url}},
            {"type": "image_url", "image_url": {"url": url}},
        ],
    }


def test_audio_files_and_json() -> None:
    audio = {"type": "input_audio", "input_audio": {"data": "AAA", "format": "wav"}}
    openai_file = {"type": "file", "file": {"file_id": "file-1"}}
    message = HumanMessage(
        [
            audio,
            {"type": "audio", "base64": "AAA", "mime_type": "audio/wav"},
            openai_file,
            {"type": "file", "base64": "JVBE", "mime_type": "application/pdf", "filename": "a.pdf"},
            {
                "type": "file",
                "source_type": "base64",
                "data": "JVBE",
                "mime_type": "application/pdf",
            },
            {"type": "file", "file_id": "file-2"},
            {"type": "file", "source_type": "id", "id": "file-3", "extras": {"filename": "c.pdf"}},
            {"type": "json", "json": {"key": "value"}},
        ]
    )
    assert convert_to_openai_messages(message)["content"] == [
        audio,
        audio,
        openai_file,
        {
            "type": "file",
            "file": {"file_data": "data:application/pdf;base64,JVBE", "filename": "a.pdf"},
        },
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE"}},
        {"type": "file", "file": {"file_id": "file-2"}},
        {"type": "file", "file": {"file_id": "file-3"}},
        {"type": "text", "text": '{"key": "value"}'},
    ]
    only_json = HumanMessage([{"type": "json", "json": {"key": "value"}}])
    assert convert_to_openai_messages(only_json)["content"] == '{"key": "value"}'


def test_anthropic_tool_use_and_tool_result() -> None:
    """LangChain's own test: an Anthropic conversation in OpenAI's shape."""
    messages = [
        HumanMessage(
            [
                {
                    "type": "text",
                    "text": "Here's an image:",
                    "cache_control": {"type": "ephemeral"},
                },
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/jpeg", "data": IMAGE},
                },
            ]
        ),
        AIMessage([{"type": "tool_use", "name": "foo", "input": {"bar": "baz"}, "id": "1"}]),
        HumanMessage(
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "1",
                    "is_error": False,
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/jpeg", "data": IMAGE},
                        }
                    ],
                }
            ]
        ),
    ]
    image = {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{IMAGE}"}}
    assert convert_to_openai_messages(messages) == [
        {"role": "user", "content": [{"type": "text", "text": "Here's an image:"}, image]},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "type": "function",
                    "id": "1",
                    "function": {"name": "foo", "arguments": '{"bar": "baz"}'},
                }
            ],
            "content": "",
        },
        {"role": "tool", "tool_call_id": "1", "content": [image]},
    ]


def test_tool_use_blocks_already_in_tool_calls_are_not_repeated() -> None:
    reply = AIMessage(
        [
            {"type": "text", "text": "Let me check."},
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Paris"}},
        ],
        tool_calls=[tool_call(name="weather", args={"city": "Paris"}, id="t1")],
    )
    assert convert_to_openai_messages(reply) == {
        "role": "assistant",
        "tool_calls": [
            {
                "type": "function",
                "id": "t1",
                "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
            }
        ],
        "content": "Let me check.",
    }


def test_a_user_turn_with_text_and_tool_results() -> None:
    turn = HumanMessage(
        [
            {"type": "tool_result", "tool_use_id": "t1", "content": "18°C", "is_error": True},
            {"type": "text", "text": "And tomorrow?"},
        ]
    )
    assert convert_to_openai_messages([turn]) == [
        {"role": "user", "content": "And tomorrow?"},
        {"role": "tool", "tool_call_id": "t1", "content": "18°C"},
    ]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            {"type": "invalid", "foo": "bar"},
            "Unrecognized content block at messages[0].content[1] does not match OpenAI, "
            "Anthropic, or LangChain's standard format. Full content block:\n\n"
            "{'type': 'invalid', 'foo': 'bar'}",
        ),
        (
            {"type": "text"},
            "Unrecognized content block at messages[0].content[1] has 'type': 'text' but is "
            "missing expected key(s) ['text']. Full content block:\n\n{'type': 'text'}",
        ),
        (
            {"type": "tool_use", "id": "1"},
            "Unrecognized content block at messages[0].content[1] has 'type': 'tool_use' but is "
            "missing expected key(s) ['name', 'input']. Full content block:\n\n"
            "{'type': 'tool_use', 'id': '1'}",
        ),
        (
            {"type": "image", "source": {"type": "base64"}},
            "Unrecognized content block at messages[0].content[1] has 'type': 'image' but "
            "'source' is missing expected key(s) ['media_type', 'data']. Full content block:\n\n"
            "{'type': 'image', 'source': {'type': 'base64'}}",
        ),
        (
            {"type": "image", "base64": "AAA"},
            "Content block at messages[0].content[1] has base64 data but no 'mime_type'. Full "
            "content block:\n\n{'type': 'image', 'base64': 'AAA'}",
        ),
        (
            {"type": "audio", "url": "https://x/a.wav"},
            "Content block at messages[0].content[1] cannot be sent: OpenAI chat messages take "
            "audio blocks given by base64 data only. Full content block:\n\n"
            "{'type': 'audio', 'url': 'https://x/a.wav'}",
        ),
    ],
)
def test_bad_blocks(block: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        convert_to_openai_messages([HumanMessage(["look:", block])])
    assert str(raised.value) == message


def test_bad_arguments() -> None:
    with pytest.raises(ValueError) as raised:
        convert_to_openai_messages([HumanMessage("Hello")], text_format="invalid")  # type: ignore[call-overload]
    assert (
        str(raised.value)
        == "Unrecognized text_format='invalid', expected one of 'string' or 'block'."
    )
    with pytest.raises(ValueError, match=r"^Expected '__openai_role__' to be a str, got int$"):
        convert_to_openai_messages(SystemMessage("s", additional_kwargs={"__openai_role__": 1}))

    class Odd(BaseMessage):
        type: str = "odd"

    with pytest.raises(ValueError, match=r"^Unknown BaseMessage type <class '.*Odd'>\.$"):
        convert_to_openai_messages(Odd(content="x"))
