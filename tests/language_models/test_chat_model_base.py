"""BaseChatModel: input conversion, invoke/stream/batch, sync and async, stop, callbacks."""

from __future__ import annotations

from typing import Any

import pytest
from chat_model_support import (
    AsyncModelEvents,
    EchoModel,
    FailingStreamModel,
    ModelEvents,
    UnmarkedStreamModel,
)

from leanchain.callbacks.manager import RunManager
from leanchain.language_models import (
    BaseChatModel,
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    FakeListChatModel,
    LLMResult,
)
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    tool_call_chunk,
)
from leanchain.prompts import ChatPromptValue, StringPromptValue
from leanchain.runnables import RunnableLambda


class ToolCallingModel(BaseChatModel):
    """A model without `_stream` whose reply has a tool call and an invalid one."""

    __slots__ = ()

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = AIMessage(
            content="calling",
            tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}],
            invalid_tool_calls=[
                {
                    "name": "g",
                    "args": "{oops",
                    "id": "c2",
                    "error": None,
                    "type": "invalid_tool_call",
                }
            ],
            id="run-1",
        )
        return ChatResult(generations=[ChatGeneration(message=reply)])


ECHO_REPLY = {"response_metadata": {"model": "echo"}}


# -- input conversion -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("hi", [HumanMessage("hi")]),
        (
            [("system", "be brief"), ("human", "hi")],
            [SystemMessage("be brief"), HumanMessage("hi")],
        ),
        (["hi"], [HumanMessage("hi")]),
        ([{"role": "user", "content": "hi"}], [HumanMessage("hi")]),
        ([HumanMessage("hi")], [HumanMessage("hi")]),
        (StringPromptValue("hi"), [HumanMessage("hi")]),
        (
            ChatPromptValue([SystemMessage("s"), HumanMessage("hi")]),
            [SystemMessage("s"), HumanMessage("hi")],
        ),
    ],
)
def test_input_is_converted_to_messages(given: Any, expected: list[BaseMessage]) -> None:
    model = EchoModel()
    assert model.invoke(given) == AIMessage(content="hi", **ECHO_REPLY)
    assert model.calls == [(expected, None, {})]


def test_invalid_input_type_raises_value_error() -> None:
    with pytest.raises(
        ValueError,
        match=r"^Invalid input type <class 'int'>\. "
        r"Must be a PromptValue, str, or list of BaseMessages\.$",
    ):
        EchoModel().invoke(3)  # type: ignore[arg-type]


# -- invoke -----------------------------------------------------------------------------------


def test_stop_and_kwargs_reach_generate() -> None:
    model = EchoModel()
    model.invoke("hi", stop=["\nObservation"], temperature=0)
    assert model.calls == [([HumanMessage("hi")], ["\nObservation"], {"temperature": 0})]


def test_bound_stop_and_kwargs_reach_generate() -> None:
    model = EchoModel()
    bound = model.bind(stop=["</tool_input>"], tools=[{"type": "function"}])
    assert bound.invoke("hi") == AIMessage(content="hi", **ECHO_REPLY)
    assert model.calls == [
        ([HumanMessage("hi")], ["</tool_input>"], {"tools": [{"type": "function"}]})
    ]


def test_invoke_callbacks_report_start_and_end() -> None:
    events = ModelEvents()
    model = EchoModel()
    reply = model.invoke("hi", {"callbacks": [events], "tags": ["t"]}, stop=["x"], temperature=0)
    assert reply == AIMessage(content="hi", **ECHO_REPLY)
    assert events.events == [
        ("on_chat_model_start", [[HumanMessage("hi")]]),
        (
            "on_llm_end",
            LLMResult(generations=[[ChatGeneration(message=reply)]], llm_output={"n": 1}),
        ),
    ]
    start = events.kwargs[0]
    assert start["serialized"] == {"name": "EchoModel"}
    assert start["name"] == "EchoModel"
    assert start["tags"] == ["t"]
    assert start["invocation_params"] == {"_type": "EchoModel", "stop": ["x"], "temperature": 0}
    assert start["options"] == {"stop": ["x"]}
    assert start["batch_size"] == 1


def test_run_name_names_the_run() -> None:
    events = ModelEvents()
    EchoModel().invoke("hi", {"callbacks": [events], "run_name": "my-model"})
    assert events.kwargs[0]["name"] == "my-model"


def test_invoke_error_is_reported() -> None:
    events = ModelEvents()
    model = FakeListChatModel(["x"], sleep=None)
    with pytest.raises(ValueError, match=r"^Invalid input type"):
        model.invoke(1.5, {"callbacks": [events]})  # type: ignore[arg-type]
    # Input conversion fails before the run starts: nothing to report.
    assert events.events == []

    boom = RuntimeError("provider down")

    class Broken(EchoModel):
        __slots__ = ()

        def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
            raise boom

    with pytest.raises(RuntimeError, match=r"^provider down$"):
        Broken().invoke("hi", {"callbacks": [events]})
    assert events.events == [
        ("on_chat_model_start", [[HumanMessage("hi")]]),
        ("on_llm_error", boom),
    ]


