"""`format_prompt_reusing`: the part before the varying variable is kept in the caller's memo
and reused only while what it reads is the same; the result always equals a fresh format."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.errors import MissingPromptVariablesError
from leanchain.messages import AIMessage, HumanMessage, SystemMessage
from leanchain.prompts import (
    ChatPromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
    SystemMessagePromptTemplate,
)
from outcome_support import count_calls

CHAT = ChatPromptTemplate.from_messages(
    [
        ("system", "You are {persona}."),
        MessagesPlaceholder("chat_history", optional=True),
        ("human", "{input}"),
        MessagesPlaceholder("agent_scratchpad"),
    ]
)
TEXT = PromptTemplate.from_template("Tools: {tools}\nQuestion: {input}\nThought:{agent_scratchpad}")


def _scratch(n: int) -> list[Any]:
    return [AIMessage(content=f"step {i}") for i in range(n)]


def test_chat_head_is_formatted_once_while_its_values_are_the_same() -> None:
    memo: dict[Any, Any] = {}
    values = {"persona": "terse", "input": "q"}
    first = CHAT.format_prompt_reusing(
        {**values, "agent_scratchpad": _scratch(1)}, memo, "agent_scratchpad"
    )
    second = CHAT.format_prompt_reusing(
        {**values, "agent_scratchpad": _scratch(2)}, memo, "agent_scratchpad"
    )
    assert second.messages == [
        SystemMessage(content="You are terse."),
        HumanMessage(content="q"),
        AIMessage(content="step 0"),
        AIMessage(content="step 1"),
    ]
    assert second.messages[0] is first.messages[0]  # kept, not built again
    assert second.messages[1] is first.messages[1]
    assert first.messages is not second.messages


def test_chat_head_is_formatted_again_when_a_value_it_reads_changes() -> None:
    memo: dict[Any, Any] = {}
    CHAT.format_prompt_reusing(
        {"persona": "terse", "input": "q", "agent_scratchpad": []}, memo, "agent_scratchpad"
    )
    again = CHAT.format_prompt_reusing(
        {"persona": "kind", "input": "q", "agent_scratchpad": []}, memo, "agent_scratchpad"
    )
    assert again.messages == [SystemMessage(content="You are kind."), HumanMessage(content="q")]


def test_a_history_list_changed_in_place_is_read_again() -> None:
    memo: dict[Any, Any] = {}
    history: list[Any] = [HumanMessage(content="hi")]
    values = {"persona": "p", "input": "q", "chat_history": history, "agent_scratchpad": []}
    CHAT.format_prompt_reusing(values, memo, "agent_scratchpad")
    history.append(AIMessage(content="hello"))
    again = CHAT.format_prompt_reusing(values, memo, "agent_scratchpad")
    assert [m.content for m in again.messages] == ["You are p.", "hi", "hello", "q"]


@pytest.mark.parametrize("given", [True, False])
def test_an_empty_history_filled_in_place_is_read_again(given: bool) -> None:
    # Read empty (given as [], or the optional placeholder's own [] partial), then filled.
    prompt = ChatPromptTemplate.from_messages(list(CHAT.messages))
    history: list[Any] = [] if given else prompt._partials["chat_history"]
    values = {"persona": "p", "input": "q", "agent_scratchpad": []}
    if given:
        values["chat_history"] = history
    memo: dict[Any, Any] = {}
    first = prompt.format_prompt_reusing(values, memo, "agent_scratchpad")
    assert [m.content for m in first.messages] == ["You are p.", "q"]
    history.append(HumanMessage(content="hi"))
    again = prompt.format_prompt_reusing(values, memo, "agent_scratchpad")
    assert again == prompt.format_prompt(**values)
    assert [m.content for m in again.messages] == ["You are p.", "hi", "q"]


def test_a_history_of_tuples_or_a_dict_value_is_never_kept() -> None:
    memo: dict[Any, Any] = {}
    values = {
        "persona": "p",
        "input": "q",
        "chat_history": [("human", "hi")],
        "agent_scratchpad": [],
    }
    CHAT.format_prompt_reusing(values, memo, "agent_scratchpad")
    assert memo == {}
    CHAT.format_prompt_reusing(
        {**values, "chat_history": [], "persona": {"a": 1}}, memo, "agent_scratchpad"
    )
    assert memo == {}


def test_a_callable_partial_is_called_on_every_format() -> None:
    calls: list[int] = []

    def persona() -> str:
        calls.append(1)
        return f"call {len(calls)}"

    prompt = CHAT.partial(persona=persona)
    memo: dict[Any, Any] = {}
    out = [
        prompt.format_prompt_reusing(
            {"input": "q", "agent_scratchpad": []}, memo, "agent_scratchpad"
        )
        for _ in range(3)
    ]
    assert [o.messages[0].content for o in out] == [
        "You are call 1.",
        "You are call 2.",
        "You are call 3.",
    ]
    assert memo == {}


def test_a_template_subclass_is_formatted_every_time() -> None:
    class Stamped(HumanMessagePromptTemplate):
        count = 0

        def _format_into(self, values: Any, out: list[Any]) -> None:
            Stamped.count += 1
            out.append(HumanMessage(content=f"#{Stamped.count}"))

    prompt = ChatPromptTemplate(
        [Stamped.from_template("x"), MessagesPlaceholder("agent_scratchpad")]
    )
    memo: dict[Any, Any] = {}
    texts = [
        prompt.format_prompt_reusing({"agent_scratchpad": []}, memo, "agent_scratchpad")
        .messages[0]
        .content
        for _ in range(2)
    ]
    assert texts == ["#1", "#2"]


def test_a_prompt_whose_last_part_is_not_the_varying_variable_formats_anew() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [MessagesPlaceholder("agent_scratchpad"), ("human", "{input}")]
    )
    memo: dict[Any, Any] = {}
    value = prompt.format_prompt_reusing(
        {"input": "q", "agent_scratchpad": _scratch(1)}, memo, "agent_scratchpad"
    )
    assert value.messages == [AIMessage(content="step 0"), HumanMessage(content="q")]
    assert memo == {}


def test_a_missing_variable_raises_as_format_prompt_does() -> None:
    with pytest.raises(MissingPromptVariablesError) as reused:
        CHAT.format_prompt_reusing({"agent_scratchpad": []}, {}, "agent_scratchpad")
    with pytest.raises(MissingPromptVariablesError) as fresh:
        CHAT.format_prompt(agent_scratchpad=[])
    assert str(reused.value) == str(fresh.value)
    with pytest.raises(MissingPromptVariablesError) as text_reused:
        TEXT.format_prompt_reusing({"agent_scratchpad": ""}, {}, "agent_scratchpad")
    with pytest.raises(MissingPromptVariablesError) as text_fresh:
        TEXT.format_prompt(agent_scratchpad="")
    assert str(text_reused.value) == str(text_fresh.value)


def test_text_head_is_kept_and_the_scratchpad_appended() -> None:
    memo: dict[Any, Any] = {}
    values = {"tools": "echo", "input": "q"}
    TEXT.format_prompt_reusing({**values, "agent_scratchpad": ""}, memo, "agent_scratchpad")
    assert len(memo) == 1
    again = TEXT.format_prompt_reusing(
        {**values, "agent_scratchpad": " a\nb"}, memo, "agent_scratchpad"
    )
    assert again.text == "Tools: echo\nQuestion: q\nThought: a\nb"


def test_text_scratchpad_in_the_middle_or_twice_formats_anew() -> None:
    middle = PromptTemplate.from_template("{agent_scratchpad} then {input}")
    twice = PromptTemplate.from_template("{agent_scratchpad}{input}{agent_scratchpad}")
    for prompt in (middle, twice):
        memo: dict[Any, Any] = {}
        for pad in ("x", "y"):
            value = prompt.format_prompt_reusing(
                {"input": "q", "agent_scratchpad": pad}, memo, "agent_scratchpad"
            )
            assert value == prompt.format_prompt(input="q", agent_scratchpad=pad)


_texts = st.sampled_from(["a", "b", "{c}", ""])


@settings(max_examples=150, deadline=None)
@given(
    calls=st.lists(
        st.tuples(
            st.sampled_from(["same", "new-persona", "new-input", "grow-history", "new-history"]),
            st.integers(0, 4),
            _texts,
        ),
        min_size=1,
        max_size=8,
    )
)
def test_reusing_always_equals_a_fresh_format(calls: list[tuple[str, int, str]]) -> None:
    chat_memo: dict[Any, Any] = {}
    text_memo: dict[Any, Any] = {}
    values: dict[str, Any] = {"persona": "p", "input": "q", "tools": "t", "chat_history": []}
    for change, steps, text in calls:
        if change == "new-persona":
            values["persona"] = "persona " + text
        elif change == "new-input":
            values["input"] = "input " + text
        elif change == "grow-history":
            values["chat_history"].append(HumanMessage(content=text))  # the same list, changed
        elif change == "new-history":
            values["chat_history"] = [AIMessage(content=text)]
        chat = {**values, "agent_scratchpad": _scratch(steps)}
        assert CHAT.format_prompt_reusing(
            chat, chat_memo, "agent_scratchpad"
        ) == CHAT.format_prompt(**chat)
        plain = {
            "tools": values["tools"],
            "input": values["input"],
            "agent_scratchpad": text * steps,
        }
        assert TEXT.format_prompt_reusing(
            plain, text_memo, "agent_scratchpad"
        ) == TEXT.format_prompt(**plain)


def test_a_last_human_turn_that_holds_the_scratchpad_keeps_the_messages_before_it() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Tools: {tools}"), ("human", "{input}\n\n{agent_scratchpad}\n(reply in JSON)")]
    )
    memo: dict[Any, Any] = {}
    first = prompt.format_prompt_reusing(
        {"tools": "echo", "input": "q", "agent_scratchpad": ""}, memo, "agent_scratchpad"
    )
    again = prompt.format_prompt_reusing(
        {"tools": "echo", "input": "q", "agent_scratchpad": "step"}, memo, "agent_scratchpad"
    )
    assert again.messages == [
        SystemMessage(content="Tools: echo"),
        HumanMessage(content="q\n\nstep\n(reply in JSON)"),
    ]
    assert again.messages[0] is first.messages[0]


def test_a_head_that_reads_the_varying_variable_too_is_never_kept() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "So far: {agent_scratchpad}"), ("human", "{input} {agent_scratchpad}")]
    )
    memo: dict[Any, Any] = {}
    for pad in ("a", "b"):
        value = prompt.format_prompt_reusing(
            {"input": "q", "agent_scratchpad": pad}, memo, "agent_scratchpad"
        )
        assert value == prompt.format_prompt(input="q", agent_scratchpad=pad)
    assert memo == {}


class _Shouting(str):
    """A text that formats otherwise than it concatenates (a str subclass's own format)."""

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        return self.upper()


@pytest.mark.parametrize("pad", ["", "step", _Shouting("step"), 3])
def test_the_first_format_builds_the_last_turn_as_a_fresh_format_does(pad: Any) -> None:
    # The first call builds a splittable last turn from the text before the scratchpad, as
    # a reuse does, for an exact `str` only: anything else is formatted by the template.
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Tools: {tools}"), ("human", "{input}\n\n{agent_scratchpad}\n(reply in JSON)")]
    )
    values = {"tools": "echo", "input": "q", "agent_scratchpad": pad}
    first = prompt.format_prompt_reusing(values, {}, "agent_scratchpad")
    fresh = prompt.format_prompt(**values)
    assert first == fresh
    assert [(type(m), m.model_dump(), m.model_fields_set) for m in first.messages] == [
        (type(m), m.model_dump(), m.model_fields_set) for m in fresh.messages
    ]
    assert first.messages[-1].content == f"q\n\n{format(pad)}\n(reply in JSON)"


