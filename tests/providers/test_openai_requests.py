"""ChatOpenAI requests: the exact Chat Completions bodies the real SDK sends to the fake server."""

from __future__ import annotations

from typing import Any

import pytest
from providers_support import last_body, openai
from pydantic import BaseModel

from leanchain.messages import (
    AIMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    invalid_tool_call,
)
from leanchain.providers import ChatOpenAI
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
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
TIME_TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Get the time in a zone.",
        "parameters": {
            "type": "object",
            "properties": {"zone": {"type": "string"}},
            "required": ["zone"],
        },
    },
}


def sent(server: FakeProviderServer, model: ChatOpenAI, input: Any, **kwargs: Any) -> Any:
    server.enqueue(ScriptedReply(text="ok"))
    model.invoke(input, **kwargs)
    return last_body(server)


def test_plain_string_is_one_user_message(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    assert sent(server, openai_model, "Hello") == {
        "model": "gpt-fake",
        "messages": [{"role": "user", "content": "Hello"}],
    }


def test_system_human_ai_in_place_with_names(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    history = [
        SystemMessage("Be brief."),
        HumanMessage("Hi", name="ann"),
        AIMessage("Hello!", name="bot"),
        SystemMessage("Now be verbose."),
        HumanMessage("Again"),
        ChatMessage("from a developer", role="developer"),
    ]
    assert sent(server, openai_model, history)["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi", "name": "ann"},
        {"role": "assistant", "content": "Hello!", "name": "bot"},
        {"role": "system", "content": "Now be verbose."},
        {"role": "user", "content": "Again"},
        {"role": "developer", "content": "from a developer"},
    ]


def test_a_system_message_marked_developer_is_sent_as_developer(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    history = convert_to_messages([("developer", "Answer in French."), ("system", "Be brief.")])
    assert history[0].additional_kwargs == {"__openai_role__": "developer"}
    assert sent(server, openai_model, [*history, HumanMessage("Hi")])["messages"] == [
        {"role": "developer", "content": "Answer in French."},
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]


def test_ai_tool_calls_null_content_and_one_tool_message_per_call(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    history = [
        HumanMessage("Weather in Paris and Tokyo?"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_A"},
                {"name": "get_weather", "args": {"city": "Tōkyō"}, "id": "call_B"},
            ],
        ),
        ToolMessage("sunny", tool_call_id="call_A", name="get_weather"),
        ToolMessage("rainy", tool_call_id="call_B", status="error"),
        AIMessage("Paris is sunny, Tokyo rainy."),
        HumanMessage("Thanks"),
    ]
    assert sent(server, openai_model, history)["messages"] == [
        {"role": "user", "content": "Weather in Paris and Tokyo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_A",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_B",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Tōkyō"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_A", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_B", "content": "rainy"},
        {"role": "assistant", "content": "Paris is sunny, Tokyo rainy."},
        {"role": "user", "content": "Thanks"},
    ]


def test_ai_text_with_tool_calls_and_invalid_call_replayed_verbatim(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    history = [
        HumanMessage("go"),
        AIMessage(
            [{"type": "text", "text": "Checking."}, {"type": "tool_use", "id": "x"}],
            tool_calls=[{"name": "get_weather", "args": {}, "id": "call_A"}],
            invalid_tool_calls=[invalid_tool_call(name="get_time", args='{"zone', id="call_B")],
        ),
        ToolMessage("sunny", tool_call_id="call_A"),
        ToolMessage("bad arguments", tool_call_id="call_B", status="error"),
    ]
    assert sent(server, openai_model, history)["messages"][1] == {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "call_A",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{}"},
            },
            {
                "id": "call_B",
                "type": "function",
                "function": {"name": "get_time", "arguments": '{"zone'},
            },
        ],
    }


def test_empty_string_tool_call_content_for_servers_that_reject_null(
    server: FakeProviderServer,
) -> None:
    model = openai(server, tool_call_content="")
    history = [
        HumanMessage("go"),
        AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1"}]),
        ToolMessage("done", tool_call_id="c1"),
    ]
    assert sent(server, model, history)["messages"][1]["content"] == ""


def test_ai_message_without_tool_calls_never_sends_null(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    messages = sent(server, openai_model, [HumanMessage("a"), AIMessage(""), HumanMessage("b")])
    assert messages["messages"][1] == {"role": "assistant", "content": ""}


def test_content_blocks_text_and_every_image_spelling(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    message = HumanMessage(
        [
            "What is in",
            {"type": "text", "text": "these images?"},
            {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "low"}},
            {"type": "image", "url": "https://x.test/b.png"},
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
            {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/gif"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/jpeg", "data": PNG},
            },
            {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}},
        ]
    )
    assert sent(server, openai_model, [message])["messages"][0]["content"] == [
        {"type": "text", "text": "What is in"},
        {"type": "text", "text": "these images?"},
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "low"}},
        {"type": "image_url", "image_url": {"url": "https://x.test/b.png"}},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        {"type": "image_url", "image_url": {"url": f"data:image/gif;base64,{PNG}"}},
        {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{PNG}"}},
        {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}},
    ]


