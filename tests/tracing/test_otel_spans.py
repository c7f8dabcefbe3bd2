"""`OpenTelemetryCallbackHandler`: exact span names, parents and GenAI attributes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry.trace import SpanKind, StatusCode
from tracing_support import GptModel, attributes, named, pipeline, tree

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.errors import ToolException
from leanchain.language_models import BaseChatModel, ScriptedChatModel, ScriptItem
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder
from leanchain.runnables import Runnable, RunnableLambda
from leanchain.tools import tool
from leanchain.tracing import OpenTelemetryCallbackHandler

USAGE = {"input_tokens": 11, "output_tokens": 4, "total_tokens": 15}
METADATA = {"finish_reason": "stop", "model_name": "gpt-test-2025"}


def reply(text: str) -> Any:
    return ScriptedChatModel.reply(text, usage=USAGE, response_metadata=METADATA, id="resp-1")  # type: ignore[arg-type]


def chain(model: BaseChatModel) -> Runnable[dict[str, Any], str]:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    return prompt | model | StrOutputParser()


def test_a_chain_becomes_nested_spans_with_genai_chat_attributes() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider)
    assert chain(GptModel([reply("hello")])).invoke({"q": "hi"}, {"callbacks": [handler]}) == (
        "hello"
    )
    spans = exporter.get_finished_spans()
    assert tree(spans) == [
        ("ChatPromptTemplate", "RunnableSequence"),
        ("chat gpt-test", "RunnableSequence"),
        ("StrOutputParser", "RunnableSequence"),
        ("RunnableSequence", None),
    ]
    chat = named(spans, "chat gpt-test")
    assert chat.kind is SpanKind.CLIENT
    assert attributes(chat) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.max_tokens": 64,
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.response.model": "gpt-test-2025",
        "gen_ai.response.id": "resp-1",
        "gen_ai.usage.input_tokens": 11,
        "gen_ai.usage.output_tokens": 4,
    }
    assert chat.status.status_code is StatusCode.UNSET
    assert attributes(named(spans, "ChatPromptTemplate")) == {"leanchain.run.type": "prompt"}
    assert attributes(named(spans, "StrOutputParser")) == {"leanchain.run.type": "parser"}
    sequence = named(spans, "RunnableSequence")
    assert (sequence.kind, attributes(sequence)) == (
        SpanKind.INTERNAL,
        {"leanchain.run.type": "chain"},
    )


def test_content_is_recorded_only_when_asked() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider, capture_content=True)
    chain(GptModel([reply("hello")])).invoke({"q": "hi"}, {"callbacks": [handler]})
    chat = attributes(named(exporter.get_finished_spans(), "chat gpt-test"))
    assert json.loads(chat["gen_ai.input.messages"]) == [
        {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
        {"role": "user", "parts": [{"type": "text", "content": "hi"}]},
    ]
    assert json.loads(chat["gen_ai.output.messages"]) == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "hello"}],
            "finish_reason": "stop",
        }
    ]


def test_stop_sequences_are_request_attributes() -> None:
    provider, exporter = pipeline()
    model = GptModel(["a"]).bind(stop=["\nObservation"])
    model.invoke("hi", {"callbacks": [OpenTelemetryCallbackHandler(provider)]})
    chat = attributes(named(exporter.get_finished_spans(), "chat gpt-test"))
    assert chat["gen_ai.request.stop_sequences"] == ["\nObservation"]


def test_a_model_without_a_name_makes_a_plain_chat_span() -> None:
    provider, exporter = pipeline()
    ScriptedChatModel(["a"]).invoke("hi", {"callbacks": [OpenTelemetryCallbackHandler(provider)]})
    (span,) = exporter.get_finished_spans()
    assert (span.name, attributes(span)) == (
        "chat",
        {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "scripted-chat-model"},
    )


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    if b == 0:
        raise ToolException("division by zero")
    return a / b


def agent(model: Any, *, handle_tool_errors: Any = False) -> AgentExecutor:
    prompt = ChatPromptTemplate.from_messages(
        [("human", "{input}"), MessagesPlaceholder("agent_scratchpad")]
    )
    tools = [add, divide]
    return AgentExecutor(
        agent=create_tool_calling_agent(model, tools, prompt),
        tools=tools,
        handle_tool_errors=handle_tool_errors,
    )


AGENT_SCRIPT: list[ScriptItem] = [
    ScriptedChatModel.tool_call("add", {"a": 1, "b": 2}, id="call_7"),
    "three",
]
AGENT_STEP = [
    ("ChatPromptTemplate", "invoke_agent AgentExecutor"),
    ("chat gpt-test", "invoke_agent AgentExecutor"),
    ("ToolsAgentOutputParser", "invoke_agent AgentExecutor"),
]
"""One agent step by default: the agent's own chain runs make no spans."""
AGENT_STEP_NESTED = [
    ("RunnableLambda", "RunnableParallel<agent_scratchpad>"),
    ("RunnableParallel<agent_scratchpad>", "RunnableAssign<agent_scratchpad>"),
    ("RunnableAssign<agent_scratchpad>", "AgentRunnable"),
    ("ChatPromptTemplate", "AgentRunnable"),
    ("chat gpt-test", "AgentRunnable"),
    ("ToolsAgentOutputParser", "AgentRunnable"),
    ("AgentRunnable", "invoke_agent AgentExecutor"),
]
"""One agent step with ``nested_chain_spans=True``: every run of the tree is a span."""