def _agent_shape() -> ChatPromptTemplate:
    """Structured chat's shape: fixed tools text, an optional history, the last human turn."""
    return ChatPromptTemplate.from_messages(
        [
            ("system", "Tools: {tools}"),
            MessagesPlaceholder("chat_history", optional=True),
            ("human", "{input}\n\n{agent_scratchpad}"),
        ]
    ).partial(tools="echo")


def test_a_part_that_reads_only_partial_values_is_formatted_once_for_every_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = count_calls(monkeypatch, SystemMessagePromptTemplate, "_format_into")
    prompt = _agent_shape()
    runs = []
    for question in ("a", "b", "c"):
        memo: dict[Any, Any] = {}  # a run's memo
        for pad in ("", "step"):
            values = {"input": question, "agent_scratchpad": pad}
            value = prompt.format_prompt_reusing(values, memo, "agent_scratchpad")
            assert value == prompt.format_prompt(**values)
            runs.append(value.messages)
    assert len(calls) == 1 + 6  # once for every run, then once by each fresh format_prompt
    assert all(messages[0] is runs[0][0] for messages in runs)
    assert [m.content for m in runs[-1]] == ["Tools: echo", "c\n\nstep"]


def test_prepare_reuse_formats_the_fixed_parts_before_the_first_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = count_calls(monkeypatch, SystemMessagePromptTemplate, "_format_into")
    prompt = _agent_shape()
    prompt.prepare_reuse("agent_scratchpad")
    assert len(calls) == 1
    for question in ("a", "b"):
        value = prompt.format_prompt_reusing(
            {"input": question, "agent_scratchpad": ""}, {}, "agent_scratchpad"
        )
        assert [m.content for m in value.messages] == ["Tools: echo", f"{question}\n\n"]
    assert len(calls) == 1


