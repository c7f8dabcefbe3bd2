"""The whole handler protocol, hook by hook, for prompt | model | parser and for an agent run."""

from __future__ import annotations

from typing import Any

import pytest
from callbacks_support import AsyncTrailHandler, Hook, Trail, TrailHandler

from leanchain.agents import AgentExecutor
from leanchain.agents.format_scratchpad import format_to_tool_messages
from leanchain.agents.output_parsers import ToolsAgentOutputParser
from leanchain.language_models import FakeListChatModel, ScriptedChatModel
from leanchain.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate, ChatPromptValue, MessagesPlaceholder
from leanchain.runnables import Runnable, RunnableConfig, RunnableLambda
from leanchain.tools import tool

CONFIG_TAGS = ["t"]
CONFIG_METADATA = {"m": 1}


def pipeline(reply: str = "ab") -> Runnable[dict[str, Any], str]:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    return prompt | FakeListChatModel(responses=[reply]) | StrOutputParser()


def config(*handlers: Any) -> RunnableConfig:
    return {"callbacks": list(handlers), "tags": CONFIG_TAGS, "metadata": CONFIG_METADATA}


PROMPT_VALUE = ChatPromptValue(messages=[HumanMessage(content="x")])
INVOKE_TRAIL = [
    Hook("on_chain_start", "RunnableSequence", None, {"q": "x"}),
    Hook("on_chain_start", "ChatPromptTemplate", "RunnableSequence", {"q": "x"}),
    Hook("on_chain_end", "ChatPromptTemplate", "RunnableSequence", PROMPT_VALUE),
    Hook("on_chat_model_start", "FakeListChatModel", "RunnableSequence", [[HumanMessage("x")]]),
    Hook("on_llm_end", "FakeListChatModel", "RunnableSequence", AIMessage(content="ab")),
    Hook("on_chain_start", "StrOutputParser", "RunnableSequence", AIMessage(content="ab")),
    Hook("on_chain_end", "StrOutputParser", "RunnableSequence", "ab"),
    Hook("on_chain_end", "RunnableSequence", None, "ab"),
]


def assert_run_tree(trail: Trail) -> None:
    """Tags, metadata, run types and ids of the prompt | model | parser run tree."""
    assert trail.tree() == {
        "RunnableSequence": None,
        "ChatPromptTemplate": "RunnableSequence",
        "FakeListChatModel": "RunnableSequence",
        "StrOutputParser": "RunnableSequence",
    }
    starts = trail.starts
    assert {label: start.tags for label, start in starts.items()} == {
        "RunnableSequence": ["t"],
        "ChatPromptTemplate": ["seq:step:1", "t"],
        "FakeListChatModel": ["seq:step:2", "t"],
        "StrOutputParser": ["seq:step:3", "t"],
    }
    assert all(start.metadata == {"m": 1} for start in starts.values())
    assert starts["ChatPromptTemplate"].kwargs["run_type"] == "prompt"
    assert starts["StrOutputParser"].kwargs["run_type"] == "parser"
    assert "run_type" not in starts["RunnableSequence"].kwargs
    assert len({start.run_id for start in starts.values()}) == 4


def test_prompt_model_parser_invoke_calls_every_hook_in_order() -> None:
    handler = TrailHandler()
    assert pipeline().invoke({"q": "x"}, config(handler)) == "ab"
    assert handler.trail.hooks == INVOKE_TRAIL
    assert_run_tree(handler.trail)


def test_model_run_reports_its_invocation_params() -> None:
    handler = TrailHandler()
    pipeline().invoke({"q": "x"}, config(handler))
    start = handler.trail.starts["FakeListChatModel"].kwargs
    assert start["invocation_params"]["_type"] == "fake-list-chat-model"
    assert start["invocation_params"]["stop"] is None
    assert start["options"] == {"stop": None}


def test_a_token_handler_makes_an_invoked_model_stream() -> None:
    handler = TrailHandler(wants_tokens=True)
    assert pipeline().invoke({"q": "x"}, config(handler)) == "ab"
    tokens = [h for h in handler.trail.hooks if h.hook == "on_llm_new_token"]
    assert tokens == [
        Hook("on_llm_new_token", "FakeListChatModel", "RunnableSequence", "a"),
        Hook("on_llm_new_token", "FakeListChatModel", "RunnableSequence", "b"),
    ]
    hooks = [h.hook for h in handler.trail.hooks]
    assert hooks.index("on_llm_new_token") > hooks.index("on_chat_model_start")
    assert hooks.index("on_llm_end") == len(hooks) - 4


