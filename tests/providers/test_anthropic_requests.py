"""ChatAnthropic requests: the exact Messages bodies the real SDK sends to the fake server."""

from __future__ import annotations

from typing import Any

import pytest
from providers_support import anthropic, last_body

from leanchain.messages import (
    AIMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    invalid_tool_call,
)
from leanchain.providers import ChatAnthropic
from leanchain.testing import FakeProviderServer, ScriptedReply
from leanchain.tools import tool

PNG = "iVBORw0KGgo="


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return f"sunny in {city}"


@tool
def get_time(zone: str) -> str:
    """Get the time in a zone."""
    return "12:00"


WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Get the weather in a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
TIME_TOOL = {
    "name": "get_time",
    "description": "Get the time in a zone.",
    "input_schema": {
        "type": "object",
        "properties": {"zone": {"type": "string"}},
        "required": ["zone"],
    },
}


def sent(server: FakeProviderServer, model: ChatAnthropic, input: Any, **kwargs: Any) -> Any:
    server.enqueue(ScriptedReply(text="ok"))
    model.invoke(input, **kwargs)
    return last_body(server)


def call(name: str, args: dict[str, Any], id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": id}


def test_plain_string_and_default_max_tokens(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    assert sent(server, anthropic_model, "Hello") == {
        "model": "claude-fake",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "Hello"}],
    }


def test_system_messages_are_hoisted(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    body = sent(server, anthropic_model, [SystemMessage("Be brief."), HumanMessage("Hi")])
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "Hi"}]
    body = sent(
        server,
        anthropic_model,
        [
            SystemMessage("Be brief."),
            HumanMessage("Hi"),
            SystemMessage(
                [{"type": "text", "text": "Cite.", "cache_control": {"type": "ephemeral"}}]
            ),
        ],
    )
    assert body["system"] == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": "Cite.", "cache_control": {"type": "ephemeral"}},
    ]
    assert body["messages"] == [{"role": "user", "content": "Hi"}]


def test_consecutive_same_role_messages_merge_and_empty_text_is_dropped(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    history = [
        HumanMessage("First."),
        HumanMessage(["", {"type": "text", "text": ""}, "Second."]),
        AIMessage(""),
        HumanMessage("Third."),
        AIMessage("Reply."),
        AIMessage("More."),
        ChatMessage("Fourth.", role="user"),
    ]
    assert sent(server, anthropic_model, history)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "First."},
                {"type": "text", "text": "Second."},
                {"type": "text", "text": "Third."},
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Reply."}, {"type": "text", "text": "More."}],
        },
        {"role": "user", "content": "Fourth."},
    ]


def test_tool_use_and_all_results_in_one_user_message_ahead_of_text(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    history = [
        HumanMessage("Weather in Paris and Tokyo?"),
        AIMessage(
            "Checking both.",
            tool_calls=[
                call("get_weather", {"city": "Paris"}, "toolu_A"),
                call("get_weather", {"city": "Tokyo"}, "toolu_B"),
            ],
        ),
        ToolMessage("sunny", tool_call_id="toolu_A"),
        HumanMessage("Also, be quick."),
        ToolMessage("rain", tool_call_id="toolu_B", status="error"),
    ]
    with pytest.raises(
        ValueError, match=r"^The tool calls \['toolu_B'\] of message 1 have no ToolMessage"
    ):
        # A result after the user's text no longer answers the call: rejected locally.
        sent(server, anthropic_model, history)
    history = [*history[:3], history[4], history[3]]
    assert sent(server, anthropic_model, history)["messages"] == [
        {"role": "user", "content": "Weather in Paris and Tokyo?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking both."},
                {
                    "type": "tool_use",
                    "id": "toolu_A",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_B",
                    "name": "get_weather",
                    "input": {"city": "Tokyo"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_A", "content": "sunny"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_B",
                    "content": "rain",
                    "is_error": True,
                },
                {"type": "text", "text": "Also, be quick."},
            ],
        },
    ]


