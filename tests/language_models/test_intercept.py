"""The model-call interception point: `intercept_model_calls`, `ModelInterceptor`, `ModelCall`."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator
from typing import Any, cast

import pytest
from chat_model_support import EchoModel, FailingStreamModel, ModelEvents

from leanchain.language_models import (
    ModelCall,
    ModelInterceptor,
    ScriptedChatModel,
    intercept_model_calls,
)
from leanchain.language_models._intercept import INTERCEPTORS
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    UsageMetadata,
)
from leanchain.prompts import ChatPromptTemplate
from leanchain.tools import tool

USAGE = UsageMetadata(input_tokens=3, output_tokens=2, total_tokens=5)


@tool
def lookup(query: str) -> str:
    """Look a query up."""
    return query


class Log(ModelInterceptor):
    """Logs every hook it sees as ``(label, hook, what)`` into a shared list, then proceeds."""

    def __init__(self, label: str, log: list[tuple[str, str, Any]]) -> None:
        self.label = label
        self.log = log

    def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
        self.log.append((self.label, "invoke:before", [m.text for m in call.messages]))
        reply = proceed()
        self.log.append((self.label, "invoke:after", reply.text))
        return reply

    async def ainvoke(
        self, call: ModelCall, proceed: Callable[[], Awaitable[AIMessage]]
    ) -> AIMessage:
        self.log.append((self.label, "ainvoke:before", [m.text for m in call.messages]))
        reply = await proceed()
        self.log.append((self.label, "ainvoke:after", reply.text))
        return reply

    def stream(
        self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
    ) -> Iterator[AIMessageChunk]:
        self.log.append((self.label, "stream:before", [m.text for m in call.messages]))
        for chunk in proceed():
            self.log.append((self.label, "stream:chunk", chunk.content))
            yield chunk
        self.log.append((self.label, "stream:after", None))

    async def astream(
        self, call: ModelCall, proceed: Callable[[], AsyncIterator[AIMessageChunk]]
    ) -> AsyncIterator[AIMessageChunk]:
        self.log.append((self.label, "astream:before", [m.text for m in call.messages]))
        async for chunk in proceed():
            self.log.append((self.label, "astream:chunk", chunk.content))
            yield chunk
        self.log.append((self.label, "astream:after", None))


class Seen(ModelInterceptor):
    """Keeps every call and the usage of every reply it sees (invoke and stream)."""

    def __init__(self) -> None:
        self.calls: list[ModelCall] = []
        self.usage: list[Any] = []

    def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
        self.calls.append(call)
        reply = proceed()
        self.usage.append(reply.usage_metadata)
        return reply

    def stream(
        self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
    ) -> Iterator[AIMessageChunk]:
        self.calls.append(call)
        for chunk in proceed():
            if chunk.usage_metadata is not None:
                self.usage.append(chunk.usage_metadata)
            yield chunk


def scripted(*replies: Any) -> ScriptedChatModel:
    return ScriptedChatModel(list(replies) or [ScriptedChatModel.reply("hello there", usage=USAGE)])


def test_unset_there_are_no_interceptors() -> None:
    assert INTERCEPTORS.get() == ()
    assert scripted().invoke("hi").text == "hello there"


def test_invoke_sees_the_converted_call_and_the_reply_usage() -> None:
    seen = Seen()
    model = scripted()
    prompt = ChatPromptTemplate.from_messages([("system", "be brief"), ("human", "{q}")])
    chain = prompt | model.bind_tools([lookup], tool_choice="auto")
    with intercept_model_calls(seen):
        reply = chain.invoke({"q": "hi"}, {"tags": ["t1"]}, stop=None)
    assert reply == AIMessage(content="hello there", usage_metadata=USAGE)
    assert seen.usage == [USAGE]
    [call] = seen.calls
    assert call.model is model
    assert call.messages == [SystemMessage("be brief"), HumanMessage("hi")]
    assert call.stop is None
    assert sorted(call.kwargs) == ["tool_choice", "tools"]
    assert call.kwargs["tool_choice"] == "auto"
    assert [t["function"]["name"] for t in call.kwargs["tools"]] == ["lookup"]
    assert call.config.get("tags") == ["t1"]
    assert repr(call) == (
        "ModelCall(model='ScriptedChatModel', messages=2, stop=None, "
        "kwargs=['tool_choice', 'tools'])"
    )


def test_invoke_passes_stop() -> None:
    seen = Seen()
    with intercept_model_calls(seen):
        scripted().invoke("hi", stop=["\nObservation"])
    assert seen.calls[0].stop == ["\nObservation"]


async def test_ainvoke_goes_through_the_async_hook() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("a", log)):
        reply = await scripted().ainvoke("hi")
    assert reply.text == "hello there"
    assert log == [("a", "ainvoke:before", ["hi"]), ("a", "ainvoke:after", "hello there")]


def test_stream_sees_every_chunk_in_order() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("a", log)):
        chunks = list(scripted().stream("hi"))
    assert [c.content for c in chunks] == ["hello", " ", "there"]
    assert chunks[-1].chunk_position == "last"
    assert log == [
        ("a", "stream:before", ["hi"]),
        ("a", "stream:chunk", "hello"),
        ("a", "stream:chunk", " "),
        ("a", "stream:chunk", "there"),
        ("a", "stream:after", None),
    ]


async def test_astream_sees_every_chunk_in_order() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("a", log)):
        chunks = [c async for c in scripted().astream("hi")]
    assert [c.content for c in chunks] == ["hello", " ", "there"]
    assert log == [
        ("a", "astream:before", ["hi"]),
        ("a", "astream:chunk", "hello"),
        ("a", "astream:chunk", " "),
        ("a", "astream:chunk", "there"),
        ("a", "astream:after", None),
    ]


def test_stream_usage_reaches_the_interceptor() -> None:
    seen = Seen()
    with intercept_model_calls(seen):
        list(scripted().stream("hi"))
    assert seen.usage == [USAGE]


def test_the_first_pushed_is_the_outermost() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("outer", log)), intercept_model_calls(Log("inner", log)):
        scripted().invoke("hi")
    assert log == [
        ("outer", "invoke:before", ["hi"]),
        ("inner", "invoke:before", ["hi"]),
        ("inner", "invoke:after", "hello there"),
        ("outer", "invoke:after", "hello there"),
    ]


def test_nesting_order_when_streaming() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("outer", log)), intercept_model_calls(Log("inner", log)):
        list(scripted(ScriptedChatModel.reply("one")).stream("hi"))
    assert log == [
        ("outer", "stream:before", ["hi"]),
        ("inner", "stream:before", ["hi"]),
        ("inner", "stream:chunk", "one"),
        ("outer", "stream:chunk", "one"),
        ("inner", "stream:after", None),
        ("outer", "stream:after", None),
    ]


def test_leaving_the_block_pops_the_interceptor() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("outer", log)):
        with intercept_model_calls(Log("inner", log)):
            pass
        scripted().invoke("hi")
    scripted().invoke("again")
    assert [entry[0] for entry in log] == ["outer", "outer"]
    assert INTERCEPTORS.get() == ()


def test_stream_falling_back_to_invoke_is_seen_once_as_a_stream() -> None:
    log: list[tuple[str, str, Any]] = []
    model = EchoModel()  # no _stream: stream yields the invoke reply as one chunk
    with intercept_model_calls(Log("a", log)):
        chunks = list(model.stream("hi"))
    assert [(c.content, c.chunk_position) for c in chunks] == [("hi", "last")]
    assert log == [
        ("a", "stream:before", ["hi"]),
        ("a", "stream:chunk", "hi"),
        ("a", "stream:after", None),
    ]
    assert len(model.calls) == 1


async def test_astream_falling_back_to_ainvoke_is_seen_once() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("a", log)):
        chunks = [c async for c in EchoModel().astream("hi")]
    assert [c.content for c in chunks] == ["hi"]
    assert [hook for _, hook, _ in log] == ["astream:before", "astream:chunk", "astream:after"]


def test_invoke_that_streams_for_a_token_handler_is_seen_once_as_invoke() -> None:
    log: list[tuple[str, str, Any]] = []
    handler = ModelEvents(wants_tokens=True)
    with intercept_model_calls(Log("a", log)):
        scripted().invoke("hi", {"callbacks": [handler]})
    assert [hook for _, hook, _ in log] == ["invoke:before", "invoke:after"]
    assert handler.tokens() == ["hello", " ", "there"]


def test_batch_is_one_invoke_per_input() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("a", log)):
        scripted("one", "two").batch(["x", "y"])
    assert log == [
        ("a", "invoke:before", ["x"]),
        ("a", "invoke:after", "one"),
        ("a", "invoke:before", ["y"]),
        ("a", "invoke:after", "two"),
    ]


def test_a_hook_that_is_not_overridden_is_never_called() -> None:
    class OnlyInvoke(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            raise AssertionError("invoke hook called")

    with intercept_model_calls(OnlyInvoke()):
        chunks = list(scripted().stream("hi"))
    assert [c.content for c in chunks] == ["hello", " ", "there"]


def test_the_callbacks_run_happens_inside_proceed() -> None:
    handler = ModelEvents()
    order: list[str] = []

    class Around(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            order.append(f"before:{handler.names()}")
            reply = proceed()
            order.append(f"after:{handler.names()}")
            return reply

    with intercept_model_calls(Around()):
        scripted().invoke("hi", {"callbacks": [handler]})
    assert order == ["before:[]", "after:['on_chat_model_start', 'on_llm_end']"]


def test_not_calling_proceed_runs_neither_the_model_nor_a_callback_run() -> None:
    handler = ModelEvents()
    model = scripted()

    class Canned(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            return AIMessage(content="canned")

    with intercept_model_calls(Canned()):
        reply = model.invoke("hi", {"callbacks": [handler]})
    assert reply == AIMessage(content="canned")
    assert model.requests == []
    assert handler.events == []


def test_answer_gives_the_callbacks_the_run_the_model_would_have_made() -> None:
    live, replayed = ModelEvents(wants_tokens=True), ModelEvents(wants_tokens=True)
    model = scripted()
    recorded = model.invoke("hi", {"callbacks": [live]})

    class Replay(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            return call.answer(recorded)

    with intercept_model_calls(Replay()):
        reply = model.invoke("hi", {"callbacks": [replayed]})
    assert reply == recorded
    assert len(model.requests) == 1
    assert replayed.names() == [
        "on_chat_model_start",
        "on_llm_new_token",
        "on_llm_end",
    ]
    assert replayed.events[0] == live.events[0]
    assert replayed.kwargs[0]["name"] == live.kwargs[0]["name"] == "ScriptedChatModel"
    assert replayed.kwargs[0]["invocation_params"] == live.kwargs[0]["invocation_params"]
    assert replayed.events[2][1].generations[0][0].message == recorded


def test_answer_stream_replays_the_exact_chunks() -> None:
    model = scripted()
    live_chunks = list(model.stream("hi"))

    class Replay(ModelInterceptor):
        def stream(
            self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
        ) -> Iterator[AIMessageChunk]:
            return call.answer_stream(live_chunks)

    handler = ModelEvents()
    with intercept_model_calls(Replay()):
        chunks = list(model.stream("hi", {"callbacks": [handler]}))
    assert chunks == live_chunks
    assert handler.tokens() == ["hello", " ", "there"]


async def test_aanswer_and_aanswer_stream() -> None:
    model = scripted()
    chunks = [c async for c in model.astream("hi")]
    whole = AIMessage(content="hello there", usage_metadata=USAGE)

    class Replay(ModelInterceptor):
        async def ainvoke(
            self, call: ModelCall, proceed: Callable[[], Awaitable[AIMessage]]
        ) -> AIMessage:
            return await call.aanswer(chunks)

        def astream(
            self, call: ModelCall, proceed: Callable[[], AsyncIterator[AIMessageChunk]]
        ) -> AsyncIterator[AIMessageChunk]:
            return call.aanswer_stream(whole)

    with intercept_model_calls(Replay()):
        reply = await model.ainvoke("hi")
        streamed = [c async for c in model.astream("hi")]
    assert reply == whole
    assert [(c.content, c.usage_metadata, c.chunk_position) for c in streamed] == [
        ("hello there", USAGE, "last")
    ]


def test_answer_refuses_what_is_not_a_reply() -> None:
    class Bad(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            return call.answer([])

    with intercept_model_calls(Bad()), pytest.raises(TypeError) as info:
        scripted().invoke("hi")
    assert str(info.value) == (
        "a model call is answered with an AIMessage or a non-empty sequence of "
        "AIMessageChunks, got list"
    )


def test_an_interceptor_may_rewrite_the_call_before_proceeding() -> None:
    model = scripted()

    class Rewrite(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            call.messages = [SystemMessage("injected"), *call.messages]
            call.stop = ["END"]
            return proceed()

    with intercept_model_calls(Rewrite()):
        model.invoke("hi")
    assert model.requests[0].messages == [SystemMessage("injected"), HumanMessage("hi")]
    assert model.requests[0].stop == ["END"]


def test_proceed_twice_runs_the_call_twice() -> None:
    model = scripted("first", "second")

    class Twice(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            proceed()
            return proceed()

    with intercept_model_calls(Twice()):
        assert model.invoke("hi").text == "second"
    assert len(model.requests) == 2


def test_model_exceptions_pass_through_the_interceptor() -> None:
    caught: list[BaseException] = []

    class Catch(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            try:
                return proceed()
            except ValueError as exc:
                caught.append(exc)
                raise

    error = ValueError("model down")
    with intercept_model_calls(Catch()), pytest.raises(ValueError, match=r"^model down$"):
        scripted(error).invoke("hi")
    assert caught == [error]


def test_stream_exceptions_pass_through_after_the_chunks_before_them() -> None:
    log: list[tuple[str, str, Any]] = []
    got: list[Any] = []
    stream = FailingStreamModel().stream("hi")
    with intercept_model_calls(Log("a", log)):
        got.append(next(stream).content)
        with pytest.raises(RuntimeError, match="stream broke"):
            next(stream)
    assert got == ["partial"]
    assert log == [("a", "stream:before", ["hi"]), ("a", "stream:chunk", "partial")]


async def test_astream_exceptions_pass_through() -> None:
    with intercept_model_calls(Log("a", [])), pytest.raises(RuntimeError, match="stream broke"):
        async for _ in FailingStreamModel().astream("hi"):
            pass


def test_an_interceptor_exception_reaches_the_caller_and_the_model_is_not_called() -> None:
    model = scripted()

    class Budget(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            raise RuntimeError("budget spent")

    with intercept_model_calls(Budget()), pytest.raises(RuntimeError, match=r"^budget spent$"):
        model.invoke("hi")
    assert model.requests == []


def test_a_hook_that_returns_a_non_message_is_a_type_error() -> None:
    class Wrong(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            return "text"  # type: ignore[return-value]

    with intercept_model_calls(Wrong()), pytest.raises(TypeError) as info:
        scripted().invoke("hi")
    assert str(info.value) == "Wrong.invoke returned str; expected an AIMessage"


def test_a_stream_hook_that_yields_a_non_chunk_is_a_type_error() -> None:
    class Wrong(ModelInterceptor):
        def stream(
            self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
        ) -> Iterator[AIMessageChunk]:
            return iter([AIMessage(content="whole")])  # type: ignore[list-item]

    with intercept_model_calls(Wrong()), pytest.raises(TypeError) as info:
        list(scripted().stream("hi"))
    assert str(info.value) == "Wrong.stream (a chunk) returned AIMessage; expected AIMessageChunks"


def test_only_interceptors_are_accepted() -> None:
    with pytest.raises(TypeError) as info:
        intercept_model_calls(object()).__enter__()  # type: ignore[arg-type]
    assert str(info.value) == "intercept_model_calls expects a ModelInterceptor, got object"


def test_an_early_closed_stream_closes_the_interceptor_and_the_model_stream() -> None:
    closed: list[str] = []

    class Watch(ModelInterceptor):
        def stream(
            self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
        ) -> Iterator[AIMessageChunk]:
            try:
                yield from proceed()
            finally:
                closed.append("interceptor")

    with intercept_model_calls(Watch()):
        stream = cast(Generator[AIMessageChunk, None, None], scripted().stream("hi"))
        assert next(stream).content == "hello"
        stream.close()
    assert closed == ["interceptor"]


def test_threads_do_not_see_each_others_interceptors() -> None:
    log: list[tuple[str, str, Any]] = []
    inside = threading.Event()
    done = threading.Event()
    results: dict[str, Any] = {}

    def other_thread() -> None:
        inside.wait(5)
        results["other"] = INTERCEPTORS.get()
        scripted().invoke("from the other thread")
        done.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with intercept_model_calls(Log("main", log)):
        inside.set()
        done.wait(5)
        scripted().invoke("from main")
    thread.join(5)
    assert results["other"] == ()
    assert log == [
        ("main", "invoke:before", ["from main"]),
        ("main", "invoke:after", "hello there"),
    ]


def test_worker_threads_of_a_run_see_the_interceptor() -> None:
    log: list[tuple[str, str, Any]] = []
    from leanchain.runnables import RunnableParallel

    both = RunnableParallel(a=scripted("A"), b=scripted("B"))
    with intercept_model_calls(Log("x", log)):
        assert both.invoke("q") == {"a": AIMessage(content="A"), "b": AIMessage(content="B")}
    assert sorted(entry[2] for entry in log if entry[1] == "invoke:after") == ["A", "B"]


async def test_tasks_do_not_see_each_others_interceptors() -> None:
    log: list[tuple[str, str, Any]] = []
    pushed = asyncio.Event()
    release = asyncio.Event()

    async def pusher() -> None:
        with intercept_model_calls(Log("pusher", log)):
            pushed.set()
            await release.wait()
            await scripted("p").ainvoke("from pusher")

    async def sibling() -> tuple[Any, ...]:
        await pushed.wait()
        seen = INTERCEPTORS.get()
        await scripted("s").ainvoke("from sibling")
        release.set()
        return seen

    _, seen = await asyncio.gather(pusher(), sibling())
    assert seen == ()
    assert log == [
        ("pusher", "ainvoke:before", ["from pusher"]),
        ("pusher", "ainvoke:after", "p"),
    ]


async def test_a_task_created_inside_the_block_sees_it() -> None:
    log: list[tuple[str, str, Any]] = []
    with intercept_model_calls(Log("x", log)):
        task = asyncio.create_task(scripted().ainvoke("in a task"))
    await task
    assert [hook for _, hook, _ in log] == ["ainvoke:before", "ainvoke:after"]


async def test_answer_keeps_the_model_tags_and_metadata_in_the_events() -> None:
    model = ScriptedChatModel(["hi"], name="named")
    model.tags = ["model-tag"]
    model.metadata = {"team": "search"}
    live = [e async for e in model.astream_events("q")]

    class Replay(ModelInterceptor):
        def astream(
            self, call: ModelCall, proceed: Callable[[], AsyncIterator[AIMessageChunk]]
        ) -> AsyncIterator[AIMessageChunk]:
            return call.aanswer_stream([AIMessageChunk(content="hi", chunk_position="last")])

    with intercept_model_calls(Replay()):
        replayed = [e async for e in model.astream_events("q")]
    strip = [{k: v for k, v in e.items() if k not in ("run_id", "parent_ids")} for e in live]
    assert [
        {k: v for k, v in e.items() if k not in ("run_id", "parent_ids")} for e in replayed
    ] == strip
    assert live[0]["name"] == "named"
    assert live[0]["tags"] == ["model-tag"]
    assert live[0]["metadata"]["team"] == "search"
