"""RunnableWithMessageHistory, as LangChain documents it: models, chains and an AgentExecutor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import leanchain
from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.chat_history import (
    InMemoryChatMessageHistory,
    RunnableWithMessageHistory,
    SQLiteChatMessageHistory,
)
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder
from leanchain.runnables import ConfigurableFieldSpec, RunnableConfig, RunnableLambda
from leanchain.tools import tool


def _session(sid: str) -> RunnableConfig:
    return {"configurable": {"session_id": sid}}


class Store:
    def __init__(self) -> None:
        self.sessions: dict[str, InMemoryChatMessageHistory] = {}

    def __call__(self, session_id: str) -> InMemoryChatMessageHistory:
        return self.sessions.setdefault(session_id, InMemoryChatMessageHistory())


def _texts(messages: list[BaseMessage]) -> list[tuple[str, str]]:
    return [(m.type, m.text) for m in messages]


def test_a_chat_model_sees_the_history_before_the_new_message() -> None:
    store = Store()
    model = ScriptedChatModel(["a1", "a2"])
    chat = RunnableWithMessageHistory(model, store)
    assert chat.invoke("hi", _session("s")).text == "a1"
    assert chat.invoke([HumanMessage("again")], _session("s")).text == "a2"
    assert _texts(model.requests[1].messages) == [("human", "hi"), ("ai", "a1"), ("human", "again")]
    assert _texts(store.sessions["s"].messages) == [
        ("human", "hi"),
        ("ai", "a1"),
        ("human", "again"),
        ("ai", "a2"),
    ]


def test_missing_session_is_langchain_s_error() -> None:
    chat = RunnableWithMessageHistory(ScriptedChatModel(["x"]), Store())
    with pytest.raises(ValueError) as caught:
        chat.invoke("hi")
    assert str(caught.value) == (
        "Missing keys ['session_id'] in config['configurable'] Expected keys are "
        "['session_id'].When using via .invoke() or .stream(), pass in a config; e.g., "
        "chain.invoke({None: 'foo'}, {'configurable': {'session_id': '[your-value-here]'}})"
    )


def test_a_prompt_chain_gets_the_history_under_its_key() -> None:
    store = Store()
    model = ScriptedChatModel(["a1", "a2"])
    prompt = ChatPromptTemplate.from_messages(
        [("system", "sys"), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    chat = RunnableWithMessageHistory(
        prompt | model, store, input_messages_key="question", history_messages_key="history"
    )
    chat.invoke({"question": "q1"}, _session("t"))
    chat.invoke({"question": "q2"}, _session("t"))
    assert _texts(model.requests[1].messages) == [
        ("system", "sys"),
        ("human", "q1"),
        ("ai", "a1"),
        ("human", "q2"),
    ]
    assert _texts(store.sessions["t"].messages) == [
        ("human", "q1"),
        ("ai", "a1"),
        ("human", "q2"),
        ("ai", "a2"),
    ]
    with pytest.raises(ValueError, match=r"chain.invoke\(\{'question': 'foo'\}"):
        chat.invoke({"question": "q"})


def test_input_key_without_history_key_puts_the_history_before_the_input() -> None:
    seen: list[Any] = []

    def echo(d: dict[str, Any]) -> str:
        seen.append(d["msgs"])
        return "ok"

    store = Store()
    chat = RunnableWithMessageHistory(RunnableLambda(echo), store, input_messages_key="msgs")
    chat.invoke({"msgs": "one"}, _session("s"))
    chat.invoke({"msgs": "two"}, _session("s"))
    assert seen[1] == [HumanMessage("one"), AIMessage("ok"), HumanMessage("two")]


def test_dict_output_and_the_key_it_is_read_from() -> None:
    store = Store()
    step = RunnableLambda(lambda d: {"output": "o:" + d["input"], "x": 1})
    chat = RunnableWithMessageHistory(
        step,
        store,
        input_messages_key="input",
        history_messages_key="chat_history",
        output_messages_key="output",
    )
    assert chat.invoke({"input": "i"}, _session("d")) == {"output": "o:i", "x": 1}
    assert store.sessions["d"].messages == [HumanMessage("i"), AIMessage("o:i")]
    only = RunnableWithMessageHistory(RunnableLambda(lambda m: {"answer": "a"}), store)
    only.invoke("q", _session("e"))
    assert store.sessions["e"].messages == [HumanMessage("q"), AIMessage("a")]


def test_an_output_without_messages_is_an_error_not_a_logged_warning() -> None:
    chat = RunnableWithMessageHistory(RunnableLambda(lambda m: 5), Store())
    with pytest.raises(ValueError) as caught:
        chat.invoke("q", _session("z"))
    assert str(caught.value) == (
        "Expected str, BaseMessage, list[BaseMessage], or tuple[BaseMessage]. Got 5."
    )


def test_several_session_keys_are_passed_by_name() -> None:
    store = Store()

    def get(user_id: str, conversation_id: str) -> InMemoryChatMessageHistory:
        return store(f"{user_id}/{conversation_id}")

    specs = [
        ConfigurableFieldSpec(id="user_id", annotation=str),
        ConfigurableFieldSpec(id="conversation_id", annotation=str),
    ]
    chat = RunnableWithMessageHistory(ScriptedChatModel(["r"]), get, history_factory_config=specs)
    chat.invoke("x", {"configurable": {"user_id": "u", "conversation_id": "c"}})
    assert _texts(store.sessions["u/c"].messages) == [("human", "x"), ("ai", "r")]
    assert [s.id for s in chat.config_specs] == ["user_id", "conversation_id"]
    with pytest.raises(ValueError, match=r"Missing keys \['conversation_id'\]"):
        chat.invoke("x", {"configurable": {"user_id": "u"}})


def test_session_keys_that_are_not_the_factory_s_parameters_fail_at_construction() -> None:
    specs = [
        ConfigurableFieldSpec(id="user_id", annotation=str),
        ConfigurableFieldSpec(id="conv_id", annotation=str),
    ]
    with pytest.raises(ValueError) as caught:
        RunnableWithMessageHistory(
            ScriptedChatModel(["r"]), lambda a, b: Store()(a), history_factory_config=specs
        )
    assert str(caught.value) == (
        "Expected keys ['conv_id', 'user_id'] do not match parameter names ['a', 'b'] of "
        "get_session_history."
    )


def test_streaming_stores_the_finished_message_once_the_stream_ends() -> None:
    store = Store()
    chat = RunnableWithMessageHistory(ScriptedChatModel(["two words"]), store)
    chunks = list(chat.stream("s1", _session("st")))
    assert [c.text for c in chunks] == ["two", " ", "words"]
    [question, answer] = store.sessions["st"].messages
    assert (question, type(answer), answer.text) == (HumanMessage("s1"), AIMessage, "two words")


async def test_async_invoke_and_stream_use_the_async_history(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    chat = RunnableWithMessageHistory(
        ScriptedChatModel(["first", "second reply"]),
        lambda sid: SQLiteChatMessageHistory(sid, path),
    )
    assert (await chat.ainvoke("a", _session("x"))).text == "first"
    chunks = [c.text async for c in chat.astream("b", _session("x"))]
    assert chunks == ["second", " ", "reply"]
    assert _texts(SQLiteChatMessageHistory("x", path).messages) == [
        ("human", "a"),
        ("ai", "first"),
        ("human", "b"),
        ("ai", "second reply"),
    ]


def test_the_run_shows_in_events_with_the_inner_model_under_it() -> None:
    chat = RunnableWithMessageHistory(ScriptedChatModel(["ok"]), Store())
    events = [(e["event"], e["name"]) for e in chat.stream_events("q", _session("s"))]
    assert events[0] == ("on_chain_start", "RunnableWithMessageHistory")
    assert events[-1] == ("on_chain_end", "RunnableWithMessageHistory")
    assert ("on_chat_model_start", "ScriptedChatModel") in events


@tool
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


def test_an_agent_executor_keeps_its_conversation_in_sqlite(tmp_path: Path) -> None:
    model = ScriptedChatModel(
        [
            ScriptedChatModel.tool_calls(("word_count", {"text": "a b c"})),
            "Three words.",
            "You asked me to count 'a b c'.",
        ]
    )
    agent = create_tool_calling_agent(model, [word_count], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[word_count])
    path = tmp_path / "agent.db"
    chat = RunnableWithMessageHistory(
        executor,
        lambda sid: SQLiteChatMessageHistory(sid, path),
        input_messages_key="input",
        history_messages_key="chat_history",
        output_messages_key="output",
    )
    first = chat.invoke({"input": "count a b c"}, _session("u1"))
    assert first["output"] == "Three words."
    second = chat.invoke({"input": "what did I ask?"}, _session("u1"))
    assert second["output"] == "You asked me to count 'a b c'."
    assert _texts(model.requests[2].messages)[:4] == [
        ("system", TOOL_CALLING_PROMPT.messages[0].prompt.template),
        ("human", "count a b c"),
        ("ai", "Three words."),
        ("human", "what did I ask?"),
    ]
    assert _texts(SQLiteChatMessageHistory("u1", path).messages) == [
        ("human", "count a b c"),
        ("ai", "Three words."),
        ("human", "what did I ask?"),
        ("ai", "You asked me to count 'a b c'."),
    ]


def test_top_level_export() -> None:
    assert leanchain.RunnableWithMessageHistory is RunnableWithMessageHistory
    assert SystemMessage("x").text == "x"