async def test_async_handlers_see_the_same_trail_under_ainvoke() -> None:
    handler = AsyncTrailHandler()
    assert await pipeline().ainvoke({"q": "x"}, config(handler)) == "ab"
    assert handler.trail.hooks == INVOKE_TRAIL
    assert_run_tree(handler.trail)


def test_an_async_handler_under_a_sync_run() -> None:
    handler = AsyncTrailHandler()
    pipeline().invoke({"q": "x"}, config(handler))
    assert handler.trail.hooks == INVOKE_TRAIL


STREAM_TRAIL = [
    Hook("on_chain_start", "RunnableSequence", None, ""),
    Hook("on_chain_start", "ChatPromptTemplate", "RunnableSequence", {"q": "x"}),
    Hook("on_chain_end", "ChatPromptTemplate", "RunnableSequence", PROMPT_VALUE),
    Hook("on_chat_model_start", "FakeListChatModel", "RunnableSequence", [[HumanMessage("x")]]),
    Hook("on_llm_new_token", "FakeListChatModel", "RunnableSequence", "a"),
    Hook("on_chain_start", "StrOutputParser", "RunnableSequence", ""),
    Hook("on_chain_stream", "StrOutputParser", "RunnableSequence", "a"),
    Hook("on_chain_stream", "RunnableSequence", None, "a"),
    Hook("on_llm_new_token", "FakeListChatModel", "RunnableSequence", "b"),
    Hook("on_chain_stream", "StrOutputParser", "RunnableSequence", "b"),
    Hook("on_chain_stream", "RunnableSequence", None, "b"),
    Hook(
        "on_llm_end",
        "FakeListChatModel",
        "RunnableSequence",
        AIMessageChunk(content="ab", chunk_position="last"),
    ),
    Hook("on_chain_end", "StrOutputParser", "RunnableSequence", "ab"),
    Hook("on_chain_end", "RunnableSequence", None, "ab"),
]


def test_prompt_model_parser_stream_calls_every_hook_in_order() -> None:
    handler = TrailHandler()
    assert list(pipeline().stream({"q": "x"}, config(handler))) == ["a", "b"]
    assert handler.trail.hooks == STREAM_TRAIL
    assert_run_tree(handler.trail)


async def test_prompt_model_parser_astream_calls_every_hook_in_order() -> None:
    handler = AsyncTrailHandler()
    assert [c async for c in pipeline().astream({"q": "x"}, config(handler))] == ["a", "b"]
    assert handler.trail.hooks == STREAM_TRAIL


class Ends(TrailHandler):
    """Also keeps the keyword arguments of end hooks."""

    def __init__(self) -> None:
        super().__init__()
        self.end_inputs: dict[str, Any] = {}

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.trail.record("on_chain_end", (outputs,), kwargs)
        self.end_inputs[self.trail.labels[kwargs["run_id"]]] = kwargs.get("inputs")


def test_a_streaming_run_reports_its_summed_input_at_the_end() -> None:
    handler = Ends()
    list(pipeline().stream({"q": "x"}, config(handler)))
    assert handler.end_inputs == {
        "ChatPromptTemplate": None,
        "StrOutputParser": AIMessageChunk(content="ab", chunk_position="last"),
        "RunnableSequence": {"q": "x"},
    }


def test_a_failing_model_reports_its_error_up_the_tree() -> None:
    model = ScriptedChatModel([ValueError("model down")])
    handler = TrailHandler()
    chain = ChatPromptTemplate.from_messages([("human", "{q}")]) | model | StrOutputParser()
    with pytest.raises(ValueError, match=r"^model down$"):
        chain.invoke({"q": "x"}, config(handler))
    assert [(h.hook, h.run, h.detail) for h in handler.trail.hooks[-3:]] == [
        ("on_chat_model_start", "ScriptedChatModel", [[HumanMessage("x")]]),
        ("on_llm_error", "ScriptedChatModel", "ValueError: model down"),
        ("on_chain_error", "RunnableSequence", "ValueError: model down"),
    ]


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def explode(text: str) -> str:
    """Always fails."""
    raise RuntimeError(f"cannot {text}")