def test_system_and_tool_content_lists_become_text_parts(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    history = [
        SystemMessage(["Rule one.", {"type": "text", "text": "Rule two."}]),
        HumanMessage("go"),
        AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1"}]),
        ToolMessage(["part", {"type": "text", "text": "more"}, {"k": 1}], tool_call_id="c1"),
    ]
    messages = sent(server, openai_model, history)["messages"]
    assert messages[0]["content"] == [
        {"type": "text", "text": "Rule one."},
        {"type": "text", "text": "Rule two."},
    ]
    assert messages[3]["content"] == [
        {"type": "text", "text": "part"},
        {"type": "text", "text": "more"},
        {"type": "text", "text": '{"k": 1}'},
    ]


def test_settings_are_sent_only_when_given(server: FakeProviderServer) -> None:
    model = openai(
        server,
        temperature=0.2,
        max_tokens=50,
        top_p=0.9,
        seed=7,
        stop=["END"],
        extra_body={"top_k": 3},
        model_kwargs={"frequency_penalty": 0.5},
    )
    assert sent(server, model, "hi") == {
        "model": "gpt-fake",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.2,
        "max_tokens": 50,
        "top_p": 0.9,
        "seed": 7,
        "stop": ["END"],
        "frequency_penalty": 0.5,
        "top_k": 3,
    }


def test_max_completion_tokens_spelling(server: FakeProviderServer) -> None:
    body = sent(server, openai(server, max_completion_tokens=20), "hi")
    assert body["max_completion_tokens"] == 20
    assert "max_tokens" not in body


def test_call_time_stop_and_kwargs_win(server: FakeProviderServer) -> None:
    model = openai(server, stop=["END"], temperature=0.2, extra_body={"a": 1})
    body = sent(server, model, "hi", stop=["\nObservation"], temperature=1.0, extra_body={"b": 2})
    assert (body["stop"], body["temperature"], body["a"], body["b"]) == (
        ["\nObservation"],
        1.0,
        1,
        2,
    )


def test_bound_stop_reaches_the_wire(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(text="Thought: x"))
    openai_model.bind(stop=["\nObservation"]).invoke("hi")
    assert last_body(server)["stop"] == ["\nObservation"]


def test_bind_tools_sends_openai_schemas(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    openai_model.bind_tools([get_weather, get_time]).invoke("hi")
    body = last_body(server)
    assert body["tools"] == [WEATHER_TOOL, TIME_TOOL]
    assert "tool_choice" not in body
    assert "parallel_tool_calls" not in body


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ("any", "required"),
        (True, "required"),
        ("get_time", {"type": "function", "function": {"name": "get_time"}}),
        (
            {"type": "function", "function": {"name": "get_weather"}},
            {"type": "function", "function": {"name": "get_weather"}},
        ),
        (
            {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": []}},
            {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": []}},
        ),
    ],
)
def test_every_tool_choice_form(
    server: FakeProviderServer, openai_model: ChatOpenAI, choice: Any, wire: Any
) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    openai_model.bind_tools([get_weather, get_time], tool_choice=choice).invoke("hi")
    assert last_body(server)["tool_choice"] == wire


@pytest.mark.parametrize("choice", [False, None])
def test_tool_choice_false_sends_none_as_langchain_does(
    server: FakeProviderServer, openai_model: ChatOpenAI, choice: Any
) -> None:
    # LangChain sends no tool_choice for False (the model stays free to call a tool); it
    # used to be sent as "none", which forbids calling one.
    server.enqueue(ScriptedReply(text="ok"), ScriptedReply(text="ok"))
    openai_model.bind_tools([get_weather], tool_choice=choice).invoke("hi")
    assert "tool_choice" not in last_body(server)
    openai_model.bind_tools([get_weather]).invoke("hi", tool_choice=choice)
    assert "tool_choice" not in last_body(server)
    assert last_body(server)["tools"][0]["function"]["name"] == "get_weather"


def test_tool_choice_naming_no_bound_tool_fails_at_bind_time(openai_model: ChatOpenAI) -> None:
    with pytest.raises(ValueError, match=r"tool_choice 'get_date' is neither") as info:
        openai_model.bind_tools([get_weather], tool_choice="get_date")
    assert str(info.value).endswith("the tools are ['get_weather']")
    with pytest.raises(ValueError, match=r"names the tool 'nope', but the tools are"):
        openai_model.bind_tools(
            [get_weather], tool_choice={"type": "function", "function": {"name": "nope"}}
        )


def test_parallel_tool_calls_and_strict(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="ok"), ScriptedReply(text="ok"))

    class Answer(BaseModel):
        """The answer."""

        value: int

    openai(server).bind_tools([Answer], strict=True, parallel_tool_calls=False).invoke("hi")
    assert last_body(server)["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "Answer",
                "description": "The answer.",
                "parameters": {
                    "type": "object",
                    "properties": {"value": {"type": "integer"}},
                    "required": ["value"],
                    "additionalProperties": False,
                },
                "strict": True,
            },
        }
    ]
    assert last_body(server)["parallel_tool_calls"] is False
    openai(server, parallel_tool_calls=True).bind_tools([get_weather]).invoke("hi")
    assert last_body(server)["parallel_tool_calls"] is True


