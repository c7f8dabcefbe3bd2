"""`format_prompt_reusing` over random runs: whatever changes between two calls (a value,
a value over a partial, the scratchpad's type, a missing variable, the prompt's own parts),
every call gives what a fresh ``format_prompt`` gives, or raises the same error. So does
every call of several runs of one prompt (what it keeps for every run, `ReusePlan`),
whatever is edited in the prompt between them."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.messages import AIMessage, HumanMessage
from leanchain.prompts import (
    BasePromptTemplate,
    BaseStringMessagePromptTemplate,
    ChatPromptTemplate,
    ChatPromptValue,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
)
from outcome_support import outcome

Prompt = Callable[[], BasePromptTemplate]

PROMPTS: dict[str, Prompt] = {
    # ReAct's shape: the scratchpad ends a text template whose tools are partials.
    "text": lambda: PromptTemplate.from_template(
        "Tools: {tools} ({tool_names})\nQuestion: {input}\nThought:{agent_scratchpad}"
    ).partial(tools="echo", tool_names="echo"),
    # XML's shape: a partial with a default, and literal text after the scratchpad.
    "text-tail": lambda: PromptTemplate(
        "{tools}\n{chat_history}\nQuestion: {input}\n{agent_scratchpad} (go on)",
        partial_variables={"chat_history": ""},
    ).partial(tools="echo"),
    # The tool-calling shape: a messages placeholder last.
    "placeholder": lambda: ChatPromptTemplate.from_messages(
        [
            ("system", "You are {persona}."),
            MessagesPlaceholder("chat_history", optional=True),
            ("human", "{input}"),
            MessagesPlaceholder("agent_scratchpad"),
        ]
    ).partial(persona="terse"),
    "optional-placeholder": lambda: ChatPromptTemplate.from_messages(
        [("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
    ),
    # Structured chat's shape: the last human turn holds the input and the scratchpad.
    "last-turn": lambda: ChatPromptTemplate.from_messages(
        [
            ("system", "Tools: {tools} ({tool_names})"),
            MessagesPlaceholder("chat_history", optional=True),
            ("human", "{input}\n\n{agent_scratchpad}\n(reply in JSON)"),
        ]
    ).partial(tools="echo", tool_names="echo"),
    # The same with the scratchpad in a last AI or system turn (built by another class).
    "last-ai-turn": lambda: ChatPromptTemplate.from_messages(
        [("system", "Tools: {tools}"), ("ai", "{input}: {agent_scratchpad}.")]
    ).partial(tools="echo"),
    "last-system-turn": lambda: ChatPromptTemplate.from_messages(
        [("human", "{input}"), ("system", "Steps so far:{agent_scratchpad}")]
    ),
    # A last turn that cannot be split: the scratchpad twice.
    "last-turn-twice": lambda: ChatPromptTemplate.from_messages(
        [("system", "{tools}"), ("human", "{agent_scratchpad} {input} {agent_scratchpad}")]
    ).partial(tools="echo"),
}

CHANGES = [
    "same",
    "new-input",
    "input-int",
    "drop-input",
    "override-partial",
    "drop-override",
    "pad-str",
    "pad-list",
    "pad-int",
    "pad-missing",
    "grow-history",
    "new-history",
    "history-tuples",
    "retemplate",
    "kwargs-on-last",
    "new-partials",
    "append-turn",
]


def _change(prompt: Any, values: dict[str, Any], change: str, n: int) -> None:
    """Apply one change to the run's values or, for the last few, to the prompt itself."""
    if change == "new-input":
        values["input"] = f"input {n}"
    elif change == "input-int":
        values["input"] = n
    elif change == "drop-input":
        values.pop("input", None)
    elif change == "override-partial":
        values["tools"] = f"own tools {n}"
    elif change == "drop-override":
        values.pop("tools", None)
    elif change == "grow-history":
        values.setdefault("chat_history", []).append(HumanMessage(content=f"h{n}"))
    elif change == "new-history":
        values["chat_history"] = [AIMessage(content=f"h{n}")]
    elif change == "history-tuples":
        values["chat_history"] = [("human", f"h{n}")]
    elif change == "retemplate" and isinstance(prompt, PromptTemplate):
        prompt.template = prompt.template.replace("Question", f"Q{n}")
    elif change == "retemplate" and isinstance(prompt, ChatPromptTemplate):
        last = prompt.messages[-1]
        if isinstance(last, HumanMessagePromptTemplate):
            template = last.prompt.template.replace("reply", f"reply {n}")
            last.prompt.template = template  # type: ignore[union-attr]
    elif change == "kwargs-on-last" and isinstance(prompt, ChatPromptTemplate):
        last = prompt.messages[-1]
        if isinstance(last, HumanMessagePromptTemplate):
            last.additional_kwargs[f"k{n}"] = n
    elif change == "append-turn" and isinstance(prompt, ChatPromptTemplate):
        prompt.append(("ai", f"noted {n}"))  # (`append` is the prompt's one in-place change)
    elif change == "new-partials":
        prompt._partials = {**prompt._partials, "tools": f"tools {n}"}