def test_tool_runs_report_start_end_and_the_call_id() -> None:
    handler = TrailHandler()
    call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_9", "type": "tool_call"}
    result = add.invoke(call, config(handler))
    assert result == ToolMessage(content="3", tool_call_id="call_9", name="add")
    assert handler.trail.hooks == [
        Hook("on_tool_start", "add", None, {"a": 1, "b": 2}),
        Hook("on_tool_end", "add", None, result),
    ]
    start = handler.trail.starts["add"]
    assert start.kwargs["tool_call_id"] == "call_9"
    assert (start.tags, start.metadata) == (["t"], {"m": 1})


def test_a_failing_tool_reports_on_tool_error() -> None:
    handler = TrailHandler()
    with pytest.raises(RuntimeError, match=r"^cannot fly$"):
        explode.invoke("fly", config(handler))
    assert handler.trail.hooks == [
        Hook("on_tool_start", "explode", None, "fly"),
        Hook("on_tool_error", "explode", None, "RuntimeError: cannot fly"),
    ]


def test_retries_report_on_retry_with_the_attempt() -> None:
    attempts: list[int] = []

    def flaky(x: int) -> int:
        attempts.append(x)
        if len(attempts) < 3:
            raise ValueError(f"attempt {len(attempts)}")
        return x

    handler = TrailHandler()
    retrying = RunnableLambda(flaky).with_retry(stop_after_attempt=3, wait_exponential_jitter=False)
    assert retrying.invoke(5, config(handler)) == 5
    assert handler.trail.of("on_retry") == [
        Hook("on_retry", "flaky", None, ("ValueError: attempt 1", 1)),
        Hook("on_retry", "flaky", None, ("ValueError: attempt 2", 2)),
    ]


def test_run_name_names_the_root_run_only() -> None:
    handler = TrailHandler()
    pipeline().invoke({"q": "x"}, {"callbacks": [handler], "run_name": "answer"})
    assert list(handler.trail.starts) == [
        "answer",
        "ChatPromptTemplate",
        "FakeListChatModel",
        "StrOutputParser",
    ]


def test_run_name_names_a_chat_model_run() -> None:
    handler = TrailHandler()
    FakeListChatModel(responses=["ok"]).invoke("hi", {"callbacks": [handler], "run_name": "m"})
    assert handler.trail.hooks[0] == Hook("on_chat_model_start", "m", None, [[HumanMessage("hi")]])


class Broken(TrailHandler):
    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        raise KeyError("broken handler")


def test_a_raising_handler_does_not_break_the_run(caplog: pytest.LogCaptureFixture) -> None:
    broken, healthy = Broken(), TrailHandler()
    assert pipeline().invoke({"q": "x"}, config(broken, healthy)) == "ab"
    assert healthy.trail.hooks == INVOKE_TRAIL
    assert "Error in Broken.on_chat_model_start callback: KeyError('broken handler')" in (
        caplog.text
    )


def test_a_raising_handler_with_raise_error_breaks_the_run() -> None:
    broken = Broken()
    broken.raise_error = True
    with pytest.raises(KeyError, match="broken handler"):
        pipeline().invoke({"q": "x"}, config(broken))


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_start_that_raise_error_broke_is_a_failure_for_the_handlers_that_saw_it(
    mode: str,
) -> None:
    healthy, broken = TrailHandler(), Broken()
    broken.raise_error = True
    chain, cfg = pipeline(), config(healthy, broken)
    if mode == "sync":
        with pytest.raises(KeyError, match="broken handler"):
            chain.invoke({"q": "x"}, cfg)
    else:
        with pytest.raises(KeyError, match="broken handler"):
            await chain.ainvoke({"q": "x"}, cfg)
    assert healthy.trail.hooks[3:] == [
        Hook("on_chat_model_start", "FakeListChatModel", "RunnableSequence", [[HumanMessage("x")]]),
        Hook("on_llm_error", "FakeListChatModel", "RunnableSequence", "KeyError: 'broken handler'"),
        Hook("on_chain_error", "RunnableSequence", None, "KeyError: 'broken handler'"),
    ]