def test_user_text_blocks_given_before_results_go_after_them(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    history = [
        HumanMessage("go"),
        AIMessage("", tool_calls=[call("f", {}, "toolu_A")]),
        ToolMessage("", tool_call_id="toolu_A"),
        HumanMessage(["note", {"type": "tool_result", "tool_use_id": "x", "content": "y"}]),
    ]
    assert sent(server, anthropic_model, history)["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_A"},
            {"type": "tool_result", "tool_use_id": "x", "content": "y"},
            {"type": "text", "text": "note"},
        ],
    }


def test_foreign_tool_ids_are_made_safe_consistently(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    history = [
        HumanMessage("go"),
        AIMessage("", tool_calls=[call("f", {}, "call:1/a.b")]),
        ToolMessage(["done", {"type": "text", "text": "!"}], tool_call_id="call:1/a.b"),
    ]
    messages = sent(server, anthropic_model, history)["messages"]
    assert messages[1]["content"] == [
        {"type": "tool_use", "id": "call_1_a_b", "name": "f", "input": {}}
    ]
    assert messages[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "call_1_a_b",
            "content": [{"type": "text", "text": "done"}, {"type": "text", "text": "!"}],
        }
    ]


def test_block_content_replays_thinking_and_rebuilds_tool_use(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    thinking = {"type": "thinking", "thinking": "Paris first.", "signature": "sig=="}
    history = [
        HumanMessage("go"),
        AIMessage(
            [
                thinking,
                {"type": "text", "text": "Let me look."},
                {
                    "type": "tool_use",
                    "id": "toolu_A",
                    "name": "get_weather",
                    "input": {},
                    "caller": None,
                },
            ],
            tool_calls=[call("get_weather", {"city": "Paris"}, "toolu_A")],
            invalid_tool_calls=[
                invalid_tool_call(name="get_time", args='{"zone": "U', id="toolu_B")
            ],
        ),
        ToolMessage("sunny", tool_call_id="toolu_A"),
        ToolMessage("bad input", tool_call_id="toolu_B", status="error"),
    ]
    assert sent(server, anthropic_model, history)["messages"][1]["content"] == [
        thinking,
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "toolu_B", "name": "get_time", "input": {}},
    ]


def test_images_in_every_spelling(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    message = HumanMessage(
        [
            "Compare:",
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            {"type": "image_url", "image_url": "https://x.test/a.png"},
            {"type": "image", "base64": PNG, "mime_type": "image/gif"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/jpeg", "data": PNG},
            },
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "d"},
            },
        ]
    )
    assert sent(server, anthropic_model, [message])["messages"][0]["content"] == [
        {"type": "text", "text": "Compare:"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": PNG}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": PNG}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "d"}},
    ]


def test_a_conversation_must_start_with_the_user(anthropic_model: ChatAnthropic) -> None:
    with pytest.raises(ValueError, match=r"first message after the system messages to be a user"):
        anthropic_model.invoke([SystemMessage("s"), AIMessage("I start.")])
    with pytest.raises(ValueError, match=r"^Anthropic needs at least one user message"):
        anthropic_model.invoke([SystemMessage("only a system message")])
    with pytest.raises(TypeError, match=r"^ChatAnthropic cannot send a FunctionMessage"):
        anthropic_model.invoke([HumanMessage("x"), FunctionMessage("r", name="f")])


def test_settings_stop_sequences_and_sampling_in_the_body(server: FakeProviderServer) -> None:
    model = anthropic(
        server,
        max_tokens=512,
        temperature=0.3,
        top_k=5,
        stop_sequences=["END"],
        extra_body={"x": 1},
        model_kwargs={"metadata": {"user_id": "u1"}},
    )
    assert sent(server, model, "hi") == {
        "model": "claude-fake",
        "max_tokens": 512,
        "messages": [{"role": "user", "content": "hi"}],
        "stop_sequences": ["END"],
        "metadata": {"user_id": "u1"},
        "temperature": 0.3,
        "top_k": 5,
        "x": 1,
    }
    body = sent(server, model, "hi", stop=["\nObservation"], top_p=0.5, max_tokens=9)
    assert (body["stop_sequences"], body["top_p"], body["max_tokens"]) == (
        ["\nObservation"],
        0.5,
        9,
    )


