"""Property: whatever the steps, a history edit never leaves a tool result without its call
or a call without its result, on the OpenAI and Anthropic wire formats (the real SDKs against
`FakeProviderServer`, reading what the server received) and in leanchain's own messages."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_executor_agents import KINDS

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.middleware import AgentMiddleware, ClearToolResults, Summarization
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import BaseChatModel, FunctionChatModel, ScriptedChatModel
from leanchain.messages import AIMessage, BaseMessage, ToolMessage
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall
from leanchain.tools import tool

SIZES = (8, 300, 2000)


@tool
def fetch(key: str, size: int) -> str:
    """Fetch a record of about `size` characters."""
    return f"{key}:" + "x" * size


@dataclass(frozen=True)
class Spec:
    """A run: per turn, the result sizes of its parallel calls (``()``: an unparsable
    reply); and the history strategy."""

    turns: tuple[tuple[int, ...], ...]
    strategy: str
    trigger: int
    keep: int

    def middleware(self) -> list[AgentMiddleware]:
        summariser = FunctionChatModel(lambda messages, request: "what happened so far")
        clear = ClearToolResults(trigger_tokens=self.trigger, keep=self.keep)
        summarize = Summarization(summariser, trigger_tokens=self.trigger, keep=self.keep)
        options: dict[str, list[AgentMiddleware]] = {
            "clear": [clear],
            "summarize": [summarize],
            "both": [clear, summarize],
        }
        return options[self.strategy]

    @property
    def steps(self) -> int:
        return sum(max(1, len(turn)) for turn in self.turns)


specs = st.builds(
    Spec,
    turns=st.lists(
        st.one_of(
            st.tuples(*[st.sampled_from(SIZES)] * 1),
            st.tuples(*[st.sampled_from(SIZES)] * 2),
            st.tuples(*[st.sampled_from(SIZES)] * 3),
            st.just(()),
        ),
        min_size=1,
        max_size=9,
    ).map(tuple),
    strategy=st.sampled_from(["clear", "summarize", "both"]),
    trigger=st.integers(100, 2500),
    keep=st.integers(0, 4),
)


def _wire_script(spec: Spec) -> list[ScriptedReply]:
    script = []
    for number, turn in enumerate(spec.turns):
        if not turn:
            bad = ScriptedToolCall("fetch", '{"key": oops}', id=f"bad_{number}")
            script.append(ScriptedReply(tool_calls=[bad]))
            continue
        calls = [
            ScriptedToolCall(
                "fetch", {"key": f"t{number}c{n}", "size": size}, id=f"call_{number}_{n}"
            )
            for n, size in enumerate(turn)
        ]
        script.append(ScriptedReply(tool_calls=calls))
    return [*script, ScriptedReply(text="done")]


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def check_openai(messages: list[dict[str, Any]]) -> None:
    """Each assistant message's calls are answered by the tool messages right after it, and
    no tool message answers anything else."""
    index = 0
    while index < len(messages):
        message = messages[index]
        assert message["role"] != "tool", f"a tool result without its call at {index}"
        index += 1
        calls = [call["id"] for call in message.get("tool_calls") or ()]
        if not calls:
            continue
        answered = []
        while index < len(messages) and messages[index]["role"] == "tool":
            answered.append(messages[index]["tool_call_id"])
            index += 1
        assert answered == calls, f"calls {calls} answered by {answered}"


def check_anthropic(messages: list[dict[str, Any]]) -> None:
    """Roles alternate from the user; a message's tool_use blocks are answered by the
    tool_result blocks that open the next message, and no result answers anything else."""
    assert messages[0]["role"] == "user"
    for index, message in enumerate(messages):
        if index:
            assert message["role"] != messages[index - 1]["role"]
        blocks = _blocks(message)
        results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        if results:
            before = _blocks(messages[index - 1])
            assert results == [b["id"] for b in before if b["type"] == "tool_use"]
            assert all(b["type"] == "tool_result" for b in blocks[: len(results)])
        uses = [b["id"] for b in blocks if b["type"] == "tool_use"]
        if uses:
            after = _blocks(messages[index + 1])
            assert [b.get("tool_use_id") for b in after[: len(uses)]] == uses


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProviderServer]:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with FakeProviderServer() as server:
        yield server


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_no_request_ever_splits_a_call_from_its_result_on_the_wire(
    server: FakeProviderServer, provider: str
) -> None:
    model: ChatOpenAI | ChatAnthropic
    if provider == "openai":
        model = ChatOpenAI(
            model="gpt-fake", base_url=server.openai_base_url, api_key="sk-test", max_retries=0
        )
    else:
        model = ChatAnthropic(
            model="claude-fake",
            base_url=server.anthropic_base_url,
            api_key="sk-test",
            max_retries=0,
        )
    edited: list[bool] = []

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(spec=specs)
    def check(spec: Spec) -> None:
        server.reset()
        server.enqueue(*_wire_script(spec))
        executor = AgentExecutor(
            agent=create_tool_calling_agent(model, [fetch], TOOL_CALLING_PROMPT),
            tools=[fetch],
            middleware=spec.middleware(),
            handle_parsing_errors=True,
            max_iterations=len(spec.turns) + 1,
            return_intermediate_steps=True,
        )
        result = executor.invoke({"input": "Fetch the records"})
        assert result["output"] == "done"
        assert len(result["intermediate_steps"]) == spec.steps
        bodies = [request.body for request in server.requests]
        assert len(bodies) == len(spec.turns) + 1
        for body in bodies:
            (check_openai if provider == "openai" else check_anthropic)(body["messages"])
        edited.append(any("Summary of" in str(b) or "[result cleared" in str(b) for b in bodies))

    try:
        check()
    finally:
        model.close()
    assert sum(edited) >= 5  # the property was tested on edited histories, not only whole ones


def _scripted(spec: Spec) -> list[AIMessage]:
    script = []
    for number, turn in enumerate(spec.turns):
        if not turn:
            bad = {"name": "fetch", "args": '{"key": oops}', "id": f"bad_{number}"}
            script.append(AIMessage("", invalid_tool_calls=[{**bad, "error": "not JSON"}]))
            continue
        calls = [("fetch", {"key": f"t{number}c{n}", "size": s}) for n, s in enumerate(turn)]
        script.append(ScriptedChatModel.tool_calls(*calls))
    return [*script, AIMessage("done")]


def check_messages(messages: list[BaseMessage]) -> None:
    """leanchain's messages: an AI message's calls answered by the tool messages after it."""
    index = 0
    while index < len(messages):
        message = messages[index]
        assert not isinstance(message, ToolMessage), f"a result without its call at {index}"
        index += 1
        calls = [c["id"] for c in getattr(message, "tool_calls", None) or ()]
        answered = []
        while calls and index < len(messages) and isinstance(messages[index], ToolMessage):
            answered.append(messages[index].tool_call_id)  # type: ignore[attr-defined]
            index += 1
        assert answered == calls


@settings(max_examples=150, deadline=None)
@given(spec=specs, kind=st.sampled_from(KINDS[:2]))
def test_no_history_edit_splits_a_call_from_its_result(spec: Spec, kind: Any) -> None:
    model: BaseChatModel = ScriptedChatModel(_scripted(spec))
    executor = AgentExecutor(
        agent=kind.build(model, [fetch]),
        tools=[fetch],
        middleware=spec.middleware(),
        handle_parsing_errors=True,
        max_iterations=len(spec.turns) + 1,
    )
    assert executor.invoke({"input": "Fetch the records"})["output"] == "done"
    for request in model.requests:  # type: ignore[attr-defined]
        check_messages(request.messages)
