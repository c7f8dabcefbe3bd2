"""A bound chat model called with no handler takes a short path that gives what `invoke` gives.

`model.bind(...)` / `model.bind_tools(...)` hand a call straight to the model's reply when no
callback handler listens and no interceptor is set (`_direct.BoundModelCall`), and a scripted
model then skips the `ChatResult` it would build (`_unwatched_reply`). These tests hold that
path to the general one: the same reply, the same recorded requests, the same errors, the
same interceptor calls, for any reply, stop sequences and bound arguments; and the general
path is still taken whenever something could tell the difference.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import ScriptExhaustedError
from leanchain.language_models import (
    BaseChatModel,
    ChatGeneration,
    ChatResult,
    FunctionChatModel,
    ModelCall,
    ModelInterceptor,
    ScriptedChatModel,
    intercept_model_calls,
)
from leanchain.language_models._direct import BoundModelCall
from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from leanchain.prompts import ChatPromptValue
from leanchain.runnables import RunnableBinding
from leanchain.tools import tool
from outcome_support import outcome

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TRACED: Any = {"callbacks": [BaseCallbackHandler()]}
PROMPT = ChatPromptValue([SystemMessage("You are terse."), HumanMessage("q")])


@tool
def echo_text(text: str) -> str:
    """Echo the text back."""
    return text


replies = st.one_of(
    st.text(max_size=30),
    st.builds(
        lambda name, text: ScriptedChatModel.tool_call(name, {"text": text}),
        st.sampled_from(["echo_text", "other"]),
        st.text(max_size=8),
    ),
    st.builds(
        lambda text, reason: AIMessage(
            content=text, response_metadata={"finish_reason": reason} if reason else {}
        ),
        st.text(max_size=30),
        st.sampled_from([None, "stop", "length"]),
    ),
    st.builds(lambda text: AIMessageChunk(content=text), st.text(max_size=20)),
)
stops = st.one_of(
    st.none(),
    st.lists(st.sampled_from(["\nObservation", "</tool_input>", "x", "", "ab"]), max_size=3),
)
extras = st.dictionaries(st.sampled_from(["temperature", "tool_choice", "seed"]), st.integers())


def _pair(script: list[Any]) -> tuple[ScriptedChatModel, ScriptedChatModel]:
    return ScriptedChatModel(script), ScriptedChatModel(script)


@SETTINGS
@given(script=st.lists(replies, min_size=1, max_size=3), stop=stops, extra=extras)
def test_a_bound_call_gives_the_traced_calls_replies_and_requests(
    script: list[Any], stop: list[str] | None, extra: dict[str, Any]
) -> None:
    fast, traced = _pair(script)
    kwargs = {**extra, **({} if stop is None else {"stop": stop})}
    fast_step, traced_step = fast.bind(**kwargs), traced.bind(**kwargs)
    for _ in range(len(script) + 1):  # one past the end: the script runs out alike
        assert outcome(lambda: fast_step.invoke(PROMPT, {})) == outcome(
            lambda: traced_step.invoke(PROMPT, TRACED)
        )
    assert fast.requests == traced.requests
    assert fast.remaining == traced.remaining == 0


@SETTINGS
@given(script=st.lists(replies, min_size=1, max_size=3), stop=stops)
def test_bound_tools_give_what_invoke_with_the_same_arguments_gives(
    script: list[Any], stop: list[str] | None
) -> None:
    fast, plain = _pair(script)
    step = fast.bind_tools([echo_text], tool_choice="auto")
    if stop is not None:
        step = step.bind(stop=stop)
    assert isinstance(step, RunnableBinding)
    kwargs = step.kwargs
    for _ in script:
        assert step.invoke(PROMPT) == plain.invoke(PROMPT, TRACED, **kwargs)
    assert fast.requests == plain.requests


@SETTINGS
@given(script=st.lists(replies, min_size=1, max_size=3), stop=stops)
def test_the_async_twin_gives_the_traced_calls_replies(
    script: list[Any], stop: list[str] | None
) -> None:
    fast, traced = _pair(script)
    kwargs = {} if stop is None else {"stop": stop}

    async def run() -> None:
        for _ in script:
            fast_reply = await fast.bind(**kwargs).ainvoke(PROMPT)
            assert fast_reply == await traced.bind(**kwargs).ainvoke(PROMPT, TRACED)
        with pytest.raises(ScriptExhaustedError) as fast_error:
            await fast.bind(**kwargs).ainvoke(PROMPT)
        with pytest.raises(ScriptExhaustedError) as traced_error:
            await traced.bind(**kwargs).ainvoke(PROMPT, TRACED)
        assert str(fast_error.value) == str(traced_error.value)

    asyncio.run(run())
    assert fast.requests == traced.requests


def test_a_bound_call_reply_is_a_whole_message_and_requests_own_their_lists() -> None:
    chunk = AIMessageChunk(content="Thought: go\nObservation: made up")
    model = ScriptedChatModel([chunk, chunk])
    step = model.bind_tools([echo_text]).bind(stop=["\nObservation"])
    reply = step.invoke(PROMPT)
    assert type(reply) is AIMessage
    assert reply == AIMessage(content="Thought: go")
    first, second = step.invoke(PROMPT), model.requests
    assert first == reply
    assert second[0] == second[1]
    assert second[0].tools is not second[1].tools
    assert second[0].stop is not second[1].stop
    assert second[0].kwargs is not second[1].kwargs
    assert second[0].messages is not PROMPT.messages
    assert second[0].messages == PROMPT.messages
    assert second[0].stop == ["\nObservation"]
    assert second[0].tool_names == ["echo_text"]


def test_a_bound_error_is_the_one_invoke_raises() -> None:
    boom = RuntimeError("boom")
    fast, traced = _pair([boom])
    with pytest.raises(RuntimeError) as fast_error:
        fast.bind(stop=["x"]).invoke(PROMPT)
    with pytest.raises(RuntimeError) as traced_error:
        traced.bind(stop=["x"]).invoke(PROMPT, TRACED)
    assert fast_error.value is traced_error.value is boom
    assert fast.requests == traced.requests


def test_bad_input_is_refused_with_invokes_message() -> None:
    model = ScriptedChatModel(["a"])
    with pytest.raises(ValueError) as bound_error:
        model.bind(stop=["x"]).invoke(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError) as plain_error:
        model.invoke(42, stop=["x"])  # type: ignore[arg-type]
    assert str(bound_error.value) == str(plain_error.value)
    assert model.requests == []


class General(ScriptedChatModel):
    """A scripted model that builds its `ChatResult`: every call takes the general path."""

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        return super()._generate(*args, **kwargs)


@pytest.mark.parametrize("keyword", ["input", "config", "messages", "run_manager"])
def test_keywords_that_name_a_parameter_do_what_they_did(keyword: str) -> None:
    bound, general = ScriptedChatModel(["a"]), General(["a"])
    got = outcome(lambda: bound.bind(**{keyword: "v"}).invoke(PROMPT))
    assert got == outcome(lambda: general.bind(**{keyword: "v"}).invoke(PROMPT))
    assert bound.requests == general.requests


def test_only_a_model_binding_without_config_calls_directly() -> None:
    model = ScriptedChatModel([])
    assert isinstance(model.bind(stop=["x"])._direct, BoundModelCall)
    assert model.bind(config={})._direct is None  # "config": invoke's own parameter
    assert model.bind(stop=["x"]).with_config(tags=["t"])._direct is None
    assert RunnableBinding(bound=model.bind(stop=["x"]), kwargs={"a": 1})._direct is None


class Noting(ModelInterceptor):
    """Keeps what each intercepted call was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Any, Any, Any]] = []

    def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
        self.asked.append(("invoke", call.messages, call.stop, call.kwargs))
        return proceed()


