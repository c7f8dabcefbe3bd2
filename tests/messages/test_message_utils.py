"""The message utilities as chain steps, and their properties.

Called without messages, `filter_messages`, `trim_messages` and `merge_message_runs` return a
runnable (as in LangChain); these tests pipe them into a scripted model and assert exactly
what the model was given. The exact results of every option are in the per-function files.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Literal

from hypothesis import given
from hypothesis import strategies as st

from leanchain.language_models import ScriptedChatModel
from leanchain.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    convert_to_openai_messages,
    filter_messages,
    merge_message_runs,
    tool_call,
    trim_messages,
)
from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder
from leanchain.runnables import RunnableLambda

HISTORY: list[BaseMessage] = [
    SystemMessage("Be brief.", id="s"),
    HumanMessage("Hi, I'm Ann.", id="h1", name="ann"),
    AIMessage("Hello Ann!", id="a1"),
    HumanMessage("What's 2 + 2?", id="h2", name="ann"),
    AIMessage("", id="a2", tool_calls=[tool_call(name="add", args={"a": 2, "b": 2}, id="c1")]),
    ToolMessage("4", tool_call_id="c1", id="t1"),
    AIMessage("4.", id="a3"),
    HumanMessage("And 3 + 3?", id="h3", name="ann"),
]


def test_trim_then_model() -> None:
    model = ScriptedChatModel(["6."])
    chain = (
        trim_messages(max_tokens=4, token_counter=len, include_system=True, start_on="human")
        | model
    )
    assert chain.invoke(HISTORY) == AIMessage("6.")
    assert model.requests[0].messages == [HISTORY[0], HISTORY[7]]


def test_filter_then_model() -> None:
    model = ScriptedChatModel(["ok"])
    chain = filter_messages(include_types=["system", "human"], exclude_ids=["h1"]) | model
    chain.invoke(HISTORY)
    assert model.requests[0].messages == [HISTORY[0], HISTORY[3], HISTORY[7]]


def test_merge_then_model() -> None:
    model = ScriptedChatModel(["ok"])
    chain = merge_message_runs(chunk_separator=" ") | model
    chain.invoke([HumanMessage("Hi."), HumanMessage("Still there?"), AIMessage("Yes.")])
    assert model.requests[0].messages == [HumanMessage("Hi. Still there?"), AIMessage("Yes.")]


def test_prompt_filter_trim_merge_model() -> None:
    """A prompt value flows through all three steps into the model."""
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Be brief."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    model = ScriptedChatModel(["Paris."])
    chain = (
        prompt
        | filter_messages(exclude_tool_calls=True)
        | trim_messages(max_tokens=3, token_counter=len, include_system=True)
        | merge_message_runs()
        | model
    )
    history = [HumanMessage("I'm going to France."), AIMessage("Nice!"), HumanMessage("Paris?")]
    assert chain.invoke({"history": history, "question": "Its capital?"}) == AIMessage("Paris.")
    assert model.requests[0].messages == [
        SystemMessage("Be brief."),
        HumanMessage("Paris?\nIts capital?"),
    ]


async def test_async_batch_and_stream() -> None:
    model = ScriptedChatModel(["a", "b", "c b"])
    chain = trim_messages(max_tokens=1, token_counter=len) | model
    assert await chain.ainvoke(HISTORY) == AIMessage("a")
    assert chain.batch([HISTORY[:2]]) == [AIMessage("b")]
    assert [chunk.content async for chunk in chain.astream(HISTORY)] == ["c", " ", "b"]
    assert [request.messages for request in model.requests] == [
        [HISTORY[7]],
        [HISTORY[1]],
        [HISTORY[7]],
    ]
    merged = await merge_message_runs().ainvoke([HumanMessage("x"), HumanMessage("y")])
    assert merged == [HumanMessage("x\ny")]
    assert await filter_messages(include_ids=["t1"]).ainvoke(HISTORY) == [HISTORY[5]]


def test_runnables_are_named_lambdas() -> None:
    trim = trim_messages(max_tokens=1, token_counter=len)
    assert isinstance(trim, RunnableLambda)
    assert [trim.get_name(), filter_messages().get_name(), merge_message_runs().get_name()] == [
        "trim_messages",
        "filter_messages",
        "merge_message_runs",
    ]


def test_a_shared_trim_runnable_counts_each_call_afresh() -> None:
    counted: list[str] = []
    lock = threading.Lock()

    def count(message: BaseMessage) -> int:
        with lock:
            counted.append(message.text)
        return 1

    trim = trim_messages(max_tokens=1, token_counter=count)
    assert trim.batch([[HumanMessage("a")], [HumanMessage("a"), HumanMessage("b")]]) == [
        [HumanMessage("a")],
        [HumanMessage("b")],
    ]
    assert sorted(counted) == ["a", "a", "b"]


# -- properties ------------------------------------------------------------------------------

KINDS = ("system", "human", "ai", "tool")
texts = st.text(alphabet="ab \n", max_size=12)
conversations = st.lists(st.tuples(st.sampled_from(KINDS), texts), max_size=12)


def build(kind: str, text: str, position: int) -> BaseMessage:
    if kind == "system":
        return SystemMessage(text, id=f"m{position}")
    if kind == "human":
        return HumanMessage(text, id=f"m{position}", name="ann" if position % 2 else None)
    if kind == "ai":
        return AIMessage(text, id=f"m{position}")
    return ToolMessage(text, tool_call_id=f"c{position}", id=f"m{position}")


def conversation(spec: list[tuple[str, str]]) -> list[BaseMessage]:
    return [build(kind, text, position) for position, (kind, text) in enumerate(spec)]


def tokens(message: BaseMessage) -> int:
    return 1 + len(message.text)


@given(
    conversations,
    st.integers(min_value=0, max_value=40),
    st.sampled_from(["first", "last"]),
    st.booleans(),
    st.sampled_from([None, "human", ("human", "tool")]),
    st.sampled_from([None, "human", "ai"]),
    st.booleans(),
)
def test_trim_stays_within_the_budget(
    spec: list[tuple[str, str]],
    max_tokens: int,
    strategy: Literal["first", "last"],
    allow_partial: bool,
    end_on: Any,
    start_on: Any,
    include_system: bool,
) -> None:
    messages = conversation(spec)
    last = strategy == "last"
    kept = trim_messages(
        messages,
        max_tokens=max_tokens,
        token_counter=tokens,
        strategy=strategy,
        allow_partial=allow_partial,
        end_on=end_on,
        start_on=start_on if last else None,
        include_system=include_system and last,
    )
    total = sum(tokens(m) for m in kept)
    system_over_budget = (
        include_system
        and last
        and bool(kept)
        and kept[0] is messages[0]
        and isinstance(messages[0], SystemMessage)
        and tokens(messages[0]) > max_tokens
    )
    # The one documented exception (LangChain's): a kept system prompt alone over budget.
    assert total <= max_tokens or (system_over_budget and kept == [messages[0]])


@given(conversations, st.integers(min_value=0, max_value=40), st.sampled_from(["first", "last"]))
def test_trim_keeps_the_longest_start_or_end_that_fits(
    spec: list[tuple[str, str]], max_tokens: int, strategy: Literal["first", "last"]
) -> None:
    messages = conversation(spec)
    kept = trim_messages(messages, max_tokens=max_tokens, token_counter=tokens, strategy=strategy)
    size = 0
    while size < len(messages):
        window = (
            messages[: size + 1] if strategy == "first" else messages[len(messages) - size - 1 :]
        )
        if sum(tokens(m) for m in window) > max_tokens:
            break
        size += 1
    expected = messages[:size] if strategy == "first" else messages[len(messages) - size :]
    assert kept == expected
    # Per-message and list counters agree.
    assert kept == trim_messages(
        messages,
        max_tokens=max_tokens,
        token_counter=lambda ms: sum(tokens(m) for m in ms),
        strategy=strategy,
    )


selections = st.sampled_from(
    [
        {"types": ["human"]},
        {"types": ["ai", "tool"]},
        {"types": [SystemMessage, AIMessage]},
        {"names": ["ann"]},
        {"ids": ["m0", "m3", "m7"]},
    ]
)


@given(conversations, selections)
def test_filter_include_and_exclude_partition(
    spec: list[tuple[str, str]], selection: dict[str, Any]
) -> None:
    messages = conversation(spec)
    ((option, values),) = selection.items()
    included = filter_messages(messages, **{f"include_{option}": values})
    excluded = filter_messages(messages, **{f"exclude_{option}": values})
    inside = {id(m) for m in included}
    outside = {id(m) for m in excluded}
    assert not inside & outside
    assert inside | outside == {id(m) for m in messages}
    assert included == [m for m in messages if id(m) in inside]  # order kept
    assert excluded == [m for m in messages if id(m) in outside]


@given(conversations, st.sampled_from(["\n", "", " | "]))
def test_merge_keeps_the_text_of_each_run(spec: list[tuple[str, str]], separator: str) -> None:
    expected: list[tuple[str, str]] = []
    previous = None
    for kind, text in spec:
        if kind == previous and kind != "tool":
            joined = expected[-1][1]
            expected[-1] = (kind, joined + separator + text if joined and text else joined + text)
        else:
            expected.append((kind, text))
        previous = kind
    merged = merge_message_runs(conversation(spec), chunk_separator=separator)
    assert [(m.type, m.content) for m in merged] == expected


@given(conversations, st.booleans())
def test_openai_messages_read_back(spec: list[tuple[str, str]], with_calls: bool) -> None:
    messages = [m.model_copy(update={"id": None}) for m in conversation(spec)]
    if with_calls:
        call = tool_call(name="add", args={"a": [1, "ü"]}, id="c9")
        messages.append(AIMessage("", tool_calls=[call]))
    wire = convert_to_openai_messages(messages)
    assert json.loads(json.dumps(wire)) == wire  # plain JSON data
    assert convert_to_messages(wire) == messages