def test_invoke_streams_for_a_handler_that_wants_tokens() -> None:
    events = ModelEvents(wants_tokens=True)
    reply = FakeListChatModel(["ab"]).invoke("hi", {"callbacks": [events]})
    assert reply == AIMessage(content="ab")
    assert type(reply) is AIMessage
    assert events.names() == [
        "on_chat_model_start",
        "on_llm_new_token",
        "on_llm_new_token",
        "on_llm_end",
    ]
    assert events.tokens() == ["a", "b"]
    assert events.events[-1] == (
        "on_llm_end",
        LLMResult(generations=[[ChatGeneration(message=AIMessage(content="ab"))]]),
    )


def test_invoke_does_not_stream_without_a_handler_that_wants_tokens() -> None:
    events = ModelEvents()
    FakeListChatModel(["ab"]).invoke("hi", {"callbacks": [events]})
    assert events.names() == ["on_chat_model_start", "on_llm_end"]


# -- stream -----------------------------------------------------------------------------------


def test_stream_without_stream_support_yields_one_last_chunk() -> None:
    assert list(EchoModel().stream("hi")) == [
        AIMessageChunk(content="hi", response_metadata={"model": "echo"}, chunk_position="last")
    ]


def test_stream_fallback_keeps_tool_calls_as_chunks() -> None:
    (chunk,) = ToolCallingModel().stream("hi")
    assert chunk == AIMessageChunk(
        content="calling",
        id="run-1",
        tool_call_chunks=[
            tool_call_chunk(name="f", args='{"a": 1}', id="c1", index=0),
            tool_call_chunk(name="g", args="{oops", id="c2", index=1),
        ],
        chunk_position="last",
    )
    assert chunk.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    assert [bad["args"] for bad in chunk.invalid_tool_calls] == ["{oops"]


def test_stream_closes_an_unmarked_stream_with_an_empty_last_chunk() -> None:
    chunks = list(UnmarkedStreamModel().stream("a b"))
    assert chunks == [
        AIMessageChunk(content="a"),
        AIMessageChunk(content="b"),
        AIMessageChunk(content="", chunk_position="last"),
    ]
    assert chunks[0] + chunks[1:] == AIMessageChunk(content="ab", chunk_position="last")


def test_stream_passes_stop_and_kwargs() -> None:
    model = UnmarkedStreamModel()
    list(model.bind(stop=["z"]).stream("a", temperature=1))
    assert model.calls == [([HumanMessage("a")], ["z"], {"temperature": 1})]


def test_stream_callbacks_token_per_chunk_then_merged_end() -> None:
    events = ModelEvents()
    chunks = list(FakeListChatModel(["ab"]).stream("hi", {"callbacks": [events]}))
    assert chunks == [
        AIMessageChunk(content="a"),
        AIMessageChunk(content="b", chunk_position="last"),
    ]
    assert events.names() == [
        "on_chat_model_start",
        "on_llm_new_token",
        "on_llm_new_token",
        "on_llm_end",
    ]
    assert events.tokens() == ["a", "b"]
    assert [kw["chunk"] for kw in events.kwargs[1:3]] == [
        ChatGenerationChunk(message=AIMessageChunk(content="a")),
        ChatGenerationChunk(message=AIMessageChunk(content="b", chunk_position="last")),
    ]
    merged = AIMessageChunk(content="ab", chunk_position="last")
    assert events.events[-1] == (
        "on_llm_end",
        LLMResult(generations=[[ChatGenerationChunk(message=merged)]]),
    )


def test_stream_callbacks_include_the_closing_chunk() -> None:
    events = ModelEvents()
    list(UnmarkedStreamModel().stream("a b", {"callbacks": [events]}))
    assert events.tokens() == ["a", "b", ""]
    start = events.kwargs[0]
    assert start["invocation_params"] == {
        "_type": "unmarked",
        "model_name": "unmarked-1",
        "stop": None,
    }


def test_stream_error_is_reported_after_the_chunks_so_far() -> None:
    events = ModelEvents()
    seen: list[AIMessageChunk] = []
    with pytest.raises(RuntimeError, match=r"^stream broke$"):
        seen.extend(FailingStreamModel().stream("hi", {"callbacks": [events]}))
    assert seen == [AIMessageChunk(content="partial")]
    assert events.names() == ["on_chat_model_start", "on_llm_new_token", "on_llm_error"]