def test_a_value_given_over_a_partial_one_formats_its_part_for_that_run_only() -> None:
    prompt = _agent_shape()
    shared = prompt.format_prompt_reusing(
        {"input": "q", "agent_scratchpad": ""}, {}, "agent_scratchpad"
    ).messages[0]
    own = prompt.format_prompt_reusing(
        {"input": "q", "tools": "search", "agent_scratchpad": ""}, {}, "agent_scratchpad"
    ).messages[0]
    again = prompt.format_prompt_reusing(
        {"input": "q", "agent_scratchpad": ""}, {}, "agent_scratchpad"
    ).messages[0]
    assert (shared.content, own.content, again.content) == (
        "Tools: echo",
        "Tools: search",
        "Tools: echo",
    )
    assert again is shared


def test_a_prompt_part_edited_between_runs_is_formatted_anew() -> None:
    # Outside a prompt's contract (it is immutable but for `append`), and still seen.
    prompt = _agent_shape()
    values = {"input": "q", "agent_scratchpad": ""}
    prompt.format_prompt_reusing(values, {}, "agent_scratchpad")
    prompt.messages[0].prompt.template = "Tools now: {tools}"
    edited = prompt.format_prompt_reusing(values, {}, "agent_scratchpad")
    prompt.messages[0].additional_kwargs["name"] = "tools"
    with_kwargs = prompt.format_prompt_reusing(values, {}, "agent_scratchpad")
    prompt.messages[0] = SystemMessage(content="No tools.")
    replaced = prompt.format_prompt_reusing(values, {}, "agent_scratchpad")
    assert edited.messages[0] == SystemMessage(content="Tools now: echo")
    assert with_kwargs.messages[0] == SystemMessage(
        content="Tools now: echo", additional_kwargs={"name": "tools"}
    )
    assert replaced.messages[0] == SystemMessage(content="No tools.")
    assert replaced == prompt.format_prompt(**values)