def test_large_max_tokens_streams_instead_of_tripping_the_sdk_guard(
    server: FakeProviderServer,
) -> None:
    server.enqueue(ScriptedReply(text="long answer"))
    message = anthropic(server, max_tokens=32000).invoke("hi")
    assert message.content == "long answer"
    assert last_body(server)["stream"] is True
    server.enqueue(ScriptedReply(text="ok"))
    anthropic(server, max_tokens=32000, timeout=30).invoke("hi")
    assert "stream" not in last_body(server)


async def test_large_max_tokens_streams_in_async_too(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="long answer"))
    message = await anthropic(server, max_tokens=32000).ainvoke("hi")
    assert message.content == "long answer"
    assert last_body(server)["stream"] is True


def test_bind_tools_sends_anthropic_schemas(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    openai_form = {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Get the time in a zone.",
            "parameters": TIME_TOOL["input_schema"],
        },
    }
    server_tool = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
    anthropic_model.bind_tools([get_weather, openai_form, server_tool]).invoke("hi")
    body = last_body(server)
    assert body["tools"] == [WEATHER_TOOL, TIME_TOOL, server_tool]
    assert "tool_choice" not in body


@pytest.mark.parametrize(
    ("choice", "parallel", "wire"),
    [
        ("auto", None, {"type": "auto"}),
        ("any", None, {"type": "any"}),
        ("required", None, {"type": "any"}),
        (True, None, {"type": "any"}),
        ("none", None, {"type": "none"}),
        (False, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("get_time", None, {"type": "tool", "name": "get_time"}),
        ({"type": "tool", "name": "get_weather"}, None, {"type": "tool", "name": "get_weather"}),
        (
            {"type": "function", "function": {"name": "get_time"}},
            None,
            {"type": "tool", "name": "get_time"},
        ),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("any", False, {"type": "any", "disable_parallel_tool_use": True}),
        (
            "get_time",
            False,
            {"type": "tool", "name": "get_time", "disable_parallel_tool_use": True},
        ),
    ],
)
def test_every_tool_choice_form(
    server: FakeProviderServer,
    anthropic_model: ChatAnthropic,
    choice: Any,
    parallel: bool | None,
    wire: Any,
) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    bound = anthropic_model.bind_tools(
        [get_weather, get_time], tool_choice=choice, parallel_tool_calls=parallel
    )
    bound.invoke("hi")
    assert last_body(server)["tool_choice"] == wire


def test_tool_choice_false_sends_none_as_langchain_does(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    anthropic_model.bind_tools([get_weather], tool_choice=False).invoke("hi")
    body = last_body(server)
    assert "tool_choice" not in body
    assert [tool["name"] for tool in body["tools"]] == ["get_weather"]


def test_parallel_off_from_the_model_setting(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    anthropic(server, parallel_tool_calls=False).bind_tools([get_weather]).invoke("hi")
    assert last_body(server)["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}


def test_tool_choice_naming_no_bound_tool_fails_at_bind_time(
    anthropic_model: ChatAnthropic,
) -> None:
    with pytest.raises(ValueError, match=r"^tool_choice 'get_date' is neither"):
        anthropic_model.bind_tools([get_weather], tool_choice="get_date")
    with pytest.raises(ValueError, match=r"^tool_choice names the tool 'nope'"):
        anthropic_model.bind_tools([get_weather], tool_choice={"type": "tool", "name": "nope"})


def test_strict_tools(server: FakeProviderServer, anthropic_model: ChatAnthropic) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    anthropic_model.bind_tools([get_weather], strict=True).invoke("hi")
    assert last_body(server)["tools"] == [
        {
            **WEATHER_TOOL,
            "input_schema": {**WEATHER_TOOL["input_schema"], "additionalProperties": False},  # type: ignore[dict-item]
            "strict": True,
        }
    ]


def test_credentials_headers_and_route(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    anthropic(server).invoke("hi")
    request = server.requests[-1]
    assert request.path == "/v1/messages"
    assert request.headers["authorization"] == "Bearer [REDACTED]"
    assert request.headers["anthropic-version"] == "2026-10-21"
    assert "x-api-key" not in request.headers