def test_an_agent_run_becomes_an_agent_span_with_chat_and_tool_spans() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider)
    result = agent(GptModel(AGENT_SCRIPT)).invoke({"input": "1+2"}, {"callbacks": [handler]})
    assert result == {"input": "1+2", "output": "three"}
    spans = exporter.get_finished_spans()
    assert tree(spans) == [
        *AGENT_STEP,
        ("execute_tool add", "invoke_agent AgentExecutor"),
        *AGENT_STEP,
        ("invoke_agent AgentExecutor", None),
    ]
    assert attributes(named(spans, "execute_tool add")) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Add two numbers.",
        "gen_ai.tool.call.id": "call_7",
    }
    assert attributes(named(spans, "invoke_agent AgentExecutor")) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "AgentExecutor",
    }
    assert not any(
        key.endswith(("messages", "arguments", "result"))
        for span in spans
        for key in attributes(span)
    )


def test_nested_chain_spans_make_a_span_of_every_run() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider, nested_chain_spans=True)
    agent(GptModel(AGENT_SCRIPT)).invoke({"input": "1+2"}, {"callbacks": [handler]})
    spans = exporter.get_finished_spans()
    assert tree(spans) == [
        *AGENT_STEP_NESTED,
        ("execute_tool add", "invoke_agent AgentExecutor"),
        *AGENT_STEP_NESTED,
        ("invoke_agent AgentExecutor", None),
    ]
    assert {attributes(s)["leanchain.run.type"] for s in spans if s.name == "AgentRunnable"} == {
        "chain"
    }


def test_a_nested_chain_run_without_a_span_keeps_its_children_under_the_nearest_span() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider)
    inner = RunnableLambda(lambda x: x, name="inner") | GptModel([reply("hi")])
    outer = RunnableLambda(lambda x: inner.invoke(x), name="outer") | StrOutputParser()
    assert outer.invoke("q", {"callbacks": [handler]}) == "hi"
    assert tree(exporter.get_finished_spans()) == [
        ("chat gpt-test", "RunnableSequence"),
        ("StrOutputParser", "RunnableSequence"),
        ("RunnableSequence", None),
    ]


def test_a_failing_nested_chain_run_ends_only_its_ancestors_spans() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider)

    def explode(x: str) -> str:
        raise ValueError("step broke")

    with pytest.raises(ValueError, match="step broke"):
        (RunnableLambda(explode) | StrOutputParser()).invoke("q", {"callbacks": [handler]})
    (span,) = exporter.get_finished_spans()
    assert (span.name, span.status.status_code, attributes(span)) == (
        "RunnableSequence",
        StatusCode.ERROR,
        {"leanchain.run.type": "chain", "error.type": "ValueError"},
    )


def test_tool_content_is_recorded_only_when_asked() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider, capture_content=True)
    agent(GptModel(AGENT_SCRIPT)).invoke({"input": "1+2"}, {"callbacks": [handler]})
    tool_span = attributes(named(exporter.get_finished_spans(), "execute_tool add"))
    assert tool_span["gen_ai.tool.call.arguments"] == '{"a":1,"b":2}'
    assert tool_span["gen_ai.tool.call.result"] == "3"


async def test_async_agent_runs_make_the_same_spans() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider)
    await agent(GptModel(AGENT_SCRIPT)).ainvoke({"input": "1+2"}, {"callbacks": [handler]})
    assert tree(exporter.get_finished_spans()) == [
        *AGENT_STEP,
        ("execute_tool add", "invoke_agent AgentExecutor"),
        *AGENT_STEP,
        ("invoke_agent AgentExecutor", None),
    ]


