"""AgentExecutor end to end with each factory-built agent, a `ScriptedChatModel` and real tools."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from test_executor_support import MODES, Mode, chunks, run, tools

from leanchain.agents import (
    AgentExecutor,
    ToolAgentAction,
    create_json_chat_agent,
    create_openai_tools_agent,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    create_xml_agent,
)
from leanchain.agents.prompts import (
    JSON_CHAT_PROMPT,
    REACT_PROMPT,
    STRUCTURED_CHAT_PROMPT,
    TOOL_CALLING_PROMPT,
    XML_PROMPT,
)
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, ToolMessage
from leanchain.prompts import PromptTemplate
from leanchain.runnables import Runnable
from leanchain.tools import BaseTool, tool

STOPPED = "Agent stopped due to iteration limit or time limit."


@dataclass(frozen=True)
class Kind:
    """One agent type: how to build it and how its model asks for a tool or answers."""

    name: str
    build: Callable[[ScriptedChatModel, list[BaseTool]], Runnable[Any, Any]]
    call: Callable[[str, str], Any]
    answer: Callable[[str], Any]
    garbage: str | None


def _react_call(tool_name: str, text: str) -> str:
    return f"Thought: I need {tool_name}\nAction: {tool_name}\nAction Input: {text}"


def _blob_call(tool_name: str, text: str) -> str:
    return f'Thought: go\nAction:\n```\n{{"action": "{tool_name}", "action_input": "{text}"}}\n```'


KINDS = [
    Kind(
        "tool-calling",
        lambda llm, ts: create_tool_calling_agent(llm, ts, TOOL_CALLING_PROMPT),
        lambda t, x: ScriptedChatModel.tool_call(t, {"text": x}),
        lambda a: a,
        None,
    ),
    Kind(
        "openai-tools",
        lambda llm, ts: create_openai_tools_agent(llm, ts, TOOL_CALLING_PROMPT),
        lambda t, x: ScriptedChatModel.tool_call(t, {"text": x}),
        lambda a: a,
        None,
    ),
    Kind(
        "react",
        lambda llm, ts: create_react_agent(llm, ts, REACT_PROMPT),
        _react_call,
        lambda a: f"Thought: I know it\nFinal Answer: {a}",
        "I have no format",
    ),
    Kind(
        "structured-chat",
        lambda llm, ts: create_structured_chat_agent(llm, ts, STRUCTURED_CHAT_PROMPT),
        _blob_call,
        lambda a: f'Action:\n```\n{{"action": "Final Answer", "action_input": "{a}"}}\n```',
        "no blob here",
    ),
    Kind(
        "json-chat",
        lambda llm, ts: create_json_chat_agent(llm, ts, JSON_CHAT_PROMPT),
        _blob_call,
        lambda a: f'```json\n{{"action": "Final Answer", "action_input": "{a}"}}\n```',
        "no blob here",
    ),
    Kind(
        "xml",
        lambda llm, ts: create_xml_agent(llm, ts, XML_PROMPT),
        lambda t, x: f"<tool>{t}</tool><tool_input>{x}",
        lambda a: f"<final_answer>{a}</final_answer>",
        "no tags at all",
    ),
]
TEXT_KINDS = [k for k in KINDS if k.garbage is not None]
IDS = [k.name for k in KINDS]


def _executor(kind: Kind, script: list[Any], **kwargs: Any) -> tuple[AgentExecutor, Any]:
    model = ScriptedChatModel(script)
    tool_list = kwargs.pop("tools", None) or tools()
    agent = kind.build(model, tool_list)
    return AgentExecutor(agent=agent, tools=tool_list, **kwargs), model


def _seen_by_model(model: ScriptedChatModel) -> str:
    request = model.requests[-1]
    return "\n".join(m.text for m in request.messages)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_multi_step_run(kind: Kind, mode: Mode) -> None:
    script = [kind.call("echo", "a"), kind.call("echo", "b"), kind.answer("42")]
    executor, model = _executor(kind, script, return_intermediate_steps=True)
    result = await run(executor, "q", mode)
    assert result["output"] == "42"
    assert [(a.tool, obs) for a, obs in result["intermediate_steps"]] == [
        ("echo", "echo:a"),
        ("echo", "echo:b"),
    ]
    assert len(model.requests) == 3
    assert "echo:a" in _seen_by_model(model)
    assert "echo:b" in _seen_by_model(model)


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_invalid_tool_is_told_to_the_model(kind: Kind) -> None:
    executor, model = _executor(kind, [kind.call("nope", "x"), kind.answer("ok")])
    assert executor.invoke({"input": "q"}) == {"input": "q", "output": "ok"}
    assert "nope is not a valid tool, try one of [echo, direct, direct2]." in _seen_by_model(model)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", TEXT_KINDS, ids=[k.name for k in TEXT_KINDS])
async def test_parse_error_recovery(kind: Kind, mode: Mode) -> None:
    assert kind.garbage is not None
    executor, _ = _executor(
        kind,
        [kind.garbage, kind.answer("ok")],
        handle_parsing_errors=True,
        return_intermediate_steps=True,
    )
    result = await run(executor, "q", mode)
    assert result["output"] == "ok"
    [(action, observation)] = result["intermediate_steps"]
    assert (action.tool, action.tool_input) == ("_Exception", observation)


@pytest.mark.parametrize("kind", TEXT_KINDS, ids=[k.name for k in TEXT_KINDS])
def test_parse_error_raises_without_the_handler(kind: Kind) -> None:
    assert kind.garbage is not None
    executor, _ = _executor(kind, [kind.garbage])
    with pytest.raises(ValueError, match=r"^An output parsing error occurred"):
        executor.invoke("q")


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_max_iterations(kind: Kind) -> None:
    executor, model = _executor(
        kind, [kind.call("echo", str(i)) for i in range(3)], max_iterations=2
    )
    assert executor.invoke("q") == {"input": "q", "output": STOPPED}
    assert model.remaining == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_max_execution_time_with_a_hung_tool(kind: Kind, mode: Mode) -> None:
    release = threading.Event()

    @tool
    def hang(text: str) -> str:
        """Hangs until the test ends."""
        release.wait(30)
        return text

    executor, _ = _executor(kind, [kind.call("hang", "x")], tools=[hang], max_execution_time=0.2)
    started = time.monotonic()
    try:
        result = await run(executor, "q", mode)
    finally:
        release.set()
    assert result == {"input": "q", "output": STOPPED}
    assert time.monotonic() - started < 2.2  # the limit plus scheduling slack; the tool hangs 30 s


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_generate_makes_one_more_model_call_for_the_answer(kind: Kind, mode: Mode) -> None:
    executor, model = _executor(
        kind,
        [kind.call("echo", "a"), kind.answer("from the steps: echo:a")],
        max_iterations=1,
        early_stopping_method="generate",
    )
    assert await run(executor, "q", mode) == {"input": "q", "output": "from the steps: echo:a"}
    assert "echo:a" in _seen_by_model(model)
    assert model.remaining == 0


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_generate_reply_that_does_not_parse_is_the_output(kind: Kind) -> None:
    executor, _ = _executor(
        kind,
        [kind.call("echo", "a"), "just some words"],
        max_iterations=1,
        early_stopping_method="generate",
    )
    assert executor.invoke("q")["output"] == "just some words"


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_force_keeps_the_reference_text(kind: Kind) -> None:
    executor, _ = _executor(kind, [kind.call("echo", "a")], max_iterations=1)
    assert executor.invoke("q")["output"] == STOPPED


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_return_direct(kind: Kind) -> None:
    executor, model = _executor(kind, [kind.call("direct", "x")])
    assert executor.invoke("q") == {"input": "q", "output": "direct:x"}
    assert model.remaining == 0


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_trimming_limits_what_the_model_sees(kind: Kind) -> None:
    script = [kind.call("echo", "first"), kind.call("echo", "second"), kind.answer("ok")]
    executor, model = _executor(kind, script, trim_intermediate_steps=1)
    executor.invoke("q")
    assert "echo:second" in _seen_by_model(model)
    assert "echo:first" not in _seen_by_model(model)


class _Tokens(BaseCallbackHandler):
    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", TEXT_KINDS, ids=[k.name for k in TEXT_KINDS])
async def test_model_tokens_reach_the_callbacks(kind: Kind, mode: Mode) -> None:
    handler = _Tokens()
    executor, _ = _executor(kind, [kind.answer("forty two")])
    await run(executor, "q", mode, {"callbacks": [handler]})
    assert "".join(handler.tokens) == kind.answer("forty two")


@pytest.mark.parametrize("mode", MODES)
async def test_tool_calling_stream_chunks(mode: Mode) -> None:
    reply = ScriptedChatModel.tool_calls(("echo", {"text": "a"}), ("echo", {"text": "b"}))
    executor, _ = _executor(KINDS[0], [reply, "done"])
    got = await chunks(executor, "q", mode)
    assert [sorted(c) for c in got] == [
        ["actions", "messages"],
        ["actions", "messages"],
        ["messages", "steps"],
        ["messages", "steps"],
        ["messages", "output"],
    ]
    first, second = got[0]["actions"][0], got[1]["actions"][0]
    assert isinstance(first, ToolAgentAction)
    assert isinstance(second, ToolAgentAction)
    assert (first.tool_call_id, second.tool_call_id) == ("call_1", "call_2")
    assert got[0]["messages"] == got[1]["messages"] == list(first.message_log)
    assert got[2]["messages"] == [ToolMessage(content="echo:a", tool_call_id="call_1", name="echo")]
    assert got[3]["messages"] == [ToolMessage(content="echo:b", tool_call_id="call_2", name="echo")]
    assert got[4] == {"output": "done", "messages": [AIMessage(content="done")]}


@pytest.mark.parametrize("mode", MODES)
async def test_tool_calls_of_one_reply_run_concurrently(mode: Mode) -> None:
    barrier = threading.Barrier(2, timeout=5)

    @tool
    def meet(text: str) -> str:
        """Returns only when a second call runs at the same time."""
        barrier.wait()
        return text

    reply = ScriptedChatModel.tool_calls(("meet", {"text": "a"}), ("meet", {"text": "b"}))
    executor, _ = _executor(KINDS[0], [reply, "done"], tools=[meet])
    assert (await run(executor, "q", mode))["output"] == "done"


def test_a_string_needs_an_input_variable_in_the_prompt() -> None:
    prompt = PromptTemplate.from_template("{tools} {tool_names} {question}\n{agent_scratchpad}")
    agent = create_react_agent(ScriptedChatModel([]), tools(), prompt)
    executor = AgentExecutor(agent=agent, tools=tools())
    with pytest.raises(TypeError, match=r"pass a dict with the keys \['question'\]$"):
        executor.invoke("q")
