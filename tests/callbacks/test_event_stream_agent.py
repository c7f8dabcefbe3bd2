"""An agent's model tokens arrive as events while the model is still answering."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.callbacks import StreamEvent
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessageChunk, BaseMessage
from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder
from leanchain.tools import tool

ANSWER = "The answer is three, as you can see."
DELAY = 0.05


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class TimedModel(ScriptedChatModel):
    """Records when each chunk of each reply is produced."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            [ScriptedChatModel.tool_call("add", {"a": 1, "b": 2}, id="call_1"), ANSWER],
            chunk_delay=DELAY,
            **kwargs,
        )
        self.produced: list[list[float]] = []

    def _stream(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Iterator[Any]:
        times: list[float] = []
        self.produced.append(times)
        for chunk in super()._stream(messages, *args, **kwargs):
            times.append(time.monotonic())
            yield chunk

    async def _astream(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> AsyncIterator[Any]:
        times: list[float] = []
        self.produced.append(times)
        async for chunk in super()._astream(messages, *args, **kwargs):
            times.append(time.monotonic())
            yield chunk


def executor(model: ScriptedChatModel) -> AgentExecutor:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You add."), ("human", "{input}"), MessagesPlaceholder("agent_scratchpad")]
    )
    return AgentExecutor(agent=create_tool_calling_agent(model, [add], prompt), tools=[add])


def check_agent_events(received: list[tuple[StreamEvent, float]], model: TimedModel) -> None:
    events = [event for event, _ in received]
    kinds = [(e["event"], e["name"]) for e in events]
    model_ends = [i for i, k in enumerate(kinds) if k[0] == "on_chat_model_end"]
    assert len(model_ends) == 2 == len(model.produced)
    start = 0
    for call, end in enumerate(model_ends):
        tokens = [i for i in range(start, end) if kinds[i][0] == "on_chat_model_stream"]
        assert len(tokens) == len(model.produced[call]) > 2
        first_received = received[tokens[0]][1]
        # The first token reached the consumer before the model had made its last chunk.
        assert first_received < model.produced[call][-1]
        start = end
    answer_tokens = [
        e["data"]["chunk"].content
        for e in events[model_ends[0] : model_ends[1]]
        if e["event"] == "on_chat_model_stream"
    ]
    assert "".join(answer_tokens) == ANSWER
    tools = [(e["event"], e["name"], e["data"]) for e in events if e["name"] == "add"]
    assert tools == [
        ("on_tool_start", "add", {"input": {"a": 1, "b": 2}}),
        ("on_tool_end", "add", {"output": 3, "input": {"a": 1, "b": 2}}),
    ]
    assert model_ends[0] < kinds.index(("on_tool_start", "add")) < model_ends[1]
    assert kinds[0] == ("on_chain_start", "AgentExecutor")
    assert events[0]["data"] == {"input": {"input": "1 + 2?"}}
    end = kinds.index(("on_chain_end", "AgentExecutor"))
    assert events[end]["data"] == {"output": {"input": "1 + 2?", "output": ANSWER}}
    # The outputs stream out before the run ends, as in LangChain.
    assert end == len(events) - 1
    assert events[-2]["event"] == "on_chain_stream"
    assert events[-2]["data"]["chunk"]["output"] == ANSWER
    model_runs = [e for e in events if e["event"] == "on_chat_model_start"]
    assert [e["parent_ids"][0] for e in model_runs] == [events[0]["run_id"]] * 2


def test_agent_tokens_arrive_while_the_model_is_answering() -> None:
    model = TimedModel()
    received = [
        (event, time.monotonic()) for event in executor(model).stream_events({"input": "1 + 2?"})
    ]
    check_agent_events(received, model)


async def test_async_agent_tokens_arrive_while_the_model_is_answering() -> None:
    model = TimedModel()
    received = []
    async for event in executor(model).astream_events({"input": "1 + 2?"}):
        received.append((event, time.monotonic()))
    check_agent_events(received, model)


class WaitingModel(ScriptedChatModel):
    """Holds its reply after the first chunk until the consumer has seen that chunk's event."""

    def __init__(self, seen: threading.Event) -> None:
        super().__init__(["one two three"])
        self.seen = seen

    def _stream(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Iterator[Any]:
        for i, chunk in enumerate(super()._stream(messages, *args, **kwargs)):
            yield chunk
            if i == 0 and not self.seen.wait(timeout=10):
                raise AssertionError("the first token was not delivered while the model ran")


def test_the_first_token_is_delivered_before_the_model_goes_on() -> None:
    seen = threading.Event()
    tokens = []
    for event in executor(WaitingModel(seen)).stream_events({"input": "q"}):
        if event["event"] == "on_chat_model_stream":
            chunk = event["data"]["chunk"]
            assert isinstance(chunk, AIMessageChunk)
            tokens.append(chunk.content)
            seen.set()
    assert tokens == ["one", " ", "two", " ", "three"]