def test_an_interceptor_sees_a_bound_call_as_invoke_makes_it() -> None:
    bound, plain = _pair(["Thought: a\nObservation: b", "c"])
    kwargs = {"stop": ["\nObservation"], "tools": [{"name": "t"}], "seed": 1}
    seen_bound, seen_plain = Noting(), Noting()
    with intercept_model_calls(seen_bound):
        bound_replies = [bound.bind(**kwargs).invoke(PROMPT) for _ in range(2)]
    with intercept_model_calls(seen_plain):
        plain_replies = [plain.invoke(PROMPT, **kwargs) for _ in range(2)]
    assert bound_replies == plain_replies == [AIMessage("Thought: a"), AIMessage("c")]
    assert seen_bound.asked == seen_plain.asked
    assert seen_bound.asked[0] == (
        "invoke",
        PROMPT.messages,
        ["\nObservation"],
        {"tools": [{"name": "t"}], "seed": 1},
    )
    assert bound.requests == plain.requests


def test_an_interceptor_that_changes_kwargs_leaves_the_binding_as_it_was() -> None:
    class Rewrites(ModelInterceptor):
        def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
            call.kwargs["seed"] = 2  # in place: the call's own dict, not the binding's
            return proceed()

    model = ScriptedChatModel(["a", "b"])
    step = model.bind(seed=1)
    with intercept_model_calls(Rewrites()):
        step.invoke(PROMPT)
    step.invoke(PROMPT)
    assert [r.kwargs for r in model.requests] == [{"seed": 2}, {"seed": 1}]
    assert step.kwargs == {"seed": 1}