def test_a_history_given_is_formatted_and_the_fixed_turn_still_shared() -> None:
    prompt = _agent_shape()
    history = [HumanMessage(content="hi"), AIMessage(content="hello")]
    plain = prompt.format_prompt_reusing(
        {"input": "q", "agent_scratchpad": ""}, {}, "agent_scratchpad"
    )
    values = {"input": "q", "chat_history": history, "agent_scratchpad": ""}
    chatting = prompt.format_prompt_reusing(values, {}, "agent_scratchpad")
    assert chatting == prompt.format_prompt(**values)
    assert [m.content for m in chatting.messages] == ["Tools: echo", "hi", "hello", "q\n\n"]
    assert chatting.messages[0] is plain.messages[0]


def test_a_fixed_part_that_cannot_format_fails_on_each_format_not_when_planned() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Rate {rate:.2f}"), ("human", "{input}{agent_scratchpad}")]
    ).partial(rate="high")
    prompt.prepare_reuse("agent_scratchpad")  # as an agent does when it is built
    with pytest.raises(ValueError) as reused:
        prompt.format_prompt_reusing({"input": "q", "agent_scratchpad": ""}, {}, "agent_scratchpad")
    with pytest.raises(ValueError) as fresh:
        prompt.format_prompt(input="q", agent_scratchpad="")
    assert str(reused.value) == str(fresh.value)
    given = prompt.format_prompt_reusing(
        {"input": "q", "rate": 0.5, "agent_scratchpad": ""}, {}, "agent_scratchpad"
    )
    assert [m.content for m in given.messages] == ["Rate 0.50", "q"]