def test_tool_choice_and_parallel_flag_need_tools(server: FakeProviderServer) -> None:
    body = sent(server, openai(server, parallel_tool_calls=False), "hi", tool_choice="auto")
    assert body == {"model": "gpt-fake", "messages": [{"role": "user", "content": "hi"}]}


def test_tools_bound_in_openai_form_pass_unchanged(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    openai_model.bind(tools=[WEATHER_TOOL], tool_choice="get_weather").invoke("hi")
    body = last_body(server)
    assert body["tools"] == [WEATHER_TOOL]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}


def test_streaming_asks_for_usage_unless_turned_off(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="ok"), ScriptedReply(text="ok"), ScriptedReply(text="ok"))
    list(openai(server).stream("hi"))
    assert last_body(server) == {
        "model": "gpt-fake",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    list(openai(server, stream_usage=False).stream("hi"))
    assert "stream_options" not in last_body(server)
    list(openai(server).stream("hi", stream_usage=False))
    assert "stream_options" not in last_body(server)


def test_broken_tool_history_is_rejected_before_any_request(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    unanswered = [
        HumanMessage("go"),
        AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1"}]),
        HumanMessage("and?"),
    ]
    with pytest.raises(ValueError, match=r"^The tool calls \['c1'\] of message 1 have no"):
        openai_model.invoke(unanswered)
    orphan = [HumanMessage("go"), ToolMessage("x", tool_call_id="c9")]
    with pytest.raises(ValueError, match=r"^Message 1 is a ToolMessage for tool_call_id 'c9'"):
        openai_model.invoke(orphan)
    assert server.requests == []


def test_credentials_and_client_settings_on_the_wire(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="ok"))
    openai(server, timeout=7.5).invoke("hi")
    request = server.requests[-1]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer [REDACTED]"
    assert request.headers["x-stainless-read-timeout"] == "7.5"
    assert request.retry_count == 0
