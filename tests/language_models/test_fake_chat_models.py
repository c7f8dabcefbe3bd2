"""FakeListChatModel and GenericFakeChatModel behave as LangChain's fakes do."""

from __future__ import annotations

import threading

import pytest
from chat_model_support import ModelEvents

from leanchain.errors import ScriptExhaustedError
from leanchain.language_models import (
    FakeListChatModel,
    FakeListChatModelError,
    GenericFakeChatModel,
)
from leanchain.messages import AIMessage, AIMessageChunk, message_chunk_to_message, tool_call_chunk

# -- FakeListChatModel ------------------------------------------------------------------------


def test_fake_list_cycles_through_responses() -> None:
    model = FakeListChatModel(["one", "two"])
    assert [model.invoke("q").content for _ in range(5)] == ["one", "two", "one", "two", "one"]
    assert model.invoke("q") == AIMessage(content="two")


def test_fake_list_starts_at_i() -> None:
    model = FakeListChatModel(responses=["one", "two"], i=1)
    assert model.invoke("q") == AIMessage(content="two")


def test_fake_list_streams_one_character_per_chunk() -> None:
    assert list(FakeListChatModel(["ab c"]).stream("q")) == [
        AIMessageChunk(content="a"),
        AIMessageChunk(content="b"),
        AIMessageChunk(content=" "),
        AIMessageChunk(content="c", chunk_position="last"),
    ]


def test_fake_list_empty_response_streams_one_empty_last_chunk() -> None:
    assert list(FakeListChatModel([""]).stream("q")) == [
        AIMessageChunk(content="", chunk_position="last")
    ]


def test_fake_list_ignores_stop() -> None:
    model = FakeListChatModel(["a\nObservation: x"]).bind(stop=["\nObservation"])
    assert model.invoke("q") == AIMessage(content="a\nObservation: x")


def test_fake_list_error_on_chunk_number() -> None:
    model = FakeListChatModel(["abc"], error_on_chunk_number=2)
    seen: list[AIMessageChunk] = []
    with pytest.raises(FakeListChatModelError, match=r"^FakeListChatModel error on chunk 2$"):
        seen.extend(model.stream("q"))
    assert seen == [AIMessageChunk(content="a"), AIMessageChunk(content="b")]


def test_fake_list_batch_is_sequential_and_ordered() -> None:
    model = FakeListChatModel(["1", "2", "3"])
    assert [m.content for m in model.batch(["a", "b", "c", "d"])] == ["1", "2", "3", "1"]


async def test_fake_list_abatch_is_sequential_and_ordered() -> None:
    model = FakeListChatModel(["1", "2", "3"], sleep=0.001)
    assert [m.content for m in await model.abatch(["a", "b", "c"])] == ["1", "2", "3"]


async def test_fake_list_async_invoke_and_stream() -> None:
    model = FakeListChatModel(["hi", "yo"], sleep=0.001)
    assert await model.ainvoke("q") == AIMessage(content="hi")
    assert [c async for c in model.astream("q")] == [
        AIMessageChunk(content="y"),
        AIMessageChunk(content="o", chunk_position="last"),
    ]


def test_fake_list_batch_return_exceptions() -> None:
    model = FakeListChatModel(["ok"])
    results = model.batch(["a", 3], return_exceptions=True)  # type: ignore[list-item]
    assert results[0] == AIMessage(content="ok")
    assert isinstance(results[1], ValueError)
    assert str(results[1]).startswith("Invalid input type <class 'int'>")
    with pytest.raises(ValueError, match=r"^Invalid input type"):
        model.batch(["a", 3])  # type: ignore[list-item]


def test_fake_list_is_thread_safe() -> None:
    model = FakeListChatModel([str(i) for i in range(10)])
    seen: list[str] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(50):
            text = model.invoke("q").text
            with lock:
                seen.append(text)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == sorted([str(i) for i in range(10)] * 20)


def test_fake_list_needs_responses() -> None:
    with pytest.raises(ValueError, match=r"needs a non-empty list of response strings, got \[\]$"):
        FakeListChatModel([])
    with pytest.raises(ValueError, match=r"got 'abc'"):
        FakeListChatModel("abc")


def test_fake_list_token_callbacks() -> None:
    events = ModelEvents()
    list(FakeListChatModel(["hey"]).stream("q", {"callbacks": [events]}))
    assert events.tokens() == ["h", "e", "y"]


# -- GenericFakeChatModel ---------------------------------------------------------------------


