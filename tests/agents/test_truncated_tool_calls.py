"""An agent never runs a tool call whose arguments the model's stream cut off.

The model below streams ``add`` with arguments ``{"a": 1, "b": 2`` and stops: read as partial
JSON they look like ``{"a": 1, "b": 2}`` (the model may have meant ``"b": 25``). The finished
reply holds the call in ``invalid_tool_calls``, so the tools agent parser sends the error back
to the model and the tool does not run — whether the executor invokes the model or streams it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.output_parsers import ToolsAgentOutputParser
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import OutputParserException
from leanchain.language_models import (
    BaseChatModel,
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
)
from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, tool_call_chunk
from leanchain.runnables import Runnable
from leanchain.tools import tool

RAN: list[tuple[int, int]] = []


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    RAN.append((a, b))
    return a + b


def call_piece(args: str, *, first: bool) -> AIMessageChunk:
    piece = tool_call_chunk(
        name="add" if first else None, args=args, id="c1" if first else None, index=0
    )
    return AIMessageChunk("", tool_call_chunks=[piece])


CUT_OFF = [call_piece('{"a": 1', first=True), call_piece(', "b": 2', first=False)]
DONE = [AIMessageChunk("done")]


class StreamedReplies(BaseChatModel):
    """Streams each reply as exactly the given chunks (no last mark); invoke adds them up."""

    __slots__ = ("replies", "requests")

    def __init__(self, *replies: list[AIMessageChunk]) -> None:
        super().__init__()
        self.replies = deque(replies)
        self.requests: list[list[BaseMessage]] = []

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[Any, AIMessage]:
        return self._bind_openai_tools(tools, tool_choice, kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        self.requests.append(messages)
        for chunk in self.replies.popleft():
            yield ChatGenerationChunk(message=chunk)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        chunks = [g.message for g in self._stream(messages, stop, run_manager, **kwargs)]
        return ChatResult(generations=[ChatGeneration(message=chunks[0] + chunks[1:])])


class Tokens(BaseCallbackHandler):
    """Listens for tokens, so the executor streams the agent (and the model)."""

    def __init__(self) -> None:
        self.chunks: list[Any] = []

    def on_llm_new_token(self, token: str, **kw: Any) -> None:
        self.chunks.append(kw["chunk"].message)


OBSERVATION = (
    "Your tool call arguments were not valid JSON, so no tool of your last reply was run:\n"
    "- `add` (id c1): the arguments were cut off before their JSON was complete: "
    "Expecting ',' delimiter: line 1 column 16 (char 15)\n"
    "Call the tools again, with each call's arguments as one valid JSON object."
)


def executor(model: StreamedReplies) -> AgentExecutor:
    agent = create_tool_calling_agent(model, [add], TOOL_CALLING_PROMPT)
    return AgentExecutor(
        agent=agent, tools=[add], handle_parsing_errors=True, return_intermediate_steps=True
    )


def check_run(result: dict[str, Any], model: StreamedReplies) -> None:
    assert RAN == []
    assert result["output"] == "done"
    [(action, observation)] = result["intermediate_steps"]
    assert (action.tool, observation) == ("_Exception", OBSERVATION)
    assert model.requests[1][2:] == [
        AIMessage(content='\nInvoking: `add` with `{"a": 1, "b": 2`\n\n\n'),
        HumanMessage(content=OBSERVATION),
    ]


@pytest.fixture(autouse=True)
def _no_runs() -> Iterator[None]:
    RAN.clear()
    yield
    RAN.clear()


def test_invoked_model_cut_off_inside_the_arguments_runs_no_tool() -> None:
    model = StreamedReplies(CUT_OFF, DONE)
    check_run(executor(model).invoke({"input": "add 1 and 25"}), model)


def test_streamed_model_cut_off_inside_the_arguments_runs_no_tool() -> None:
    model = StreamedReplies(CUT_OFF, DONE)
    tokens = Tokens()
    result = executor(model).invoke({"input": "add 1 and 25"}, {"callbacks": [tokens]})
    check_run(result, model)
    assert tokens.chunks[:2] == CUT_OFF  # the model did stream, pieces as they came
    assert tokens.chunks[2] == AIMessageChunk("", chunk_position="last")


async def test_async_stream_cut_off_inside_the_arguments_runs_no_tool() -> None:
    model = StreamedReplies(CUT_OFF, DONE)
    steps = [
        step
        async for step in executor(model).astream(
            {"input": "add 1 and 25"}, {"callbacks": [Tokens()]}
        )
    ]
    assert RAN == []
    assert steps[-1]["output"] == "done"


def test_a_complete_stream_runs_the_tool() -> None:
    complete = [call_piece('{"a": 1', first=True), call_piece(', "b": 25}', first=False)]
    model = StreamedReplies(complete, DONE)
    result = executor(model).invoke({"input": "add 1 and 25"}, {"callbacks": [Tokens()]})
    assert RAN == [(1, 25)]
    assert result["output"] == "done"
    assert [observation for _, observation in result["intermediate_steps"]] == [26]


def test_the_parser_reads_a_chunk_sum_as_a_finished_reply() -> None:
    parser = ToolsAgentOutputParser()
    unfinished = CUT_OFF[0] + CUT_OFF[1]
    with pytest.raises(OutputParserException) as caught:
        parser.invoke(unfinished)
    assert caught.value.observation == OBSERVATION
    with pytest.raises(OutputParserException) as streamed:
        list(parser.transform(iter(CUT_OFF)))
    assert streamed.value.observation == OBSERVATION
