"""Stop sequences on models that reject them (pitfalls.md 1C-2), over the real SDKs.

The fake server answers ``stop`` for model "o3" as OpenAI's reasoning models do (400
``unsupported_parameter``), and never cuts a reply itself: ChatOpenAI asks once more without
``stop``, cuts the reply client-side, and sends no ``stop`` to that model again.
"""

from __future__ import annotations

import logging
from typing import Any

import openai as openai_sdk
import pytest
from providers_support import API_KEY, anthropic, openai, who

from leanchain.agents import AgentExecutor, create_react_agent
from leanchain.agents.prompts import REACT_PROMPT
from leanchain.errors import BadRequestError
from leanchain.messages import AIMessage, AIMessageChunk
from leanchain.providers import ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedError, ScriptedReply
from leanchain.tools import tool

OBS = ["\nObservation"]
HI = [{"role": "user", "content": "hi"}]
STREAMING = {"stream": True, "stream_options": {"include_usage": True}}
REPLY = "Action: get_weather\nAction Input: Paris\nObservation: made up"
CUT = "Action: get_weather\nAction Input: Paris"
USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "total_tokens": 15,
    "input_token_details": {"audio": 0, "cache_read": 0},
    "output_token_details": {"audio": 0, "reasoning": 0},
}


def cut_reply(number: int) -> AIMessage:
    """The invoked reply to REPLY, cut client-side, as the `number`-th answer of the server."""
    return AIMessage(
        content=CUT,
        response_metadata={
            "model_provider": "openai",
            "model_name": "o3",
            "finish_reason": "stop",
            "system_fingerprint": "fp_fake",
            "service_tier": "default",
        },
        id=f"chatcmpl-fake{number}",
        usage_metadata=USAGE,
    )


def bodies(server: FakeProviderServer) -> list[Any]:
    return [request.body for request in server.requests]


@pytest.fixture
def o3(server: FakeProviderServer) -> ChatOpenAI:
    server.reject_parameter("stop", model="o3")
    return openai(server, model="o3")


def test_invoke_retries_without_stop_cuts_and_remembers(
    server: FakeProviderServer, o3: ChatOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    server.enqueue(ScriptedReply(text=REPLY), ScriptedReply(text=REPLY))
    with caplog.at_level(logging.INFO, logger="leanchain.providers"):
        assert o3.invoke("hi", stop=OBS) == cut_reply(1)
    assert o3.invoke("hi", stop=OBS) == cut_reply(2)
    assert bodies(server) == [
        {"model": "o3", "messages": HI, "stop": OBS},
        {"model": "o3", "messages": HI},
        {"model": "o3", "messages": HI},
    ]
    assert caplog.messages == [
        "OpenAI model 'o3' does not support 'stop': sent without it from now on"
    ]
    assert server.pending == ()


async def test_ainvoke_retries_without_stop_cuts_and_remembers(
    server: FakeProviderServer, o3: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text=REPLY), ScriptedReply(text=REPLY))
    assert await o3.ainvoke("hi", stop=OBS) == cut_reply(1)
    assert await o3.ainvoke("hi", stop=OBS) == cut_reply(2)
    assert bodies(server) == [
        {"model": "o3", "messages": HI, "stop": OBS},
        {"model": "o3", "messages": HI},
        {"model": "o3", "messages": HI},
    ]


# The server streams REPLY 4 characters at a time: "Acti", ..., "her\n", "Acti", ...,
# "ris\n", "Obse", "rvat", "ion:", ...; a "\n" waits until the next piece shows what follows.
# The rest of the stream is read past the marker, without its text: the last chunk has what
# the server said at its end (model, usage), the finish reason saying "stop".
STREAMED = [
    AIMessageChunk(content=piece, id="chatcmpl-fake1")
    for piece in ["Acti", "on: ", "get_", "weat", "her", "\nActi", "on I", "nput", ": Pa", "ris"]
] + [
    AIMessageChunk(
        content="",
        id="chatcmpl-fake1",
        response_metadata={
            "model_provider": "openai",
            "model_name": "o3",
            "finish_reason": "stop",
            "system_fingerprint": "fp_fake",
        },
        usage_metadata=USAGE,
        chunk_position="last",
    )
]


