"""The request flow both providers share (``providers/_flow.py``), over the real SDKs.

A request that cannot be built fails inside the stream, where the run's callbacks see it, and
sends nothing; a streamed answer's closing chunk carries why the model stopped, as a whole
answer does.
"""

from __future__ import annotations

from typing import Any

import pytest
from providers_support import anthropic, openai

from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import BaseChatModel
from leanchain.messages import HumanMessage, ToolMessage
from leanchain.testing import FakeProviderServer, ScriptedReply

UNPAIRED = [HumanMessage("hi"), ToolMessage("found", tool_call_id="call_9")]
UNPAIRED_ERROR = (
    "Message 1 is a ToolMessage for tool_call_id 'call_9', but no tool call of the AI message "
    "before it has that id (or it was answered already)"
)


class Outcomes(BaseCallbackHandler):
    """Records how each model run ended."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []
        self.generation_info: list[Any] = []

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.errors.append(error)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.generation_info.append(response.generations[0][0].generation_info)


@pytest.fixture(params=["openai", "anthropic"])
def model(request: pytest.FixtureRequest, server: FakeProviderServer) -> BaseChatModel:
    return openai(server) if request.param == "openai" else anthropic(server)


def test_a_bad_request_fails_inside_the_stream(
    server: FakeProviderServer, model: BaseChatModel
) -> None:
    handler = Outcomes()
    with pytest.raises(ValueError) as info:
        list(model.stream(UNPAIRED, config={"callbacks": [handler]}))
    assert str(info.value) == UNPAIRED_ERROR
    assert handler.errors == [info.value]
    assert server.requests == []


async def test_a_bad_request_fails_inside_the_async_stream(
    server: FakeProviderServer, model: BaseChatModel
) -> None:
    handler = Outcomes()
    with pytest.raises(ValueError) as info:
        async for _ in model.astream(UNPAIRED, config={"callbacks": [handler]}):
            pass
    assert str(info.value) == UNPAIRED_ERROR
    assert handler.errors == [info.value]
    assert server.requests == []


@pytest.mark.parametrize("streamed", [False, True])
def test_generation_info_says_why_the_model_stopped(
    server: FakeProviderServer, model: BaseChatModel, streamed: bool
) -> None:
    server.enqueue(ScriptedReply(text="Hello there", chunk_size=4))
    handler = Outcomes()
    config: Any = {"callbacks": [handler]}
    if streamed:
        list(model.stream("hi", config=config))
    else:
        model.invoke("hi", config=config)
    key = "finish_reason" if model._llm_type == "openai-chat" else "stop_reason"
    reason = "stop" if key == "finish_reason" else "end_turn"
    assert handler.generation_info == [{key: reason}]
    assert handler.errors == []
