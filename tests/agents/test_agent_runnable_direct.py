"""`AgentRunnable.invoke`/`ainvoke` with no handler call the four steps directly (and let the
prompt reuse its head in the run's memo): the decision, the model's requests and the errors
are those of the traced four-step sequence."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_executor_agents import IDS, KINDS, Kind
from test_executor_support import tools

from leanchain.agents import (
    AgentAction,
    AgentFinish,
    create_react_agent,
    create_tool_calling_agent,
)
from leanchain.agents._agent_runnable import AgentRunnable
from leanchain.agents.format_scratchpad._steps import RunSteps
from leanchain.agents.output_parsers import ReActSingleInputOutputParser
from leanchain.agents.prompts import REACT_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import (
    ModelCall,
    ModelInterceptor,
    ScriptedChatModel,
    intercept_model_calls,
)
from leanchain.messages import AIMessage
from leanchain.prompts import ChatPromptTemplate, PromptValue
from leanchain.runnables import RunnableBinding, RunnableConfig
from outcome_support import outcome


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


async def test_a_prompt_that_overrides_invoke_is_invoked() -> None:
    seen: list[dict[str, Any]] = []

    class Watched(ChatPromptTemplate):
        def invoke(
            self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
        ) -> PromptValue:
            seen.append(input)
            return super().invoke(input, config, **kwargs)

    tool_kind = KINDS[0]
    prompt = Watched.from_messages([("human", "{input}"), ("placeholder", "{agent_scratchpad}")])
    model = ScriptedChatModel([tool_kind.answer("42")] * 2)
    agent = create_tool_calling_agent(model, tools(), prompt)
    inputs = {"input": "q", "intermediate_steps": RunSteps([], {})}
    for decision in (agent.invoke(inputs), await agent.ainvoke(inputs)):
        assert isinstance(decision, AgentFinish)
        assert decision.return_values == {"output": "42"}
    assert [sorted(values) for values in seen] == [
        ["agent_scratchpad", "input", "intermediate_steps"]
    ] * 2


# -- the model's and the parser's quiet calls ----------------------------------------------

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
words = st.text(alphabet="abc xyz", min_size=1, max_size=8)


def _entries(kind: Kind) -> st.SearchStrategy[Any]:
    """Replies an agent of `kind` may meet: calls, answers, garbage, text past a stop
    sequence, a reply cut off at the token limit, an error the model raises."""

    def cut_off(text: str) -> AIMessage:
        reply = kind.call("echo", text)
        message = reply if isinstance(reply, AIMessage) else AIMessage(reply)
        return message.model_copy(update={"response_metadata": {"finish_reason": "length"}})

    options = [
        words.map(lambda t: kind.call("echo", t)),
        words.map(kind.answer),
        words.map(cut_off),
        st.just(RuntimeError("model down")),
        st.sampled_from(["\nObservation: made up", "</tool_input> more", "\nObservation:"]).map(
            lambda tail: (
                kind.call("echo", "a") + tail
                if isinstance(kind.call("echo", "a"), str)
                else kind.call("echo", "a")
            )
        ),
    ]
    if kind.garbage is not None:
        options.append(st.just(kind.garbage))
    return st.one_of(options)


@SETTINGS
@given(data=st.data(), kind=st.sampled_from(KINDS))
def test_quiet_steps_decide_fail_and_ask_as_the_traced_sequence(
    data: st.DataObject, kind: Kind
) -> None:
    """Without a handler the agent calls the model's and the parser's quiet calls: the same
    decisions and errors (the script running out among them) and the same requests, sync
    and async, as the traced sequence."""
    script = data.draw(st.lists(_entries(kind), min_size=1, max_size=3))
    quiet, aquiet, traced = (ScriptedChatModel(script) for _ in range(3))
    agents = [kind.build(model, tools()) for model in (quiet, aquiet, traced)]
    assert agents[0]._model_call is not None
    assert agents[0]._parse is not None
    listened: RunnableConfig = {"callbacks": [BaseCallbackHandler()]}
    inputs = {"input": "q", "intermediate_steps": []}
    for _ in range(len(script) + 1):  # one past the end: the script runs out alike
        want = outcome(lambda: agents[2].invoke(inputs, listened))
        assert outcome(lambda: agents[0].invoke(inputs)) == want
        assert outcome(lambda: asyncio.run(agents[1].ainvoke(inputs))) == want
    assert quiet.requests == aquiet.requests == traced.requests


class _Noted(ReActSingleInputOutputParser):
    """A ReAct parser whose `invoke` and `ainvoke` note each reply."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self.seen.append("invoke")
        return super().invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self.seen.append("ainvoke")
        return await super().ainvoke(input, config, **kwargs)


class _AsyncOwn(ReActSingleInputOutputParser):
    """A ReAct parser with its own async reading: a final answer in capitals."""

    async def aparse_result(self, result: Any, *, partial: bool = False) -> Any:
        decision = self.parse_result(result)
        if isinstance(decision, AgentFinish):
            return AgentFinish({"output": decision.return_values["output"].upper()}, "")
        return decision