def test_stream_retries_without_stop_and_ends_at_the_marker(
    server: FakeProviderServer, o3: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text=REPLY), ScriptedReply(text="Final Answer: 4"))
    assert list(o3.stream("hi", stop=OBS)) == STREAMED
    assert "".join(str(c.content) for c in o3.stream("hi", stop=OBS)) == "Final Answer: 4"
    assert bodies(server) == [
        {"model": "o3", "messages": HI, "stop": OBS, **STREAMING},
        {"model": "o3", "messages": HI, **STREAMING},
        {"model": "o3", "messages": HI, **STREAMING},
    ]


async def test_astream_retries_without_stop_and_ends_at_the_marker(
    server: FakeProviderServer, o3: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text=REPLY), ScriptedReply(text="Final Answer: 4"))
    assert [chunk async for chunk in o3.astream("hi", stop=OBS)] == STREAMED
    second = [chunk async for chunk in o3.astream("hi", stop=OBS)]
    assert "".join(str(c.content) for c in second) == "Final Answer: 4"
    assert second[-1].usage_metadata == USAGE  # no marker: the stream was read to its end
    assert bodies(server) == [
        {"model": "o3", "messages": HI, "stop": OBS, **STREAMING},
        {"model": "o3", "messages": HI, **STREAMING},
        {"model": "o3", "messages": HI, **STREAMING},
    ]


def test_a_default_stop_is_dropped_and_still_applied(server: FakeProviderServer) -> None:
    server.reject_parameter("stop", model="o3")
    model = openai(server, model="o3", stop=OBS)
    server.enqueue(ScriptedReply(text=REPLY), ScriptedReply(text=REPLY))
    assert model.invoke("hi").content == CUT
    assert model.invoke("hi").content == CUT
    assert bodies(server) == [
        {"model": "o3", "messages": HI, "stop": OBS},
        {"model": "o3", "messages": HI},
        {"model": "o3", "messages": HI},
    ]


def test_what_is_learnt_belongs_to_the_model_object(server: FakeProviderServer) -> None:
    server.reject_parameter("stop", model="o3")
    server.enqueue(*[ScriptedReply(text="ok")] * 3)
    first, other, gpt = openai(server, model="o3"), openai(server, model="o3"), openai(server)
    first.invoke("hi", stop=OBS)
    other.invoke("hi", stop=OBS)
    gpt.invoke("hi", stop=OBS)
    assert [body.get("stop") for body in bodies(server)] == [OBS, None, OBS, None, OBS]


def test_a_server_that_ignores_stop_gets_it_and_the_reply_is_still_cut(
    server: FakeProviderServer,
) -> None:
    model = openai(server, model="gpt-4o-mini")
    server.enqueue(ScriptedReply(text=REPLY, finish_reason="length"))
    reply = model.invoke("hi", stop=OBS)
    assert (reply.content, reply.response_metadata["finish_reason"]) == (CUT, "stop")
    assert bodies(server) == [{"model": "gpt-4o-mini", "messages": HI, "stop": OBS}]


def test_anthropic_replies_are_cut_too_and_say_which_marker(server: FakeProviderServer) -> None:
    model = anthropic(server)
    server.enqueue(ScriptedReply(text=REPLY))
    reply = model.invoke("hi", stop=OBS)
    assert reply.content == CUT
    assert reply.response_metadata == {
        "model_provider": "anthropic",
        "model_name": "claude-fake",
        "finish_reason": "stop",
        "stop_reason": "stop_sequence",
        "stop_sequence": "\nObservation",
    }
    assert server.requests[0].body["stop_sequences"] == OBS


def test_anthropics_default_stop_sequences_cut_the_reply_client_side(
    server: FakeProviderServer,
) -> None:
    model = anthropic(server, stop_sequences=OBS)
    server.enqueue(ScriptedReply(text=REPLY))
    assert model.invoke("hi").content == CUT
    assert server.requests[0].body["stop_sequences"] == OBS


def test_the_server_rule_sends_openais_error_body_until_reset(server: FakeProviderServer) -> None:
    server.reject_parameter("stop")  # for every model
    client = openai_sdk.OpenAI(base_url=server.openai_base_url, api_key=API_KEY, max_retries=0)
    with client, pytest.raises(openai_sdk.BadRequestError) as caught:
        client.chat.completions.create(model="gpt-5", messages=HI, stop=OBS)  # type: ignore[arg-type]
    assert caught.value.body == {
        "message": "Unsupported parameter: 'stop' is not supported with this model.",
        "type": "invalid_request_error",
        "param": "stop",
        "code": "unsupported_parameter",
    }
    server.reset()
    server.enqueue(ScriptedReply(text="ok"))
    model = openai(server, model="gpt-5")
    assert model.invoke("hi", stop=OBS).content == "ok"
    assert [body.get("stop") for body in bodies(server)] == [OBS]
    assert server.pending == ()


