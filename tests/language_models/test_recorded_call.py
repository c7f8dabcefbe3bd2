"""A recording model's bound call builds its request and reply as the general path does.

`RecordedCall` splits a binding's request parts (tools, ``tool_choice``, the rest) from its
bound arguments once and builds each `ChatRequest` without the dataclass's `__init__`
(`new_request`); a text prompt becomes its human message without reading the class's fields
(`HumanMessage._of_text`). These tests hold each to what it stands for: the same requests,
replies and errors as the traced call, for any prompt, bound arguments and stop sequences;
the general path whenever the model's class has its own request or reply.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import ChatRequest, ScriptedChatModel
from leanchain.language_models._recorded import RecordedCall, new_request
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from leanchain.prompts import ChatPromptValue, StringPromptValue
from leanchain.prompts._build import build_message

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TRACED: Any = {"callbacks": [BaseCallbackHandler()]}

texts = st.text(max_size=30)
prompts = st.one_of(
    st.builds(StringPromptValue, texts),
    st.builds(lambda t: ChatPromptValue([SystemMessage("be terse"), HumanMessage(t)]), texts),
    texts,
)
stops = st.one_of(
    st.none(), st.lists(st.sampled_from(["\nObservation", "</tool_input>", "x", ""]), max_size=2)
)
bound = st.fixed_dictionaries(
    {},
    optional={
        "tools": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["a", "b"])}), max_size=2),
        "tool_choice": st.sampled_from(["auto", "any", None]),
        "seed": st.integers(),
    },
)


def _fields(request: ChatRequest) -> list[Any]:
    return [getattr(request, f.name) for f in dataclasses.fields(ChatRequest)]


@SETTINGS
@given(
    messages=st.lists(texts.map(HumanMessage), max_size=2),
    tools=st.lists(st.fixed_dictionaries({"name": texts}), max_size=2),
    choice=st.one_of(st.none(), st.text(max_size=5), st.booleans()),
    stop=st.one_of(st.none(), st.lists(texts, max_size=2)),
    kwargs=st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)
def test_new_request_is_the_dataclass_built_by_its_constructor(
    messages: list[BaseMessage],
    tools: list[dict[str, Any]],
    choice: Any,
    stop: list[str] | None,
    kwargs: dict[str, Any],
) -> None:
    quick = new_request(messages, tools, choice, stop, kwargs)
    made = ChatRequest(messages, tools, choice, stop, kwargs)
    assert type(quick) is ChatRequest
    assert quick == made
    assert repr(quick) == repr(made)
    assert all(a is b for a, b in zip(_fields(quick), _fields(made), strict=True))
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.stop = None  # type: ignore[misc]


@SETTINGS
@given(text=st.text(max_size=40))
def test_a_text_prompts_human_message_is_the_one_a_prompt_builds(text: str) -> None:
    quick = StringPromptValue(text).to_messages()
    built = build_message(HumanMessage, text)
    assert quick == [built] == [HumanMessage(text)]
    (message,) = quick
    assert type(message) is HumanMessage
    assert list(message.__dict__) == list(built.__dict__)
    assert message.model_fields_set == built.model_fields_set
    assert message.__pydantic_private__ == built.__pydantic_private__
    assert message.__pydantic_extra__ is None
    assert message.model_dump() == HumanMessage(text).model_dump()
    assert message.additional_kwargs is not built.additional_kwargs  # fresh dicts, not shared
    assert StringPromptValue(text).to_messages()[0].response_metadata is not (
        message.response_metadata
    )


@SETTINGS
@given(
    prompt=prompts,
    stop=stops,
    extra=bound,
    script=st.lists(
        st.sampled_from(["a", "Thought: t\nObservation: o", "x</tool_input>y"]),
        min_size=1,
        max_size=3,
    ),
)
def test_a_recorded_call_records_and_replies_as_the_traced_call(
    prompt: Any, stop: list[str] | None, extra: dict[str, Any], script: list[str]
) -> None:
    kwargs = {**extra, **({} if stop is None else {"stop": stop})}
    fast, traced = ScriptedChatModel(script), ScriptedChatModel(script)
    fast_step, traced_step = fast.bind(**kwargs), traced.bind(**kwargs)
    assert isinstance(fast_step._direct, RecordedCall)
    for _ in script:
        assert fast_step.invoke(prompt) == traced_step.invoke(prompt, TRACED)
    assert fast.requests == traced.requests
    # every request owns its lists and dicts: none is the binding's, none is shared
    for request in fast.requests:
        assert request.tools is not kwargs.get("tools")
        assert request.stop is not stop or stop is None
    assert len({id(r.kwargs) for r in fast.requests}) == len(fast.requests)
    assert len({id(r.tools) for r in fast.requests}) == len(fast.requests)


def test_the_async_recorded_call_is_the_sync_ones_twin() -> None:
    script = ["Thought: t\nObservation: o", "b"]
    kwargs = {"stop": ["\nObservation"], "tools": [{"name": "a"}], "seed": 1}
    fast, traced = ScriptedChatModel(script), ScriptedChatModel(script)

    async def run() -> list[AIMessage]:
        step = fast.bind(**kwargs)
        return [await step.ainvoke(StringPromptValue("q")) for _ in script]

    replies = asyncio.run(run())
    assert replies == [traced.invoke("q", TRACED, **kwargs) for _ in script]
    assert replies == [AIMessage("Thought: t"), AIMessage("b")]
    assert fast.requests == traced.requests


class OwnRequest(ScriptedChatModel):
    """Records what it was asked with one more keyword."""

    def _request(self, messages: Any, stop: Any, kwargs: Any) -> ChatRequest:
        return super()._request(messages, stop, {**kwargs, "noted": True})


class OwnReply(ScriptedChatModel):
    """Answers every call in capitals."""

    def _recorded_reply(self, messages: Any, stop: Any, kwargs: Any) -> AIMessage:
        return AIMessage(super()._recorded_reply(messages, stop, kwargs).text.upper())


@pytest.mark.parametrize("cls", [OwnRequest, OwnReply])
def test_a_class_with_its_own_request_or_reply_is_called_through_it(
    cls: type[ScriptedChatModel],
) -> None:
    bound, traced = cls(["ab", "cd"]), cls(["ab", "cd"])
    step = bound.bind(stop=["d"], seed=2)
    assert isinstance(step._direct, RecordedCall)
    assert step._direct._recording is None  # the general path, decided once
    for _ in range(2):
        assert step.invoke("q") == traced.invoke("q", TRACED, stop=["d"], seed=2)
    assert bound.requests == traced.requests
    assert bound.requests[0].kwargs == (
        {"seed": 2, "noted": True} if cls is OwnRequest else {"seed": 2}
    )


def test_a_bound_tools_list_changed_in_place_is_seen_by_the_next_call() -> None:
    model = ScriptedChatModel(["a", "b"])
    tools: list[dict[str, Any]] = [{"name": "a"}]
    step = model.bind(tools=tools)
    step.invoke("q")
    tools.append({"name": "b"})
    step.invoke("q")
    assert [r.tool_names for r in model.requests] == [["a"], ["a", "b"]]
