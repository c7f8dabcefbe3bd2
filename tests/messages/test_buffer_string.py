"""get_buffer_string: LangChain's prefix and XML forms, tool calls included."""

from __future__ import annotations

import pytest

from leanchain.messages import (
    AIMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    get_buffer_string,
)

CALL = {"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}
CONVERSATION = [
    HumanMessage("hi"),
    AIMessage("", tool_calls=[CALL]),
    ToolMessage("r", tool_call_id="c1"),
    SystemMessage("s"),
]


def test_prefix_form_shows_tool_calls_after_the_text() -> None:
    assert get_buffer_string(CONVERSATION) == (
        "Human: hi\nAI: [{'name': 'f', 'args': {'a': 1}, 'id': 'c1', 'type': 'tool_call'}]"
        "\nTool: r\nSystem: s"
    )
    assert get_buffer_string([AIMessage("text", tool_calls=[CALL])]) == (
        "AI: text[{'name': 'f', 'args': {'a': 1}, 'id': 'c1', 'type': 'tool_call'}]"
    )
    legacy = AIMessage("", additional_kwargs={"function_call": {"name": "g", "arguments": "{}"}})
    assert get_buffer_string([legacy]) == "AI: {'name': 'g', 'arguments': '{}'}"


def test_prefixes_and_separator_are_settable() -> None:
    messages = [
        HumanMessage("q"),
        AIMessage("a"),
        SystemMessage("s"),
        FunctionMessage("f", name="fn"),
        ToolMessage("t", tool_call_id="1"),
        ChatMessage("c", role="critic"),
    ]
    assert (
        get_buffer_string(
            messages,
            "U",
            "A",
            system_prefix="S",
            function_prefix="F",
            tool_prefix="T",
            message_separator=" | ",
        )
        == "U: q | A: a | S: s | F: f | T: t | critic: c"
    )


def test_xml_form_matches_langchain() -> None:
    assert get_buffer_string(CONVERSATION, format="xml") == (
        '<message type="human">hi</message>\n'
        '<message type="ai">\n'
        '  <tool_call id="c1" name="f">{"a": 1}</tool_call>\n'
        "</message>\n"
        '<message type="tool">r</message>\n'
        '<message type="system">s</message>'
    )


def test_xml_form_escapes_text_and_shows_blocks_briefly() -> None:
    messages = [
        HumanMessage("a & <b>"),
        AIMessage(
            [
                {"type": "text", "text": "x"},
                {"type": "image_url", "image_url": {"url": "u"}},
                {"type": "image", "base64": "AAAA", "mime_type": "image/png"},
                {"type": "reasoning", "reasoning": "because"},
                {"type": "text-plain", "text": "d" * 600},
                {"type": "unknown"},
            ]
        ),
        AIMessage("with text", tool_calls=[{**CALL, "id": "x" * 70}]),
        ChatMessage("c", role="critic"),
    ]
    assert get_buffer_string(messages, format="xml").split("\n") == [
        '<message type="human">a &amp; &lt;b&gt;</message>',
        '<message type="ai">x <image url="u" /> <reasoning>because</reasoning> '
        + "d" * 500
        + "...</message>",
        '<message type="ai">',
        "  <content>with text</content>",
        '  <tool_call id="' + "x" * 64 + '..." name="f">{"a": 1}</tool_call>',
        "</message>",
        '<message type="critic">c</message>',
    ]


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError) as caught:
        get_buffer_string(CONVERSATION, format="bad")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "Unrecognized format='bad'. Supported formats are 'prefix' and 'xml'."
    )