def test_ignore_flags_skip_their_family() -> None:
    handler = TrailHandler()
    handler.ignore_chain = True
    handler.ignore_llm = True
    pipeline().invoke({"q": "x"}, config(handler))
    assert [h.hook for h in handler.trail.hooks] == ["on_chat_model_start"]


# -- an agent run -----------------------------------------------------------------------------


def with_scratchpad(inputs: dict[str, Any]) -> dict[str, Any]:
    return {**inputs, "agent_scratchpad": format_to_tool_messages(inputs["intermediate_steps"])}


def agent_executor() -> AgentExecutor:
    model = ScriptedChatModel(
        [ScriptedChatModel.tool_call("add", {"a": 1, "b": 2}, id="call_1"), "3"],
        chunking=1000,
    )
    prompt = ChatPromptTemplate.from_messages(
        [("human", "{input}"), MessagesPlaceholder("agent_scratchpad")]
    )
    agent = (
        RunnableLambda(with_scratchpad, name="scratchpad")
        | prompt
        | model.bind_tools([add])
        | ToolsAgentOutputParser()
    )
    return AgentExecutor(agent=agent, tools=[add])


def agent_steps(n: str) -> list[tuple[str, str, str | None]]:
    """The hooks of one planning call of the hand-built agent (``n``: the run's suffix)."""
    seq = f"RunnableSequence{n}"
    return [
        ("on_chain_start", seq, "AgentExecutor"),
        ("on_chain_start", f"scratchpad{n}", seq),
        ("on_chain_stream", f"scratchpad{n}", seq),
        ("on_chain_end", f"scratchpad{n}", seq),
        ("on_chain_start", f"ChatPromptTemplate{n}", seq),
        ("on_chain_end", f"ChatPromptTemplate{n}", seq),
        ("on_chat_model_start", f"ScriptedChatModel{n}", seq),
        ("on_llm_new_token", f"ScriptedChatModel{n}", seq),
        ("on_llm_end", f"ScriptedChatModel{n}", seq),
        ("on_chain_start", f"ToolsAgentOutputParser{n}", seq),
        ("on_chain_end", f"ToolsAgentOutputParser{n}", seq),
        ("on_chain_stream", seq, "AgentExecutor"),
        ("on_chain_end", seq, "AgentExecutor"),
    ]


AGENT_TRAIL = [
    ("on_chain_start", "AgentExecutor", None),
    *agent_steps(""),
    ("on_agent_action", "AgentExecutor", None),
    ("on_tool_start", "add", "AgentExecutor"),
    ("on_tool_end", "add", "AgentExecutor"),
    *agent_steps("#2"),
    ("on_agent_finish", "AgentExecutor", None),
    ("on_chain_end", "AgentExecutor", None),
]


def assert_agent_trail(trail: Trail) -> None:
    assert [(h.hook, h.run, h.parent) for h in trail.hooks] == AGENT_TRAIL
    assert trail.of("on_agent_action", "on_tool_start", "on_tool_end", "on_agent_finish") == [
        Hook("on_agent_action", "AgentExecutor", None, ("action", "add", {"a": 1, "b": 2})),
        Hook("on_tool_start", "add", "AgentExecutor", {"a": 1, "b": 2}),
        Hook("on_tool_end", "add", "AgentExecutor", 3),
        Hook("on_agent_finish", "AgentExecutor", None, ("finish", {"output": "3"})),
    ]
    assert trail.hooks[0].detail == {"input": "1+2?"}
    assert trail.hooks[-1].detail == {"input": "1+2?", "output": "3"}
    assert trail.starts["AgentExecutor"].tags == ["t"]
    assert trail.starts["add"].tags == ["t"]
    assert trail.starts["ScriptedChatModel#2"].tags == ["seq:step:3", "t"]
    assert all(start.metadata == {"m": 1} for start in trail.starts.values())


def test_an_agent_run_calls_every_hook_in_order() -> None:
    handler = TrailHandler()
    result = agent_executor().invoke({"input": "1+2?"}, config(handler))
    assert result == {"input": "1+2?", "output": "3"}
    assert_agent_trail(handler.trail)


async def test_an_async_agent_run_calls_every_hook_in_order() -> None:
    handler = AsyncTrailHandler()
    result = await agent_executor().ainvoke({"input": "1+2?"}, config(handler))
    assert result == {"input": "1+2?", "output": "3"}
    assert_agent_trail(handler.trail)