def _pad(prompt: BasePromptTemplate, change: str, n: int) -> Any:
    chat = isinstance(prompt, ChatPromptTemplate) and isinstance(
        prompt.messages[-1], MessagesPlaceholder
    )
    if change == "pad-list" or (chat and change != "pad-str"):
        return [AIMessage(content=f"step {i}") for i in range(n)]
    if change == "pad-int":
        return n
    return " step" * n


def _seen(value: Any) -> tuple[Any, ...]:
    """The value with its type and, for messages, each one's class, fields and fields set
    (what ``==`` does not compare)."""
    messages = value.messages if isinstance(value, ChatPromptValue) else []
    built = [(type(m), m.model_dump(), m.model_fields_set) for m in messages]
    return (type(value), value, built)


def _outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    return outcome(lambda: _seen(call()))


@pytest.mark.parametrize("name", sorted(PROMPTS))
@settings(max_examples=200, deadline=None)
@given(
    calls=st.lists(st.tuples(st.sampled_from(CHANGES), st.integers(0, 4)), min_size=1, max_size=12),
)
def test_every_call_of_a_run_equals_a_fresh_format(name: str, calls: list[tuple[str, int]]) -> None:
    _run_equals_fresh_formats(PROMPTS[name](), calls)


def _run_equals_fresh_formats(prompt: BasePromptTemplate, calls: list[tuple[str, int]]) -> None:
    """One run (its own memo) of `calls`: each change made, then the call compared."""
    memo: dict[Any, Any] = {}
    values: dict[str, Any] = {"input": "q"}
    for change, n in calls:
        _change(prompt, values, change, n)
        now = dict(values)
        if change != "pad-missing":
            now["agent_scratchpad"] = _pad(prompt, change, n)
        reused = _outcome(partial(prompt.format_prompt_reusing, now, memo, "agent_scratchpad"))
        fresh = _outcome(partial(prompt.format_prompt, **now))
        assert reused == fresh


EDITS = [
    "none",
    "prepare",
    "retemplate-head",
    "kwargs-on-head",
    "replace-head",
    "retemplate",
    "kwargs-on-last",
    "new-partials",
    "append-turn",
]


def _edit(prompt: Any, edit: str, n: int) -> None:
    """Edit the prompt between two runs: its first part, or what `_change` edits."""
    first = prompt.messages[0] if isinstance(prompt, ChatPromptTemplate) else None
    if edit == "prepare":
        prompt.prepare_reuse("agent_scratchpad")
    elif edit in ("retemplate-head", "kwargs-on-head", "replace-head"):
        # (Each keeps the variables read: the prompt's lists of them are not recomputed.)
        if isinstance(first, BaseStringMessagePromptTemplate) and isinstance(
            first.prompt, PromptTemplate
        ):
            text = f"({n}) {first.prompt.template}"
            if edit == "retemplate-head":
                first.prompt.template = text
            elif edit == "kwargs-on-head":
                first.additional_kwargs[f"k{n}"] = n
            else:
                prompt.messages[0] = type(first).from_template(text)
    else:
        _change(prompt, {}, edit, n)


@pytest.mark.parametrize("name", sorted(PROMPTS))
@settings(max_examples=150, deadline=None)
@given(
    runs=st.lists(
        st.tuples(
            st.sampled_from(EDITS),
            st.integers(0, 4),
            st.lists(
                st.tuples(st.sampled_from(CHANGES), st.integers(0, 4)), min_size=1, max_size=5
            ),
        ),
        min_size=1,
        max_size=5,
    ),
)
def test_every_call_of_every_run_equals_a_fresh_format(
    name: str, runs: list[tuple[str, int, list[tuple[str, int]]]]
) -> None:
    prompt = PROMPTS[name]()
    for edit, n, calls in runs:
        _edit(prompt, edit, n)
        _run_equals_fresh_formats(prompt, calls)


def test_a_subclass_that_formats_otherwise_is_formatted_every_time() -> None:
    class Stamped(PromptTemplate):
        count = 0

        def _text(self, values: Any) -> str:
            Stamped.count += 1
            return f"#{Stamped.count} " + super()._text(values)

    class Counted(ChatPromptTemplate):
        count = 0

        def _format_prompt(self, values: Any) -> Any:
            Counted.count += 1
            return super()._format_prompt(values)

    text = Stamped("Q: {input}\n{agent_scratchpad}")
    chat = Counted([("human", "{input}"), MessagesPlaceholder("agent_scratchpad")])
    text_memo: dict[Any, Any] = {}
    chat_memo: dict[Any, Any] = {}
    for pad in ("", " a", " a b"):
        value = text.format_prompt_reusing(
            {"input": "q", "agent_scratchpad": pad}, text_memo, "agent_scratchpad"
        )
        assert value.to_string() == f"#{Stamped.count} Q: q\n{pad}"
        chat.format_prompt_reusing(
            {"input": "q", "agent_scratchpad": []}, chat_memo, "agent_scratchpad"
        )
    assert Stamped.count == 3
    assert Counted.count == 3