REACT = next(k for k in KINDS if k.name == "react")


@pytest.mark.parametrize("parser_class", [_Noted, _AsyncOwn])
async def test_a_parser_with_its_own_invoke_or_async_reading_is_called(
    parser_class: type[ReActSingleInputOutputParser],
) -> None:
    parser = parser_class()
    model = ScriptedChatModel([REACT.answer("yes"), REACT.answer("yes")])
    agent = create_react_agent(model, tools(), REACT_PROMPT, output_parser=parser)
    assert agent._parse is None  # read once: the parser's own methods are called
    inputs = {"input": "q", "intermediate_steps": []}
    sync, async_ = agent.invoke(inputs), await agent.ainvoke(inputs)
    assert sync == AgentFinish({"output": "yes"}, REACT.answer("yes"))
    if isinstance(parser, _Noted):
        assert async_ == sync
        assert parser.seen == ["invoke", "ainvoke"]
    else:
        assert async_ == AgentFinish({"output": "YES"}, "")


class _LoudModel(ScriptedChatModel):
    """A scripted model whose `invoke` and `ainvoke` note their calls."""

    calls: ClassVar[list[str]] = []

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> AIMessage:
        self.calls.append(f"invoke {sorted(kwargs)}")
        return super().invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> AIMessage:
        self.calls.append(f"ainvoke {sorted(kwargs)}")
        return await super().ainvoke(input, config, **kwargs)


async def test_a_model_with_its_own_invoke_is_invoked_with_the_bound_arguments() -> None:
    _LoudModel.calls.clear()
    model = _LoudModel([REACT.answer("1"), REACT.answer("2")])
    agent = create_react_agent(model, tools(), REACT_PROMPT)
    inputs = {"input": "q", "intermediate_steps": []}
    assert agent.invoke(inputs) == AgentFinish({"output": "1"}, REACT.answer("1"))
    assert await agent.ainvoke(inputs) == AgentFinish({"output": "2"}, REACT.answer("2"))
    assert _LoudModel.calls == ["invoke ['stop']", "ainvoke ['stop']"]


class _NotingInterceptor(ModelInterceptor):
    def __init__(self) -> None:
        self.asked: list[tuple[Any, Any]] = []

    def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
        self.asked.append((call.messages, call.stop))
        return proceed()

    async def ainvoke(
        self, call: ModelCall, proceed: Callable[[], Awaitable[AIMessage]]
    ) -> AIMessage:
        self.asked.append((call.messages, call.stop))
        return await proceed()


async def test_an_interceptor_sees_the_quiet_model_call() -> None:
    quiet, traced = (ScriptedChatModel([REACT.answer("1"), REACT.answer("2")]) for _ in "ab")
    agent, traced_agent = (create_react_agent(m, tools(), REACT_PROMPT) for m in (quiet, traced))
    listened: RunnableConfig = {"callbacks": [BaseCallbackHandler()]}
    inputs = {"input": "q", "intermediate_steps": []}
    seen, seen_traced = _NotingInterceptor(), _NotingInterceptor()
    with intercept_model_calls(seen):
        decisions = [agent.invoke(inputs), await agent.ainvoke(inputs)]
    with intercept_model_calls(seen_traced):
        expected = [traced_agent.invoke(inputs, listened), await traced_agent.ainvoke(inputs)]
    assert decisions == expected
    assert seen.asked == seen_traced.asked
    assert [stop for _, stop in seen.asked] == [["\nObservation"]] * 2


class _WatchedBinding(RunnableBinding[Any, Any]):
    """A binding whose `invoke` and `ainvoke` note their calls."""

    calls: ClassVar[list[str]] = []

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        self.calls.append("invoke")
        return super().invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        self.calls.append("ainvoke")
        return await super().ainvoke(input, config, **kwargs)


async def test_a_model_step_with_its_own_invoke_is_invoked() -> None:
    _WatchedBinding.calls.clear()
    model = ScriptedChatModel([REACT.answer("1"), REACT.answer("2")])
    built = create_react_agent(model, tools(), REACT_PROMPT)
    step = _WatchedBinding(bound=model, kwargs={"stop": ["\nObservation"]})
    agent = AgentRunnable(
        prompt=built.prompt,
        llm=model,
        llm_step=step,
        final_llm=lambda: model,
        format_scratchpad=built.format_scratchpad,
        output_parser=built.output_parser,
        final_instruction=built.final_instruction,
    )
    assert agent._model_call is None
    inputs = {"input": "q", "intermediate_steps": []}
    assert agent.invoke(inputs) == AgentFinish({"output": "1"}, REACT.answer("1"))
    assert await agent.ainvoke(inputs) == AgentFinish({"output": "2"}, REACT.answer("2"))
    assert _WatchedBinding.calls == ["invoke", "ainvoke"]
