"""Client-side stop sequences: a reply is cut at the first stop marker, whole or streamed.

The model below ignores ``stop`` (as a reasoning model or a careless server does) and streams
its reply in the pieces a test gives; the base class does the cutting.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from leanchain.agents import AgentExecutor, create_react_agent
from leanchain.agents.prompts import REACT_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.callbacks.manager import RunManager
from leanchain.errors import OutputParserException
from leanchain.language_models import (
    BaseChatModel,
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    ScriptedChatModel,
)
from leanchain.language_models._stop import StopScanner, cut_text
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    UsageMetadata,
    message_chunk_to_message,
    tool_call_chunk,
)
from leanchain.tools import tool

USAGE = UsageMetadata(input_tokens=7, output_tokens=3, total_tokens=10)
OBS = ["\nObservation"]

Piece = AIMessageChunk | str
"""A streamed piece of a reply: text, or a whole chunk."""


class IgnoresStop(BaseChatModel):
    """Plays replies given as streamed chunks, ignoring ``stop``; records how far it streamed."""

    client_side_stop = True

    def __init__(self, *replies: Sequence[Piece]) -> None:
        super().__init__()
        self.replies = [
            [AIMessageChunk(content=c) if isinstance(c, str) else c for c in reply]
            for reply in replies
        ]
        self.sent = 0
        self.closed = False

    def _next(self) -> list[AIMessageChunk]:
        return self.replies.pop(0)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chunks = self._next()
        whole = message_chunk_to_message(chunks[0] + chunks[1:])
        info = {"finish_reason": whole.response_metadata.get("finish_reason")}
        return ChatResult(generations=[ChatGeneration(message=whole, generation_info=info)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        try:
            for chunk in self._next():
                self.sent += 1
                yield ChatGenerationChunk(message=chunk)
        except GeneratorExit:
            self.closed = True
            raise

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        try:
            for chunk in self._next():
                self.sent += 1
                yield ChatGenerationChunk(message=chunk)
        except GeneratorExit:
            self.closed = True
            raise


def last(content: str = "", **fields: Any) -> AIMessageChunk:
    return AIMessageChunk(content=content, chunk_position="last", **fields)


# -- invoke ------------------------------------------------------------------------------------


def test_invoke_cuts_at_the_first_marker_and_says_stop() -> None:
    reply: list[Piece] = [
        "Thought: look it up\nAction: search\nAction Input: Paris",
        "\nObservation: sunny\nThought: done\nFinal Answer: sunny",
        last(response_metadata={"finish_reason": "length"}, usage_metadata=USAGE),
    ]
    model = IgnoresStop(reply, reply)
    assert model.invoke("q", stop=OBS) == AIMessage(
        content="Thought: look it up\nAction: search\nAction Input: Paris",
        response_metadata={"finish_reason": "stop"},
        usage_metadata=USAGE,
    )
    assert model.bind(stop=OBS).invoke("q").content == (
        "Thought: look it up\nAction: search\nAction Input: Paris"
    )


async def test_ainvoke_cuts_too() -> None:
    model = IgnoresStop(["a STOP b"])
    assert await model.ainvoke("q", stop=["STOP"]) == AIMessage(content="a ")


def test_the_earliest_marker_wins_and_empty_markers_are_ignored() -> None:
    model = IgnoresStop(["x END y STOP z"], ["x END y STOP z"], ["abc"])
    assert model.invoke("q", stop=["STOP", "END"]).content == "x "
    assert model.invoke("q", stop=["", "STOP"]).content == "x END y "
    assert model.invoke("q", stop=[""]).content == "abc"


def test_no_marker_and_no_stop_leave_the_reply_alone() -> None:
    reply: list[Piece] = ["plain", last(response_metadata={"finish_reason": "length"})]
    model = IgnoresStop(reply, reply, reply)
    whole = AIMessage(content="plain", response_metadata={"finish_reason": "length"})
    assert model.invoke("q", stop=["STOP"]) == whole
    assert model.invoke("q") == whole
    assert model.invoke("q", stop=[]) == whole


def test_tool_calls_and_usage_are_kept() -> None:
    call = tool_call_chunk(name="search", args='{"q": "x"}', id="c1", index=0)
    reply: list[Piece] = ["ok STOP no", last(tool_call_chunks=[call], usage_metadata=USAGE)]
    assert IgnoresStop(reply).invoke("q", stop=["STOP"]) == AIMessage(
        content="ok ",
        tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "c1"}],
        usage_metadata=USAGE,
    )


def test_content_blocks_are_not_cut() -> None:
    blocks: Any = [{"type": "text", "text": "a STOP b"}]
    model = IgnoresStop([AIMessageChunk(content=blocks)])
    assert model.invoke("q", stop=["STOP"]) == AIMessage(content=blocks)


def test_anthropic_style_metadata_names_the_marker() -> None:
    metadata = {"finish_reason": "stop", "stop_reason": "end_turn", "stop_sequence": None}
    model = IgnoresStop(["a\nObservation: b", last(response_metadata=metadata)])
    assert model.invoke("q", stop=OBS).response_metadata == {
        "finish_reason": "stop",
        "stop_reason": "stop_sequence",
        "stop_sequence": "\nObservation",
    }


def test_models_that_do_not_opt_in_are_not_cut() -> None:
    class Plain(IgnoresStop):
        client_side_stop = False

    assert Plain(["a STOP b"]).invoke("q", stop=["STOP"]) == AIMessage(content="a STOP b")
    assert [c.content for c in Plain(["a STOP b"]).stream("q", stop=["STOP"])] == ["a STOP b", ""]


def test_a_default_stop_applies_when_the_call_gives_none() -> None:
    class WithDefault(IgnoresStop):
        def _client_stop(self, stop: list[str] | None) -> list[str] | None:
            return stop if stop is not None else ["STOP"]

    model = WithDefault(["a STOP b"], ["a STOP b"])
    assert model.invoke("q").content == "a "
    assert model.invoke("q", stop=["b"]).content == "a STOP "


# -- stream: exact chunks ----------------------------------------------------------------------


def test_stream_holds_a_possible_marker_start_and_ends_at_the_marker() -> None:
    model = IgnoresStop(["Action Input: x", "\nObs", "ervation: made", " up", last()])
    assert list(model.stream("q", stop=OBS)) == [
        AIMessageChunk(content="Action Input: x"),
        last(""),
    ]
    assert (model.sent, model.closed) == (3, True)


def test_a_held_tail_is_released_when_it_turns_out_not_to_be_a_marker() -> None:
    model = IgnoresStop(["a\nOb", "ject", "ive\n", last("!")])
    assert list(model.stream("q", stop=OBS)) == [
        AIMessageChunk(content="a"),
        AIMessageChunk(content="\nObject"),
        AIMessageChunk(content="ive"),
        last("\n!"),
    ]
    assert model.closed is False


def test_a_marker_split_over_three_chunks_cuts_the_middle_of_the_first() -> None:
    model = IgnoresStop(["done.\nO", "bserv", "ation: x"])
    assert list(model.stream("q", stop=OBS)) == [AIMessageChunk(content="done."), last("")]


def test_a_marker_inside_one_chunk_keeps_the_text_before_it() -> None:
    model = IgnoresStop(["Final", " Answer: 4\nObservation: 5", " more"])
    assert list(model.stream("q", stop=OBS)) == [
        AIMessageChunk(content="Final"),
        last(" Answer: 4"),
    ]
    assert (model.sent, model.closed) == (2, True)


def test_a_marker_prefix_at_the_end_of_the_reply_is_released_at_the_end() -> None:
    model = IgnoresStop(["x\n", last("Obs")])
    assert list(model.stream("q", stop=OBS)) == [AIMessageChunk(content="x"), last("\nObs")]
    unmarked = IgnoresStop(["x\n", "Obs"])  # the stream ends with no chunk marked last
    assert list(unmarked.stream("q", stop=OBS)) == [
        AIMessageChunk(content="x"),
        AIMessageChunk(content="\nObs"),
        last(""),
    ]


def test_an_earlier_unfinished_marker_beats_a_later_finished_one() -> None:
    # "c" is complete in "abc", but "abcd" started earlier and could still finish.
    model = IgnoresStop(["ab", "c", "e", "f"], ["ab", "c", "d", "e"])
    assert list(model.stream("q", stop=["abcd", "c"])) == [last("ab")]
    assert list(model.stream("q", stop=["abcd", "c"])) == [last("")]


def test_chunks_with_tool_calls_or_usage_go_on_while_their_text_is_held() -> None:
    call = tool_call_chunk(name="search", args="{}", id="c1", index=0)
    model = IgnoresStop(
        [
            "a\n",
            AIMessageChunk(content="Obs", tool_call_chunks=[call]),
            "!",
            last(usage_metadata=USAGE),
        ]
    )
    assert list(model.stream("q", stop=OBS)) == [
        AIMessageChunk(content="a"),
        AIMessageChunk(content="", tool_call_chunks=[call]),
        AIMessageChunk(content="\nObs!"),
        last(usage_metadata=USAGE),
    ]


def test_the_cut_chunk_keeps_what_it_carries_and_says_stop() -> None:
    call = tool_call_chunk(name="search", args="{}", id="c1", index=0)
    cut = AIMessageChunk(
        content="x STOP y", tool_call_chunks=[call], response_metadata={"finish_reason": "length"}
    )
    assert list(IgnoresStop([cut, "z"]).stream("q", stop=["STOP"])) == [
        last("x ", tool_call_chunks=[call], response_metadata={"finish_reason": "stop"})
    ]


async def test_astream_cuts_and_closes_the_model_stream() -> None:
    model = IgnoresStop(["Action Input: x", "\nObs", "ervation: made", " up", last()])
    chunks = [chunk async for chunk in model.astream("q", stop=OBS)]
    assert chunks == [AIMessageChunk(content="Action Input: x"), last("")]
    assert (model.sent, model.closed) == (3, True)


class Tokens(BaseCallbackHandler):
    """Asks for token streaming and keeps the tokens."""

    wants_tokens = True

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.ends: list[Any] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.ends.append(response.generations[0][0].message.content)


async def test_callbacks_never_see_text_past_the_marker() -> None:
    reply: list[Piece] = ["Thought: t\nAct", "ion: a\nObs", "ervation: fake", last()]
    model = IgnoresStop(reply, reply, reply)
    handler = Tokens()
    config: Any = {"callbacks": [handler]}
    assert model.invoke("q", config, stop=OBS).content == "Thought: t\nAction: a"
    assert (await model.ainvoke("q", config, stop=OBS)).content == "Thought: t\nAction: a"
    streamed = [c.content for c in model.stream("q", config, stop=OBS)]
    assert streamed == ["Thought: t\nAct", "ion: a", ""]
    assert handler.tokens == ["Thought: t\nAct", "ion: a", ""] * 3
    assert handler.ends == ["Thought: t\nAction: a"] * 3


def test_invoke_with_callbacks_but_no_streaming_cuts_and_reports_the_cut_reply() -> None:
    class NoTokens(Tokens):
        wants_tokens = False

    handler = NoTokens()
    model = IgnoresStop(["a STOP b"])
    assert model.invoke("q", {"callbacks": [handler]}, stop=["STOP"]).content == "a "
    assert (handler.tokens, handler.ends) == ([], ["a "])


# -- properties --------------------------------------------------------------------------------

alphabet = st.sampled_from("ab\nO")
markers = st.lists(st.text(alphabet, min_size=1, max_size=4), min_size=1, max_size=3)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, list[str], list[int]]:
    """Stop markers, a text made of markers and other bits (so markers meet), and cut points."""
    stop = draw(markers)
    bits = st.one_of(st.sampled_from(stop), st.text(alphabet, max_size=3))
    text = "".join(draw(st.lists(bits, max_size=8)))
    if draw(st.booleans()):
        return text, stop, list(range(len(text)))  # one character per chunk
    return text, stop, draw(st.lists(st.integers(min_value=0), max_size=8))


# A marker found inside a longer one that started earlier is not the first (yet).
NESTED = ("x\nOb|", ["\nOb", "O"], [1, 2, 3])


def reference_cut(text: str, stop: list[str]) -> str:
    """The text before the first position where any marker starts (the spec, by brute force)."""
    for at in range(len(text)):
        if any(text.startswith(marker, at) for marker in stop):
            return text[:at]
    return text


def pieces_of(text: str, cuts: list[int]) -> list[str]:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@given(case=cases())
@example(case=NESTED)
def test_streamed_equals_invoked_equals_the_text_cut_at_the_first_marker(
    case: tuple[str, list[str], list[int]],
) -> None:
    text, stop, cuts = case
    pieces = pieces_of(text, cuts) or [""]
    model = IgnoresStop(pieces, pieces)
    chunks = list(model.stream("q", stop=stop))
    assert [c.chunk_position for c in chunks] == [None] * (len(chunks) - 1) + ["last"]
    streamed = "".join(str(c.content) for c in chunks)
    expected = reference_cut(text, stop)
    assert streamed == model.invoke("q", stop=stop).content == expected == cut_text(text, stop)
    if text:  # the model streams no empty piece, and the cut adds none before the last
        assert all(c.content for c in chunks[:-1])


@given(case=cases())
@example(case=NESTED)
def test_the_scanner_holds_back_only_a_possible_marker_start(
    case: tuple[str, list[str], list[int]],
) -> None:
    text, stop, cuts = case
    scanner = StopScanner(stop)
    received = released = ""
    for piece in pieces_of(text, cuts):
        received += piece
        released += scanner.feed(piece)
        if scanner.marker is not None:
            break
        held = received[len(released) :]
        assert received.startswith(released)
        assert held == "" or any(len(m) > len(held) and m.startswith(held) for m in stop)
    else:
        released += scanner.flush()
    assert released == reference_cut(text, stop)


# -- agents ------------------------------------------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return {"Paris": "sunny, 21 C"}[city]


HALLUCINATED: list[Piece] = [
    " I need the weather.\nAction: get_weather\nAction Input: Paris",
    "\nObservation: snowing, -5 C\nThought: I now know the final answer\nFinal Answer: snow",
    last(response_metadata={"finish_reason": "stop"}),
]
ANSWER: list[Piece] = [" I now know the final answer.\nFinal Answer: It is sunny in Paris.", last()]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
async def test_react_agent_over_a_model_that_ignores_stop(mode: str) -> None:
    model = IgnoresStop(HALLUCINATED, ANSWER)
    agent = create_react_agent(model, [get_weather], REACT_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[get_weather], return_intermediate_steps=True)
    question = {"input": "Weather in Paris?"}
    if mode == "invoke":
        result = executor.invoke(question)
    elif mode == "ainvoke":
        result = await executor.ainvoke(question)
    elif mode == "stream":
        result = list(executor.stream(question))[-1]
    else:
        result = [chunk async for chunk in executor.astream(question)][-1]
    assert result["output"] == "It is sunny in Paris."
    assert [(a.tool, a.tool_input, a.log, obs) for a, obs in result["intermediate_steps"]] == [
        (
            "get_weather",
            "Paris",
            " I need the weather.\nAction: get_weather\nAction Input: Paris",
            "sunny, 21 C",
        )
    ]


def test_without_the_cut_the_same_reply_is_a_parse_error() -> None:
    class Plain(IgnoresStop):
        client_side_stop = False

    agent = create_react_agent(Plain(HALLUCINATED), [get_weather], REACT_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[get_weather])
    with pytest.raises(ValueError, match="An output parsing error occurred") as caught:
        executor.invoke({"input": "Weather in Paris?"})
    assert isinstance(caught.value.__cause__, OutputParserException)
    assert str(caught.value.__cause__) == (
        "Parsing LLM output produced both a final answer and a parse-able action:: "
        + "".join(str(piece) for piece in HALLUCINATED[:2])
    )


def test_scripted_models_cut_before_streaming_and_keep_their_last_chunk() -> None:
    reply = ScriptedChatModel.reply("x y STOP z", usage=USAGE)
    model = ScriptedChatModel([reply, reply])
    assert model.invoke("q", stop=["STOP"]) == AIMessage(content="x y ", usage_metadata=USAGE)
    assert list(model.stream("q", stop=["STOP"])) == [
        AIMessageChunk(content="x"),
        AIMessageChunk(content=" "),
        AIMessageChunk(content="y"),
        last(" ", usage_metadata=USAGE),
    ]