def test_a_failing_model_span_has_an_error_status_without_the_message() -> None:
    provider, exporter = pipeline()
    model = GptModel([ValueError("secret prompt text")])
    with pytest.raises(ValueError, match="secret prompt text"):
        model.invoke("hi", {"callbacks": [OpenTelemetryCallbackHandler(provider)]})
    (span,) = exporter.get_finished_spans()
    assert (span.status.status_code, span.status.description) == (StatusCode.ERROR, "ValueError")
    assert attributes(span)["error.type"] == "ValueError"
    assert span.events == ()


def test_with_content_an_error_keeps_its_message_and_exception_event() -> None:
    provider, exporter = pipeline()
    model = GptModel([ValueError("bad reply")])
    handler = OpenTelemetryCallbackHandler(provider, capture_content=True)
    with pytest.raises(ValueError, match="bad reply"):
        model.invoke("hi", {"callbacks": [handler]})
    (span,) = exporter.get_finished_spans()
    assert span.status.description == "bad reply"
    assert [event.name for event in span.events] == ["exception"]


def test_tool_errors_mark_the_tool_span() -> None:
    provider, exporter = pipeline()
    script: list[ScriptItem] = [
        ScriptedChatModel.tool_call("divide", {"a": 1, "b": 0}, id="call_3"),
        "oops",
    ]
    executor = agent(GptModel(script), handle_tool_errors=True)
    handler = OpenTelemetryCallbackHandler(provider)
    assert executor.invoke({"input": "1/0"}, {"callbacks": [handler]})["output"] == "oops"
    span = named(exporter.get_finished_spans(), "execute_tool divide")
    assert span.status.status_code is StatusCode.ERROR
    assert attributes(span)["error.type"] == "leanchain.errors.ToolException"
    assert attributes(span)["gen_ai.tool.call.id"] == "call_3"


def test_a_root_run_nests_under_the_current_span() -> None:
    provider, exporter = pipeline()
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("request"):
        ScriptedChatModel(["a"]).invoke(
            "hi", {"callbacks": [OpenTelemetryCallbackHandler(provider)]}
        )
    assert tree(exporter.get_finished_spans()) == [("chat", "request"), ("request", None)]


def test_parallel_calls_of_one_tool_get_their_own_call_ids() -> None:
    provider, exporter = pipeline()
    calls = ScriptedChatModel.tool_calls(
        {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_a", "type": "tool_call"},
        {"name": "add", "args": {"a": 5, "b": 5}, "id": "call_b", "type": "tool_call"},
    )
    executor = agent(GptModel([calls, "done"]))
    handler = OpenTelemetryCallbackHandler(provider, capture_content=True)
    executor.invoke({"input": "sums"}, {"callbacks": [handler]})
    tools = [attributes(s) for s in exporter.get_finished_spans() if s.name == "execute_tool add"]
    assert sorted((t["gen_ai.tool.call.id"], t["gen_ai.tool.call.result"]) for t in tools) == [
        ("call_a", "3"),
        ("call_b", "10"),
    ]


def test_an_agent_span_is_an_agent_span_from_its_start() -> None:
    # The model fails before the agent decides anything: the span is an agent's all the same.
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider)
    with pytest.raises(ValueError, match="model down"):
        agent(GptModel([ValueError("model down")])).invoke(
            {"input": "1+2"}, {"callbacks": [handler]}
        )
    span = named(exporter.get_finished_spans(), "invoke_agent AgentExecutor")
    assert span.parent is None
    assert attributes(span) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "AgentExecutor",
        "error.type": "ValueError",
    }


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_call_to_an_unknown_tool_is_an_invalid_tool_span_with_its_call_id(
    mode: str,
) -> None:
    provider, exporter = pipeline()
    script: list[ScriptItem] = [
        ScriptedChatModel.tool_call("nope", {"a": 1}, id="call_9"),
        "sorry",
    ]
    handler = OpenTelemetryCallbackHandler(provider, capture_content=True)
    config: Any = {"callbacks": [handler]}
    if mode == "sync":
        agent(GptModel(script)).invoke({"input": "?"}, config)
    else:
        await agent(GptModel(script)).ainvoke({"input": "?"}, config)
    span = named(exporter.get_finished_spans(), "execute_tool invalid_tool")
    assert attributes(span) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "invalid_tool",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Called when tool name is invalid. Suggests valid tool names.",
        "gen_ai.tool.call.id": "call_9",
        "gen_ai.tool.call.arguments": (
            '{"requested_tool_name":"nope","available_tool_names":["add","divide"]}'
        ),
        "gen_ai.tool.call.result": "nope is not a valid tool, try one of [add, divide].",
    }
