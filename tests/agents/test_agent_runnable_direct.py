"""`AgentRunnable.invoke`/`ainvoke` with no handler call the four steps directly (and let the
prompt reuse its head in the run's memo): the decision, the model's requests and the errors
are those of the traced four-step sequence."""

from __future__ import annotations

from typing import Any

import pytest
from test_executor_agents import IDS, KINDS, Kind
from test_executor_support import tools

from leanchain.agents import AgentAction, AgentFinish, create_tool_calling_agent
from leanchain.agents.format_scratchpad._steps import RunSteps
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import ScriptedChatModel
from leanchain.prompts import ChatPromptTemplate, PromptValue
from leanchain.runnables import RunnableConfig


class _Chains(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.names.append(kwargs.get("name") or "")


def _steps(kind: Kind) -> list[tuple[AgentAction, Any]]:
    """Two steps as the agent itself would have planned them."""
    model = ScriptedChatModel([kind.call("echo", "a"), kind.call("echo", "b")])
    agent = kind.build(model, tools())
    out: list[tuple[AgentAction, Any]] = []
    for text in ("a", "b"):
        plan = agent.invoke({"input": "q", "intermediate_steps": list(out)})
        action = plan[0] if isinstance(plan, list) else plan
        out.append((action, f"echo: {text}"))
    return out


def _script(kind: Kind) -> list[Any]:
    return [kind.call("echo", "c"), kind.answer("42")] * 2


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_direct_steps_decide_and_ask_as_the_traced_sequence(kind: Kind) -> None:
    steps = _steps(kind)
    memo: dict[Any, Any] = {}
    direct, traced = ScriptedChatModel(_script(kind)), ScriptedChatModel(_script(kind))
    fast, slow = kind.build(direct, tools()), kind.build(traced, tools())
    handler = _Chains()
    listened: RunnableConfig = {"callbacks": [handler]}
    for window in (steps[:1], steps):  # the second call reuses the memo's head and scratchpad
        inputs = {"input": "q", "intermediate_steps": RunSteps(window, memo)}
        plain = {"input": "q", "intermediate_steps": list(window)}
        assert fast.invoke(inputs) == slow.invoke(plain, listened)
        assert await fast.ainvoke(inputs) == await slow.ainvoke(plain, listened)
    assert [r.messages for r in direct.requests] == [r.messages for r in traced.requests]
    assert [r.tools for r in direct.requests] == [r.tools for r in traced.requests]
    assert [r.stop for r in direct.requests] == [r.stop for r in traced.requests]
    # the traced calls did take the sequence's steps
    assert handler.names[:2] == ["AgentRunnable", "RunnableAssign<agent_scratchpad>"]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_missing_steps_and_non_dict_inputs_fail_as_the_sequence_does(kind: Kind) -> None:
    agent = kind.build(ScriptedChatModel([kind.answer("42")] * 4), tools())
    listened: RunnableConfig = {"callbacks": [BaseCallbackHandler()]}
    for config in (None, listened):
        with pytest.raises(KeyError, match="intermediate_steps"):
            agent.invoke({"input": "q"}, config)
        with pytest.raises(KeyError, match="intermediate_steps"):
            await agent.ainvoke({"input": "q"}, config)
        with pytest.raises(ValueError, match=r"RunnablePassthrough\.assign\(\) must be a dict"):
            agent.invoke(["not", "a", "dict"], config)


def test_a_prompt_that_overrides_invoke_is_invoked() -> None:
    seen: list[dict[str, Any]] = []

    class Watched(ChatPromptTemplate):
        def invoke(
            self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
        ) -> PromptValue:
            seen.append(input)
            return super().invoke(input, config, **kwargs)

    tool_kind = KINDS[0]
    prompt = Watched.from_messages([("human", "{input}"), ("placeholder", "{agent_scratchpad}")])
    agent = create_tool_calling_agent(ScriptedChatModel([tool_kind.answer("42")]), tools(), prompt)
    decision = agent.invoke({"input": "q", "intermediate_steps": RunSteps([], {})})
    assert isinstance(decision, AgentFinish)
    assert decision.return_values == {"output": "42"}
    assert [sorted(values) for values in seen] == [
        ["agent_scratchpad", "input", "intermediate_steps"]
    ]