def test_disable_streaming() -> None:
    class Model(UnmarkedStreamModel):
        __slots__ = ()

        def __init__(self, disable: Any) -> None:
            super().__init__()
            self.disable_streaming = disable

    whole = [
        AIMessageChunk(content="a b", response_metadata={"model": "echo"}, chunk_position="last")
    ]
    assert list(Model(True).stream("a b")) == whole
    assert list(Model("tool_calling").stream("a b", tools=[{"x": 1}])) == whole
    assert len(list(Model("tool_calling").stream("a b"))) == 3


def test_transform_streams_after_a_blocking_step() -> None:
    chain = RunnableLambda(lambda text: text + "!") | FakeListChatModel(["xy"])
    assert list(chain.stream("q")) == [
        AIMessageChunk(content="x"),
        AIMessageChunk(content="y", chunk_position="last"),
    ]


def test_batch_invokes_each_input() -> None:
    model = EchoModel()
    assert model.batch(["a", "b"]) == [
        AIMessage(content="a", **ECHO_REPLY),
        AIMessage(content="b", **ECHO_REPLY),
    ]


# -- async ------------------------------------------------------------------------------------


async def test_ainvoke_runs_sync_generate_and_reports() -> None:
    events = AsyncModelEvents()
    reply = await EchoModel().ainvoke("hi", {"callbacks": [events]})
    assert reply == AIMessage(content="hi", **ECHO_REPLY)
    assert events.events == [
        ("on_chat_model_start", [[HumanMessage("hi")]]),
        (
            "on_llm_end",
            LLMResult(generations=[[ChatGeneration(message=reply)]], llm_output={"n": 1}),
        ),
    ]


async def test_astream_iterates_sync_stream_in_a_thread() -> None:
    events = AsyncModelEvents()
    chunks = [c async for c in UnmarkedStreamModel().astream("a b", {"callbacks": [events]})]
    assert chunks == [
        AIMessageChunk(content="a"),
        AIMessageChunk(content="b"),
        AIMessageChunk(content="", chunk_position="last"),
    ]
    assert [name for name, _ in events.events] == [
        "on_chat_model_start",
        "on_llm_new_token",
        "on_llm_new_token",
        "on_llm_new_token",
        "on_llm_end",
    ]


async def test_astream_without_stream_support_yields_one_chunk() -> None:
    assert [c async for c in EchoModel().astream("hi")] == [
        AIMessageChunk(content="hi", response_metadata={"model": "echo"}, chunk_position="last")
    ]


async def test_astream_error_is_reported() -> None:
    events = AsyncModelEvents()
    with pytest.raises(RuntimeError, match=r"^stream broke$"):
        async for _ in FailingStreamModel().astream("hi", {"callbacks": [events]}):
            pass
    assert [name for name, _ in events.events] == [
        "on_chat_model_start",
        "on_llm_new_token",
        "on_llm_error",
    ]


async def test_ainvoke_streams_for_a_handler_that_wants_tokens() -> None:
    events = ModelEvents(wants_tokens=True)
    reply = await FakeListChatModel(["ab"]).ainvoke("hi", {"callbacks": [events]})
    assert reply == AIMessage(content="ab")
    assert events.tokens() == ["a", "b"]


async def test_abatch() -> None:
    assert await EchoModel().abatch(["a", "b"]) == [
        AIMessage(content="a", **ECHO_REPLY),
        AIMessage(content="b", **ECHO_REPLY),
    ]


# -- tools ------------------------------------------------------------------------------------


def test_bind_tools_is_not_supported_by_default() -> None:
    with pytest.raises(NotImplementedError) as info:
        FakeListChatModel(["x"]).bind_tools([])
    assert str(info.value) == (
        "FakeListChatModel does not support tool calling: it does not implement bind_tools. "
        "Use a model that does, such as ScriptedChatModel or a provider model."
    )


def test_name_and_generation_text() -> None:
    assert EchoModel().get_name() == "EchoModel"
    assert ChatGeneration(message=AIMessage("x")).text == "x"
    assert ChatGeneration(message=AIMessage("x")).type == "ChatGeneration"
    assert ChatGenerationChunk(message=AIMessageChunk("x")).type == "ChatGenerationChunk"


def test_generation_chunks_add_messages_and_infos() -> None:
    left = ChatGenerationChunk(message=AIMessageChunk("a"), generation_info={"x": 1})
    right = ChatGenerationChunk(message=AIMessageChunk("b"), generation_info={"y": 2})
    assert left + right == ChatGenerationChunk(
        message=AIMessageChunk("ab"), generation_info={"x": 1, "y": 2}
    )
    with pytest.raises(TypeError, match='"ChatGenerationChunk" and "str"'):
        left + "b"  # type: ignore[operator]
