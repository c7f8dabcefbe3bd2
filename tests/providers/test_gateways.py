"""Any OpenAI-compatible server: what a LiteLLM proxy showed (issue 24), played by the fake server.

Reused tool-call ids, a gateway's own labels for a mid-stream failure, a server that ignores
``stop``, structured output on servers that know no ``"required"``, ``tool_choice=False``
(in the request tests), and errors that name the server that answered.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import pytest
from providers_support import anthropic, openai, who
from pydantic import BaseModel

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT, TOOL_CALLING_SYSTEM
from leanchain.errors import ProviderConnectionError, StreamError
from leanchain.language_models import BaseChatModel
from leanchain.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, MidStreamError, ScriptedReply, ScriptedToolCall
from leanchain.tools import tool

Factory = Callable[..., BaseChatModel]
MOCK_ID = "call_mock_001"


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make(provider: str) -> Factory:
    return openai if provider == "openai" else anthropic


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return {"Paris": "sunny", "Tokyo": "rain"}[city]


# -- 1. a server that gives every turn the same tool-call id -----------------------------------


def reused(city: str, response_id: str | None = None) -> ScriptedReply:
    call = ScriptedToolCall("get_weather", {"city": city}, id=MOCK_ID)
    return ScriptedReply(tool_calls=[call], response_id=response_id)


@pytest.mark.parametrize("response_id", [None, "chatcmpl-mock"])
def test_an_agent_completes_over_a_server_that_reuses_one_call_id(
    server: FakeProviderServer, provider: str, make: Factory, response_id: str | None
) -> None:
    server.enqueue(
        reused("Paris", response_id),
        reused("Tokyo", response_id),
        ScriptedReply(text="Paris: sunny. Tokyo: rain.", response_id=response_id),
    )
    model = make(server)
    agent = create_tool_calling_agent(model, [get_weather], TOOL_CALLING_PROMPT)
    result = AgentExecutor(agent=agent, tools=[get_weather]).invoke({"input": "Weather?"})
    assert result["output"] == "Paris: sunny. Tokyo: rain."
    last = server.requests[-1].body["messages"]
    if provider == "openai":
        assert last == [
            {"role": "system", "content": TOOL_CALLING_SYSTEM},
            {"role": "user", "content": "Weather?"},
            openai_call("Paris"),
            {"role": "tool", "tool_call_id": MOCK_ID, "content": "sunny"},
            openai_call("Tokyo"),
            {"role": "tool", "tool_call_id": MOCK_ID, "content": "rain"},
        ]
    else:
        assert last == [
            {"role": "user", "content": "Weather?"},
            anthropic_call("Paris"),
            {"role": "user", "content": [anthropic_result("sunny")]},
            anthropic_call("Tokyo"),
            {"role": "user", "content": [anthropic_result("rain")]},
        ]


def test_the_same_call_made_twice_with_the_same_id_is_answered_twice(
    server: FakeProviderServer,
) -> None:
    # LiteLLM's mock repeats the very same call: same id, same arguments, same result.
    server.enqueue(reused("Paris"), reused("Paris"), ScriptedReply(text="Still sunny."))
    agent = create_tool_calling_agent(openai(server), [get_weather], TOOL_CALLING_PROMPT)
    result = AgentExecutor(agent=agent, tools=[get_weather]).invoke({"input": "Weather?"})
    assert result["output"] == "Still sunny."
    assert server.requests[-1].body["messages"][2:] == [
        openai_call("Paris"),
        {"role": "tool", "tool_call_id": MOCK_ID, "content": "sunny"},
        openai_call("Paris"),
        {"role": "tool", "tool_call_id": MOCK_ID, "content": "sunny"},
    ]


def openai_call(city: str) -> dict[str, Any]:
    arguments = f'{{"city": "{city}"}}'
    function = {"name": "get_weather", "arguments": arguments}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": MOCK_ID, "type": "function", "function": function}],
    }


def anthropic_call(city: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": MOCK_ID, "name": "get_weather", "input": {"city": city}}
    return {"role": "assistant", "content": [block]}


def anthropic_result(text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": MOCK_ID, "content": text}


def call_of(city: str) -> AIMessage:
    return AIMessage(
        "",
        tool_calls=[
            {"name": "get_weather", "args": {"city": city}, "id": MOCK_ID, "type": "tool_call"}
        ],
    )


def test_a_refused_history_is_counted_right(server: FakeProviderServer, make: Factory) -> None:
    model = make(server)
    unanswered_last = [
        HumanMessage("q"),
        call_of("Paris"),
        ToolMessage("sunny", tool_call_id=MOCK_ID),
        call_of("Tokyo"),
    ]
    with pytest.raises(ValueError) as info:
        model.invoke(unanswered_last)
    assert str(info.value) == (
        f"The tool calls ['{MOCK_ID}'] of message 3 have no ToolMessage answering them at the "
        "end of the messages; every tool call needs a ToolMessage with its tool_call_id right "
        "after the AI message that made it"
    )
    unanswered_inside = [HumanMessage("q"), call_of("Paris"), HumanMessage("and?")]
    with pytest.raises(
        ValueError, match=r"of message 1 have no ToolMessage answering them before message 2;"
    ):
        model.invoke(unanswered_inside)
    assert server.requests == []


# -- 2. a gateway's labels for a mid-stream failure --------------------------------------------


@pytest.mark.parametrize(
    ("error_type", "code", "retryable", "named"),
    [
        ("internal_server_error", "500", True, "internal_server_error, code '500'"),
        ("throttling_error", "429", True, "throttling_error, code '429'"),
        ("bad_request_error", "400", False, "bad_request_error, code '400'"),
        ("internal_server_error", None, True, "internal_server_error"),
        ("throttling_error", None, True, "throttling_error"),
        ("service_unavailable", None, True, "service_unavailable"),
        ("invalid_request_error", None, False, "invalid_request_error"),
        ("None", "503", True, "None, code '503'"),  # LiteLLM's type when it has none
    ],
)
def test_a_gateways_mid_stream_label_says_whether_to_retry(
    server: FakeProviderServer,
    provider: str,
    make: Factory,
    error_type: str,
    code: str | None,
    retryable: bool,
    named: str,
) -> None:
    fault = MidStreamError(
        ScriptedReply(text="abcdefgh"), after_events=2, error_type=error_type, code=code
    )
    server.enqueue(fault)
    with pytest.raises(StreamError) as info:
        list(make(server).stream("hi"))
    error = info.value
    assert (
        str(error) == f"{who(server, provider)} stream failed mid-answer with {named}: Overloaded"
    )
    assert (error.retryable, error.status_code) == (retryable, 200)


# -- 3. structured output that every server honours --------------------------------------------


class Weather(BaseModel):
    """A weather report."""

    city: str


def test_structured_output_on_a_server_that_rejects_parallel_tool_calls(
    server: FakeProviderServer,
) -> None:
    server.reject_parameter("parallel_tool_calls")
    call = ScriptedToolCall("Weather", {"city": "Paris"})
    server.enqueue(ScriptedReply(tool_calls=[call]), ScriptedReply(tool_calls=[call]))
    structured = openai(server).with_structured_output(Weather)
    assert structured.invoke("Weather?") == Weather(city="Paris")
    assert structured.invoke("Weather?") == Weather(city="Paris")
    choices = [request.body.get("tool_choice") for request in server.requests]
    assert choices == [{"type": "function", "function": {"name": "Weather"}}] * 3
    parallel = [request.body.get("parallel_tool_calls") for request in server.requests]
    assert parallel == [False, None, None]  # dropped once refused, and not sent again


# -- 4. a stream cut at a stop sequence keeps its metadata -------------------------------------

REPLY = "Action: search\nAction Input: x\nObservation: made up\nThought: more"
STOP = ["\nObservation"]


def summed(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def test_a_stream_cut_client_side_ends_as_invoke_does(
    server: FakeProviderServer, provider: str, make: Factory
) -> None:
    model = make(server)  # the fake server, like LiteLLM's mock, ignores stop
    server.enqueue(ScriptedReply(text=REPLY), ScriptedReply(text=REPLY))
    invoked = model.invoke("hi", stop=STOP)
    streamed = summed(list(model.stream("hi", stop=STOP)))
    assert streamed.content == invoked.content == "Action: search\nAction Input: x"
    expected = {
        key: value
        for key, value in invoked.response_metadata.items()
        if key != "service_tier"  # the fake's stream chunks carry none
    }
    assert streamed.response_metadata == expected
    assert expected["finish_reason"] == "stop"
    assert "model_name" in expected
    assert streamed.usage_metadata == invoked.usage_metadata is not None
    assert streamed.chunk_position == "last"


async def test_an_async_stream_cut_client_side_keeps_its_metadata_too(
    server: FakeProviderServer, provider: str, make: Factory
) -> None:
    model = make(server)
    server.enqueue(ScriptedReply(text=REPLY), ScriptedReply(text=REPLY))
    invoked = await model.ainvoke("hi", stop=STOP)
    streamed = summed([chunk async for chunk in model.astream("hi", stop=STOP)])
    assert (streamed.content, streamed.usage_metadata) == (invoked.content, invoked.usage_metadata)
    assert streamed.response_metadata["finish_reason"] == "stop"
    if provider == "anthropic":
        assert streamed.response_metadata["stop_sequence"] == "\nObservation"


def test_a_failure_past_the_marker_loses_nothing(
    server: FakeProviderServer, provider: str, make: Factory
) -> None:
    # The text after the marker is discarded: a stream that breaks there is still an answer.
    server.enqueue(MidStreamError(ScriptedReply(text=REPLY, chunk_size=8), after_events=10))
    chunks = list(make(server).stream("hi", stop=STOP))
    assert summed(chunks).content == "Action: search\nAction Input: x"
    assert chunks[-1].chunk_position == "last"
    assert chunks[-1].response_metadata["finish_reason"] == "stop"


# -- 6. errors name the server that answered ---------------------------------------------------


def test_a_connection_error_names_the_url_without_password_or_query(provider: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    path = "/v1" if provider == "openai" else ""
    url = f"http://user:pw@127.0.0.1:{port}{path}?key=sk-query-secret"
    cls = ChatOpenAI if provider == "openai" else ChatAnthropic
    model = cls(model="m", api_key="sk-test-0123456789", base_url=url, max_retries=0)
    with pytest.raises(ProviderConnectionError) as info:
        model.invoke("hi")
    label = "OpenAI" if provider == "openai" else "Anthropic"
    assert str(info.value).startswith(
        f"Could not reach {label}-compatible server 127.0.0.1:{port} at "
        f"http://***@127.0.0.1:{port}{path}/?...: "
    )
    for secret in ("pw", "sk-query-secret", "sk-test-0123456789"):
        assert secret not in str(info.value)