# -- what is not retried -----------------------------------------------------------------------


def test_another_400_is_not_retried(server: FakeProviderServer, o3: ChatOpenAI) -> None:
    server.enqueue(ScriptedError(400, "Invalid 'messages': empty"))
    with pytest.raises(BadRequestError) as caught:
        o3.invoke("hi")
    assert type(caught.value) is BadRequestError
    assert str(caught.value) == f"{who(server, 'openai')} answered 400: Invalid 'messages': empty"
    assert len(server.requests) == 1


async def test_an_unsupported_parameter_that_must_stay_is_not_dropped(
    server: FakeProviderServer,
) -> None:
    server.reject_parameter("temperature", model="o3")
    model = openai(server, model="o3", temperature=0.2)
    message = (
        f"{who(server, 'openai')} answered 400: Unsupported parameter: 'temperature' is not "
        "supported with this model. (code 'unsupported_parameter', param 'temperature')"
    )
    with pytest.raises(BadRequestError) as caught:
        model.invoke("hi", stop=OBS)
    assert (type(caught.value), str(caught.value)) == (BadRequestError, message)
    with pytest.raises(BadRequestError) as again:
        await model.ainvoke("hi")
    assert (type(again.value), str(again.value)) == (BadRequestError, message)
    assert bodies(server) == [
        {"model": "o3", "messages": HI, "temperature": 0.2, "stop": OBS},
        {"model": "o3", "messages": HI, "temperature": 0.2},
    ]


def test_only_one_retry_per_call_then_each_rejection_is_learnt(
    server: FakeProviderServer, o3: ChatOpenAI
) -> None:
    server.reject_parameter("parallel_tool_calls", model="o3")
    server.enqueue(ScriptedReply(text="ok"))
    tools: Any = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    calling = o3.bind(stop=OBS, tools=tools, parallel_tool_calls=False)
    with pytest.raises(BadRequestError, match=r"param 'parallel_tool_calls'\)$"):
        calling.invoke("hi")
    assert calling.invoke("hi").content == "ok"
    assert [sorted(set(body) - {"model", "messages", "tools"}) for body in bodies(server)] == [
        ["parallel_tool_calls", "stop"],  # stop rejected: asked again without it
        ["parallel_tool_calls"],  # parallel_tool_calls rejected: no third try
        ["parallel_tool_calls"],  # the next call: rejected, asked again without it
        [],
    ]


def test_a_scripted_unsupported_parameter_error_is_handled_the_same(
    server: FakeProviderServer,
) -> None:
    model = openai(server, model="o4-mini")
    rejection = ScriptedError(
        400,
        "Unsupported parameter: 'stop' is not supported with this model.",
        code="unsupported_parameter",
        param="stop",
    )
    server.enqueue(rejection, ScriptedReply(text=REPLY))
    assert model.invoke("hi", stop=OBS).content == CUT
    assert [body.get("stop") for body in bodies(server)] == [OBS, None]


# -- an agent over a model that rejects stop ---------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return {"Paris": "sunny, 21 C"}[city]


@pytest.mark.parametrize("streamed", [False, True])
async def test_react_agent_over_a_model_that_rejects_stop(
    server: FakeProviderServer, o3: ChatOpenAI, streamed: bool
) -> None:
    server.enqueue(
        ScriptedReply(
            text=" I need the weather.\nAction: get_weather\nAction Input: Paris\n"
            "Observation: snowing\nThought: I now know the final answer\nFinal Answer: snow"
        ),
        ScriptedReply(text=" I now know the final answer.\nFinal Answer: It is sunny in Paris."),
    )
    agent = create_react_agent(o3, [get_weather], REACT_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[get_weather], return_intermediate_steps=True)
    question = {"input": "Weather in Paris?"}
    if streamed:
        result = [chunk async for chunk in executor.astream(question)][-1]
    else:
        result = executor.invoke(question)
    assert result["output"] == "It is sunny in Paris."
    assert [(a.tool, a.tool_input, obs) for a, obs in result["intermediate_steps"]] == [
        ("get_weather", "Paris", "sunny, 21 C")
    ]
    assert [body.get("stop") for body in bodies(server)] == [OBS, None, None]
    assert bodies(server)[2]["messages"][-1]["content"].endswith(
        "Action Input: Paris\nObservation: sunny, 21 C\nThought: "
    )