class ReversedModel(ScriptedChatModel):
    """A scripted model whose results are its own: the reply's text reversed."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = super()._generate(messages, stop, run_manager, **kwargs).generations[0].message
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply.text[::-1]))])


class LoudModel(ScriptedChatModel):
    """A scripted model whose `invoke` shouts."""

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> AIMessage:
        return AIMessage(super().invoke(input, config, **kwargs).text.upper())


class CutsItself(ScriptedChatModel):
    """A scripted model that cuts its replies at the stop sequences itself, and at "!"."""

    client_side_stop = True

    def _client_stop(self, stop: list[str] | None) -> list[str] | None:
        return [*(stop or []), "!"]


@pytest.mark.parametrize("cls", [ReversedModel, LoudModel, CutsItself])
def test_a_subclass_is_called_as_it_says(cls: type[ScriptedChatModel]) -> None:
    script = ["abc! def", "Thought: x\nObservation: y"]
    bound, traced = cls(script), cls(script)
    kwargs = {"stop": ["\nObservation"]}
    for _ in script:
        assert bound.bind(**kwargs).invoke(PROMPT) == traced.bind(**kwargs).invoke(PROMPT, TRACED)
    assert bound.requests == traced.requests


def test_a_model_class_patched_after_binding_is_still_called_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = ScriptedChatModel(["a"])
    step = model.bind(stop=["x"])
    monkeypatch.setattr(ScriptedChatModel, "invoke", lambda self, *a, **k: AIMessage("patched"))
    assert step.invoke(PROMPT) == AIMessage("patched")
    assert model.remaining == 1


def test_a_function_model_answers_the_same_through_a_binding() -> None:
    def answer(messages: list[BaseMessage], request: Any) -> AIMessageChunk:
        return AIMessageChunk(content=f"{len(messages)} {request.stop} {request.kwargs}")

    fast, traced = FunctionChatModel(answer), FunctionChatModel(answer)
    kwargs = {"stop": [" "], "seed": 3}
    reply = fast.bind(**kwargs).invoke(PROMPT)
    assert reply == traced.bind(**kwargs).invoke(PROMPT, TRACED) == AIMessage("2")
    assert type(reply) is AIMessage
    assert fast.requests == traced.requests


def test_a_handler_sees_a_bound_call() -> None:
    class Starts(BaseCallbackHandler):
        def __init__(self) -> None:
            self.starts: list[Any] = []

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            self.starts.append(kwargs["invocation_params"])

    handler = Starts()
    model: BaseChatModel = ScriptedChatModel(["a"])
    model.bind(stop=["x"], seed=1).invoke(PROMPT, {"callbacks": [handler]})
    assert handler.starts == [
        {"_type": "scripted-chat-model", "stop": ["x"], "seed": 1},
    ]


class OwnConversion(ScriptedChatModel):
    """A scripted model that reads every prompt as one more system message first."""

    def _convert_input(self, input: Any) -> list[BaseMessage]:
        return [SystemMessage("first"), *super()._convert_input(input)]


class OwnAnswer(ScriptedChatModel):
    """A scripted model that appends a mark to every reply it answers."""

    def _answer(self, request: Any, stop: list[str] | None) -> AIMessage:
        return AIMessage(super()._answer(request, stop).text + " (answered)")

    async def _aanswer(self, request: Any, stop: list[str] | None) -> AIMessage:
        return self._answer(request, stop)


QUIET_CLASSES = [
    ScriptedChatModel,
    General,
    ReversedModel,
    LoudModel,
    CutsItself,
    OwnConversion,
    OwnAnswer,
]
contents = st.one_of(
    replies,
    # content blocks: nothing to cut, even when a block is the stop sequence itself
    st.builds(
        lambda text: AIMessage(content=[text, "ab", {"type": "text", "text": text}]),
        st.text(max_size=10),
    ),
)
prompts = st.one_of(
    st.just(PROMPT), st.text(max_size=10), st.lists(st.text(max_size=10), max_size=2)
)


@SETTINGS
@given(
    cls=st.sampled_from(QUIET_CLASSES),
    script=st.lists(contents, min_size=1, max_size=3),
    stop=stops,
    extra=extras,
    prompt=prompts,
)
def test_the_quiet_call_is_invoke_for_every_model_class(
    cls: type[ScriptedChatModel],
    script: list[Any],
    stop: list[str] | None,
    extra: dict[str, Any],
    prompt: Any,
) -> None:
    """`quiet`/`aquiet` (an agent's call, its config checked already) give what the traced
    `invoke` gives: the same replies, errors and requests, whatever the class overrides."""
    kwargs = {**extra, **({} if stop is None else {"stop": stop})}
    quiet, aquiet, traced, atraced = (cls(script) for _ in range(4))
    call, acall = quiet.bind(**kwargs)._quiet_call(), aquiet.bind(**kwargs)._quiet_call()
    assert isinstance(call, BoundModelCall)
    assert isinstance(acall, BoundModelCall)

    async def ask() -> AIMessage:
        return await acall.aquiet(prompt, {})

    async def ask_traced() -> AIMessage:
        return await atraced.bind(**kwargs).ainvoke(prompt, TRACED)

    for _ in range(len(script) + 1):  # one past the end: the script runs out alike
        want = outcome(lambda: traced.bind(**kwargs).invoke(prompt, TRACED))
        assert outcome(lambda: call.quiet(prompt, {})) == want
        assert outcome(lambda: asyncio.run(ask())) == outcome(lambda: asyncio.run(ask_traced()))
    assert quiet.requests == aquiet.requests == traced.requests == atraced.requests


class Cuts:
    """The strings a stop cut can meet: markers, empty markers, repeated and overlapping."""

    texts = st.text(alphabet="ab\nO:x<>/", max_size=20)
    markers = st.lists(st.sampled_from(["", "a", "ab", "b\n", "x<", "\nO"]), max_size=3)


@SETTINGS
@given(text=Cuts.texts, stop=Cuts.markers, reason=st.sampled_from([None, "stop"]))
def test_the_stop_cut_is_cut_message(text: str, stop: list[str], reason: str | None) -> None:
    """The recorded call looks for a marker itself and calls `cut_message` only when one is
    in the text: the reply is `cut_message`'s (metadata included) either way."""
    from leanchain.language_models._stop import cut_message

    metadata = {} if reason is None else {"finish_reason": reason}
    reply = AIMessage(content=text, response_metadata=metadata)
    model = ScriptedChatModel([reply])
    call = model.bind(stop=stop)._quiet_call()
    assert call is not None
    got = call.quiet(PROMPT, {})
    assert got == (cut_message(reply, stop) if stop else reply)
    assert type(got) is AIMessage


def test_a_stop_list_changed_in_place_is_seen_by_the_next_quiet_call() -> None:
    model = ScriptedChatModel(["a:b:c", "a:b:c"])
    stop = [":"]
    call = model.bind(stop=stop)._quiet_call()
    assert call is not None
    assert call.quiet(PROMPT, {}) == AIMessage("a")
    stop[0] = "c"
    assert call.quiet(PROMPT, {}) == AIMessage("a:b:")
    assert [r.stop for r in model.requests] == [[":"], ["c"]]


def test_the_quiet_call_waits_the_models_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def asleep(seconds: float) -> None:
        slept.append(-seconds)

    monkeypatch.setattr("time.sleep", slept.append)
    monkeypatch.setattr("asyncio.sleep", asleep)
    model = ScriptedChatModel(["a", "b"], delay=0.25)
    call = model.bind(stop=["x"])._quiet_call()
    assert call is not None
    assert call.quiet(PROMPT, {}) == AIMessage("a")
    assert asyncio.run(call.aquiet(PROMPT, {})) == AIMessage("b")
    assert slept == [0.25, -0.25]


def test_the_quiet_call_sees_interceptors_and_a_class_patched_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quiet, plain = _pair(["Thought: a\nObservation: b", "c"])
    kwargs = {"stop": ["\nObservation"], "seed": 1}
    call = quiet.bind(**kwargs)._quiet_call()
    assert call is not None
    seen_quiet, seen_plain = Noting(), Noting()
    with intercept_model_calls(seen_quiet):
        replies = [call.quiet(PROMPT, {}) for _ in range(2)]
    with intercept_model_calls(seen_plain):
        assert replies == [plain.invoke(PROMPT, **kwargs) for _ in range(2)]
    assert seen_quiet.asked == seen_plain.asked
    assert len(seen_quiet.asked) == 2
    assert quiet.requests == plain.requests
    monkeypatch.setattr(ScriptedChatModel, "invoke", lambda self, *a, **k: AIMessage("patched"))
    assert call.quiet(PROMPT, {}) == AIMessage("patched")


def test_only_a_binding_that_keeps_invoke_offers_its_quiet_call() -> None:
    class Watched(RunnableBinding[Any, Any]):
        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return super().invoke(input, config, **kwargs)

    class AsyncWatched(RunnableBinding[Any, Any]):
        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return await super().ainvoke(input, config, **kwargs)

    model = ScriptedChatModel([])
    step = model.bind(stop=["x"])
    assert step._quiet_call() is step._direct is not None
    assert Watched(bound=model, kwargs={"stop": ["x"]})._quiet_call() is None
    assert AsyncWatched(bound=model, kwargs={"stop": ["x"]})._quiet_call() is None
    assert step.with_config(tags=["t"])._quiet_call() is None  # config of its own: no direct call