def test_generic_fake_returns_messages_in_order_then_raises() -> None:
    replies: list[AIMessage | str] = ["hello", AIMessage(content="bye", id="m2")]
    model = GenericFakeChatModel(messages=iter(replies))
    assert model.invoke("q") == AIMessage(content="hello")
    assert model.invoke("q") == AIMessage(content="bye", id="m2")
    with pytest.raises(
        ScriptExhaustedError,
        match=r"^GenericFakeChatModel ran out of messages after 2 replies; give it more messages$",
    ):
        model.invoke("q")


def test_generic_fake_streams_words_keeping_whitespace() -> None:
    model = GenericFakeChatModel(messages=iter(["hello world,  bye\n"]))
    assert list(model.stream("q")) == [
        AIMessageChunk(content="hello"),
        AIMessageChunk(content=" "),
        AIMessageChunk(content="world,"),
        AIMessageChunk(content=" "),
        AIMessageChunk(content=" "),
        AIMessageChunk(content="bye"),
        AIMessageChunk(content="\n", chunk_position="last"),
    ]


def test_generic_fake_streams_tool_calls_as_chunks() -> None:
    message = AIMessage(
        content="",
        id="m1",
        tool_calls=[
            {"name": "search", "args": {"q": "paris weather"}, "id": "c1"},
            {"name": "calc", "args": {}, "id": "c2"},
        ],
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    )
    chunks = list(GenericFakeChatModel(messages=[message]).stream("q"))
    assert [c.tool_call_chunks for c in chunks] == [
        [tool_call_chunk(name="search", args='{"q":', id="c1", index=0)],
        [tool_call_chunk(name=None, args=" ", id=None, index=0)],
        [tool_call_chunk(name=None, args='"paris', id=None, index=0)],
        [tool_call_chunk(name=None, args=" ", id=None, index=0)],
        [tool_call_chunk(name=None, args='weather"}', id=None, index=0)],
        [tool_call_chunk(name="calc", args="{}", id="c2", index=1)],
    ]
    assert {c.id for c in chunks} == {"m1"}
    assert [c.chunk_position for c in chunks] == [None] * 5 + ["last"]
    assert chunks[-1].usage_metadata == message.usage_metadata
    assert message_chunk_to_message(chunks[0] + chunks[1:]) == message


def test_generic_fake_streams_additional_kwargs_key_by_key() -> None:
    message = AIMessage(
        content="hi",
        additional_kwargs={
            "function_call": {"name": "f", "arguments": '{"a": 1, "b": 2}'},
            "extra": "x",
        },
    )
    chunks = list(GenericFakeChatModel(messages=[message]).stream("q"))
    assert [c.additional_kwargs for c in chunks] == [
        {},
        {"function_call": {"name": "f"}},
        {"function_call": {"arguments": '{"a": 1'}},
        {"function_call": {"arguments": ","}},
        {"function_call": {"arguments": ' "b": 2}'}},
        {"extra": "x"},
    ]
    merged = chunks[0] + chunks[1:]
    assert merged.additional_kwargs == message.additional_kwargs
    assert merged.content == "hi"


def test_generic_fake_raw_tool_calls_are_streamed_once() -> None:
    raw = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]
    message = AIMessage(content="", additional_kwargs={"tool_calls": raw})
    assert message.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    chunks = list(GenericFakeChatModel(messages=[message]).stream("q"))
    merged = chunks[0] + chunks[1:]
    assert merged.tool_calls == message.tool_calls


def test_generic_fake_accepts_bind_tools_and_ignores_tools() -> None:
    def search(query: str) -> str:
        """Search the web."""
        return query

    model = GenericFakeChatModel(messages=["fine"])
    assert model.bind_tools([search]).invoke("q") == AIMessage(content="fine")


async def test_generic_fake_async() -> None:
    model = GenericFakeChatModel(messages=["a b", "c"])
    assert [c async for c in model.astream("q")] == [
        AIMessageChunk(content="a"),
        AIMessageChunk(content=" "),
        AIMessageChunk(content="b", chunk_position="last"),
    ]
    assert await model.ainvoke("q") == AIMessage(content="c")
    with pytest.raises(ScriptExhaustedError):
        await model.ainvoke("q")


def test_generic_fake_token_callbacks() -> None:
    events = ModelEvents()
    list(GenericFakeChatModel(messages=["a b"]).stream("q", {"callbacks": [events]}))
    assert events.tokens() == ["a", " ", "b"]
