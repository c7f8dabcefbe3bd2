"""ScriptedChatModel and FunctionChatModel: replies, records, tools, stop, streaming."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from chat_model_support import ModelEvents

from leanchain.errors import ScriptExhaustedError
from leanchain.language_models import (
    ChatRequest,
    FunctionChatModel,
    ScriptedChatModel,
)
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    UsageMetadata,
    message_chunk_to_message,
    tool_call_chunk,
)

USAGE: UsageMetadata = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
SEARCH_SCHEMA = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Look things up.",
        "parameters": {
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
            "type": "object",
        },
    },
}


def search(query: str) -> str:
    """Look things up."""
    return query


# -- replies and the script -------------------------------------------------------------------


def test_script_plays_replies_in_order() -> None:
    model = ScriptedChatModel(
        [
            "plain text",
            AIMessage(content="a message", id="m1"),
            {"content": "from a dict", "response_metadata": {"finish_reason": "stop"}},
        ]
    )
    assert model.remaining == 3
    assert model.invoke("q") == AIMessage(content="plain text")
    assert model.invoke("q") == AIMessage(content="a message", id="m1")
    assert model.invoke("q") == AIMessage(
        content="from a dict", response_metadata={"finish_reason": "stop"}
    )
    assert model.remaining == 0


def test_exhausted_script_raises_and_still_records() -> None:
    model = ScriptedChatModel(["only"])
    model.invoke("first")
    with pytest.raises(
        ScriptExhaustedError,
        match=(
            r"^ScriptedChatModel script exhausted after 1 replies; add more replies to the script$"
        ),
    ):
        model.invoke("second")
    assert [r.messages for r in model.requests] == [
        [HumanMessage("first")],
        [HumanMessage("second")],
    ]
    assert isinstance(ScriptExhaustedError("x"), RuntimeError)


def test_empty_script_is_exhausted_at_once() -> None:
    with pytest.raises(ScriptExhaustedError, match=r"after 0 replies"):
        ScriptedChatModel([]).invoke("q")


def test_exception_in_script_is_raised_at_its_turn() -> None:
    boom = ConnectionError("provider down")
    model = ScriptedChatModel([boom, "recovered"])
    with pytest.raises(ConnectionError, match=r"^provider down$"):
        model.invoke("q")
    assert model.invoke("q") == AIMessage(content="recovered")
    assert len(model.requests) == 2


def test_exception_in_script_is_raised_before_any_chunk() -> None:
    model = ScriptedChatModel([ValueError("bad")])
    seen: list[AIMessageChunk] = []
    with pytest.raises(ValueError, match=r"^bad$"):
        seen.extend(model.stream("q"))
    assert seen == []


def test_helpers_build_replies() -> None:
    assert ScriptedChatModel.reply("hi", usage=USAGE, id="r1") == AIMessage(
        content="hi", usage_metadata=USAGE, id="r1"
    )
    assert ScriptedChatModel.tool_call("search", {"query": "x"}, id="c9") == AIMessage(
        content="", tool_calls=[{"name": "search", "args": {"query": "x"}, "id": "c9"}]
    )
    assert ScriptedChatModel.tool_calls(("a", {"x": 1}), ("b", {}), content="both") == AIMessage(
        content="both",
        tool_calls=[
            {"name": "a", "args": {"x": 1}, "id": None},
            {"name": "b", "args": {}, "id": None},
        ],
    )


def test_tool_calls_without_ids_are_numbered_in_script_order() -> None:
    model = ScriptedChatModel(
        [
            ScriptedChatModel.tool_call("a"),
            ScriptedChatModel.tool_calls(("b", {}), ("c", {})),
            ScriptedChatModel.tool_call("d", id="mine"),
            {"content": "", "tool_calls": [{"name": "e", "args": {"k": "v"}}]},
        ]
    )
    ids = [[call["id"] for call in model.invoke("q").tool_calls] for _ in range(4)]
    assert ids == [["call_1"], ["call_2", "call_3"], ["mine"], ["call_4"]]


def test_bad_script_items_fail_at_construction() -> None:
    with pytest.raises(
        TypeError, match=r"^ScriptedChatModel takes a list of replies, got a single str$"
    ):
        ScriptedChatModel("hello")
    with pytest.raises(
        TypeError,
        match=r"^Script replies must be a str, an AIMessage or a dict of AIMessage fields, "
        r"got int: 3$",
    ):
        ScriptedChatModel([3])  # type: ignore[list-item]


def test_repr() -> None:
    model = ScriptedChatModel(["a", "b"])
    model.invoke("q")
    assert repr(model) == "ScriptedChatModel(remaining=1, served=1)"


# -- requests, tools and stop -----------------------------------------------------------------


def test_requests_record_messages_tools_choice_stop_and_kwargs() -> None:
    model = ScriptedChatModel([ScriptedChatModel.tool_call("search", {"query": "x"}), "done"])
    agent_model = model.bind_tools([search], tool_choice="auto", parallel_tool_calls=False)
    history: list[BaseMessage] = [SystemMessage("be brief"), HumanMessage("find x")]
    first = agent_model.invoke(history)
    history += [first, ToolMessage("found x", tool_call_id=first.tool_calls[0]["id"])]
    assert agent_model.invoke(history, stop=["\nObservation"]) == AIMessage(content="done")
    assert model.requests == [
        ChatRequest(
            messages=[SystemMessage("be brief"), HumanMessage("find x")],
            tools=[SEARCH_SCHEMA],
            tool_choice="auto",
            stop=None,
            kwargs={"parallel_tool_calls": False},
        ),
        ChatRequest(
            messages=[
                SystemMessage("be brief"),
                HumanMessage("find x"),
                AIMessage(
                    content="",
                    tool_calls=[{"name": "search", "args": {"query": "x"}, "id": "call_1"}],
                ),
                ToolMessage("found x", tool_call_id="call_1"),
            ],
            tools=[SEARCH_SCHEMA],
            tool_choice="auto",
            stop=["\nObservation"],
            kwargs={"parallel_tool_calls": False},
        ),
    ]
    assert model.requests[0].tool_names == ["search"]
    assert model.last_request is model.requests[1]


def test_bind_tools_without_tool_choice_records_none() -> None:
    model = ScriptedChatModel(["x"])
    model.bind_tools([SEARCH_SCHEMA]).invoke("q")
    assert model.requests[0].tool_choice is None
    assert model.requests[0].tools == [SEARCH_SCHEMA]
    assert "tool_choice" not in model.requests[0].kwargs


def test_request_is_frozen() -> None:
    model = ScriptedChatModel(["x"])
    model.invoke("q")
    with pytest.raises(AttributeError):
        model.requests[0].stop = ["x"]  # type: ignore[misc]
    assert ScriptedChatModel([]).last_request is None


def test_stop_truncates_text_at_the_first_stop_sequence() -> None:
    text = "Thought: look\nAction: search\nAction Input: x\nObservation: made up"
    model = ScriptedChatModel([text, text, "no marker here"])
    stopped = model.bind(stop=["\nObservation", "Action Input"])
    assert stopped.invoke("q") == AIMessage(content="Thought: look\nAction: search\n")
    assert "".join(c.text for c in stopped.stream("q")) == "Thought: look\nAction: search\n"
    assert stopped.invoke("q") == AIMessage(content="no marker here")
    assert [r.stop for r in model.requests] == [["\nObservation", "Action Input"]] * 3


def test_stop_keeps_tool_calls() -> None:
    reply = ScriptedChatModel.tool_call("search", {"query": "x"}, id="c1", content="ok STOP no")
    model = ScriptedChatModel([reply])
    assert model.invoke("q", stop=["STOP"]) == AIMessage(
        content="ok ", tool_calls=[{"name": "search", "args": {"query": "x"}, "id": "c1"}]
    )


# -- streaming --------------------------------------------------------------------------------


def test_streams_words_and_marks_the_last_chunk() -> None:
    model = ScriptedChatModel([ScriptedChatModel.reply("Hi there!", usage=USAGE, id="m1")])
    assert list(model.stream("q")) == [
        AIMessageChunk(content="Hi", id="m1"),
        AIMessageChunk(content=" ", id="m1"),
        AIMessageChunk(
            content="there!",
            id="m1",
            usage_metadata=USAGE,
            chunk_position="last",
        ),
    ]


def test_additional_kwargs_ride_on_the_last_chunk_so_the_stream_adds_up_to_the_reply() -> None:
    reply = AIMessage(content="No thanks.", additional_kwargs={"refusal": "No thanks."})
    model = ScriptedChatModel([reply, reply])
    assert list(model.stream("q")) == [
        AIMessageChunk(content="No"),
        AIMessageChunk(content=" "),
        AIMessageChunk(
            content="thanks.", additional_kwargs={"refusal": "No thanks."}, chunk_position="last"
        ),
    ]
    assert message_chunk_to_message(sum_chunks(model.stream("q"))) == reply


def sum_chunks(chunks: Any) -> AIMessageChunk:
    total, *rest = list(chunks)
    for chunk in rest:
        total = total + chunk
    return total  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("chunking", "pieces"),
    [
        ("words", ["ab", " ", "cd"]),
        ("chars", ["a", "b", " ", "c", "d"]),
        (2, ["ab", " c", "d"]),
        (lambda text: [text[:1], text[1:]], ["a", "b cd"]),
    ],
)
def test_chunking(chunking: Any, pieces: list[str]) -> None:
    model = ScriptedChatModel(["ab cd"], chunking=chunking)
    assert [c.content for c in model.stream("q")] == pieces


def test_bad_chunking() -> None:
    with pytest.raises(ValueError, match=r"^chunking must be 'words', 'chars', a positive int"):
        ScriptedChatModel(["x"], chunking=0)
    model = ScriptedChatModel(["abc"], chunking=lambda text: ["a", "b"])
    with pytest.raises(ValueError, match=r"^chunking function's pieces \['a', 'b'\] do not join"):
        list(model.stream("q"))


def test_streams_tool_calls_as_tool_call_chunks() -> None:
    reply = ScriptedChatModel.tool_calls(
        ("search", {"query": "paris"}), ("calc", {"expr": "1+1"}), content="Let me"
    )
    model = ScriptedChatModel([reply])
    chunks = list(model.stream("q"))
    assert chunks == [
        AIMessageChunk(content="Let"),
        AIMessageChunk(content=" "),
        AIMessageChunk(content="me"),
        AIMessageChunk(
            content="",
            tool_call_chunks=[
                tool_call_chunk(name="search", args='{"query":', id="call_1", index=0)
            ],
        ),
        AIMessageChunk(
            content="", tool_call_chunks=[tool_call_chunk(name=None, args=" ", id=None, index=0)]
        ),
        AIMessageChunk(
            content="",
            tool_call_chunks=[tool_call_chunk(name=None, args='"paris"}', id=None, index=0)],
        ),
        AIMessageChunk(
            content="",
            tool_call_chunks=[tool_call_chunk(name="calc", args='{"expr":', id="call_2", index=1)],
        ),
        AIMessageChunk(
            content="", tool_call_chunks=[tool_call_chunk(name=None, args=" ", id=None, index=1)]
        ),
        AIMessageChunk(
            content="",
            tool_call_chunks=[tool_call_chunk(name=None, args='"1+1"}', id=None, index=1)],
            chunk_position="last",
        ),
    ]
    assert message_chunk_to_message(chunks[0] + chunks[1:]) == AIMessage(
        content="Let me",
        tool_calls=[
            {"name": "search", "args": {"query": "paris"}, "id": "call_1"},
            {"name": "calc", "args": {"expr": "1+1"}, "id": "call_2"},
        ],
    )


def test_streamed_tokens_reach_callbacks() -> None:
    events = ModelEvents()
    model = ScriptedChatModel([ScriptedChatModel.tool_call("f", {}, content="go")])
    list(model.stream("q", {"callbacks": [events]}))
    assert events.tokens() == ["go", ""]
    assert events.names()[-1] == "on_llm_end"


async def test_async_invoke_and_stream() -> None:
    model = ScriptedChatModel(["a b", "c"], delay=0.001)
    assert [c.content async for c in model.astream("q")] == ["a", " ", "b"]
    assert await model.ainvoke("q") == AIMessage(content="c")
    with pytest.raises(ScriptExhaustedError):
        await model.ainvoke("q")


async def test_chunk_delay_lets_streams_interleave() -> None:
    model = ScriptedChatModel(["a1 a2 a3", "b1 b2 b3"], chunk_delay=0.01, chunking=3)
    order: list[str] = []

    async def consume() -> None:
        async for chunk in model.astream("q"):
            order.append(chunk.text.strip())

    await asyncio.gather(consume(), consume())
    assert sorted(order) == ["a1", "a2", "a3", "b1", "b2", "b3"]
    assert order[:2] == ["a1", "b1"]


def test_batch_is_sequential() -> None:
    model = ScriptedChatModel(["1", "2", "3"])
    assert [m.content for m in model.batch(["a", "b", "c"])] == ["1", "2", "3"]
    assert [r.messages[0].text for r in model.requests] == ["a", "b", "c"]


def test_thread_safe_each_reply_served_once() -> None:
    model = ScriptedChatModel([str(i) for i in range(100)])
    seen: list[str] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(25):
            text = model.invoke("q").text
            with lock:
                seen.append(text)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen, key=int) == [str(i) for i in range(100)]
    assert len(model.requests) == 100


# -- FunctionChatModel ------------------------------------------------------------------------


def test_function_model_answers_from_messages_and_request() -> None:
    def answer(messages: list[BaseMessage], request: ChatRequest) -> Any:
        if not any(m.type == "tool" for m in messages):
            return FunctionChatModel.tool_call(request.tool_names[0], {"query": messages[-1].text})
        return "done: " + messages[-1].text

    model = FunctionChatModel(answer)
    bound = model.bind_tools([search])
    first = bound.invoke("paris")
    assert first == AIMessage(
        content="", tool_calls=[{"name": "search", "args": {"query": "paris"}, "id": "call_1"}]
    )
    second = bound.invoke(
        [HumanMessage("paris"), first, ToolMessage("sunny", tool_call_id="call_1")]
    )
    assert second == AIMessage(content="done: sunny")
    assert [r.tool_names for r in model.requests] == [["search"], ["search"]]


def test_function_model_dict_reply_stop_and_stream() -> None:
    model = FunctionChatModel(lambda messages, request: {"content": "x y STOP z"})
    assert model.invoke("q", stop=["STOP"]) == AIMessage(content="x y ")
    assert [c.content for c in model.stream("q", stop=["STOP"])] == ["x", " ", "y", " "]
    assert [r.stop for r in model.requests] == [["STOP"], ["STOP"]]


async def test_function_model_async_function() -> None:
    async def answer(messages: list[BaseMessage], request: ChatRequest) -> str:
        await asyncio.sleep(0)
        return f"{len(messages)} messages"

    model = FunctionChatModel(answer)
    assert await model.ainvoke("q") == AIMessage(content="1 messages")
    assert [c.content async for c in model.astream("q")] == ["1", " ", "messages"]
    with pytest.raises(TypeError, match=r"^FunctionChatModel's function is async: use ainvoke"):
        model.invoke("q")


async def test_function_model_sync_function_from_async() -> None:
    model = FunctionChatModel(lambda messages, request: "sync")
    assert await model.ainvoke("q") == AIMessage(content="sync")
    assert len(model.requests) == 1


def test_function_model_rejects_bad_replies_and_functions() -> None:
    with pytest.raises(TypeError, match=r"^FunctionChatModel needs a callable, got 3$"):
        FunctionChatModel(3)  # type: ignore[arg-type]
    model = FunctionChatModel(lambda messages, request: 42)  # type: ignore[arg-type, return-value]
    with pytest.raises(
        TypeError, match=r"^FunctionChatModel replies must be a str, an AIMessage or a dict"
    ):
        model.invoke("q")
