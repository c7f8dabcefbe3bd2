"""BaseChatMessageHistory, InMemoryChatMessageHistory and SQLiteChatMessageHistory (real SQLite)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.chat_history import (
    BaseChatMessageHistory,
    InMemoryChatMessageHistory,
    SQLiteChatMessageHistory,
)
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

CONVERSATION: list[BaseMessage] = [
    SystemMessage("Be brief."),
    HumanMessage("What is 2+2?", id="h1"),
    AIMessage(
        "",
        tool_calls=[{"name": "add", "args": {"a": 2, "b": 2}, "id": "call_1", "type": "tool_call"}],
        usage_metadata={"input_tokens": 5, "output_tokens": 3, "total_tokens": 8},
    ),
    ToolMessage("4", tool_call_id="call_1", name="add"),
    AIMessage("4.", response_metadata={"model_name": "m"}),
]


def test_base_needs_add_message_or_add_messages() -> None:
    class NoAdd(BaseChatMessageHistory):
        messages: list[BaseMessage] = []

        def clear(self) -> None:
            pass

    with pytest.raises(NotImplementedError) as caught:
        NoAdd().add_message(HumanMessage("x"))
    assert str(caught.value) == (
        "add_message is not implemented for this class. Please implement add_message or "
        "add_messages."
    )


async def test_a_subclass_with_add_messages_gets_the_rest() -> None:
    class Listed(BaseChatMessageHistory):
        def __init__(self) -> None:
            self.messages: list[BaseMessage] = []
            self.writes = 0

        def add_messages(self, messages: Sequence[BaseMessage]) -> None:
            self.writes += 1
            self.messages.extend(messages)

        def clear(self) -> None:
            self.messages = []

    history = Listed()
    history.add_user_message("hi")
    history.add_ai_message(AIMessage("yo"))
    await history.aadd_messages([HumanMessage("again")])
    assert await history.aget_messages() == [
        HumanMessage("hi"),
        AIMessage("yo"),
        HumanMessage("again"),
    ]
    assert (str(history), history.writes) == ("Human: hi\nAI: yo\nHuman: again", 3)
    await history.aclear()
    assert history.messages == []


async def test_in_memory_history() -> None:
    history = InMemoryChatMessageHistory()
    history.add_user_message("u")
    history.add_ai_message("a")
    assert str(history) == "Human: u\nAI: a"
    assert repr(history) == (
        "InMemoryChatMessageHistory(messages=[HumanMessage(content='u'), AIMessage(content='a')])"
    )
    snapshot = history.messages
    snapshot.append(HumanMessage("not stored"))
    assert len(history.messages) == 2
    await history.aadd_messages([HumanMessage("b")])
    assert await history.aget_messages() == [HumanMessage("u"), AIMessage("a"), HumanMessage("b")]
    await history.aclear()
    assert history.messages == []
    assert InMemoryChatMessageHistory(CONVERSATION) == InMemoryChatMessageHistory(CONVERSATION)


def test_sqlite_history_round_trips_every_field_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    first = SQLiteChatMessageHistory("s1", path)
    first.add_messages(CONVERSATION[:2])
    first.add_messages(CONVERSATION[2:])
    again = SQLiteChatMessageHistory("s1", str(path))
    assert again.messages == CONVERSATION
    assert SQLiteChatMessageHistory("other", path).messages == []


def test_sqlite_rows_are_versioned_json_in_langchain_s_shape(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    SQLiteChatMessageHistory("s1", path).add_user_message("hi")
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT id, session_id, message FROM message_store").fetchall()
    db.close()
    assert len(rows) == 1
    row_id, session, text = rows[0]
    assert (row_id, session) == (1, "s1")
    assert json.loads(text) == {
        "type": "human",
        "data": {
            "content": "hi",
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "human",
            "name": None,
            "id": None,
        },
        "version": 1,
    }


def test_sqlite_reads_rows_langchain_wrote(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    history = SQLiteChatMessageHistory("s", path)
    row = {"type": "ai", "data": {"content": "from LangChain", "type": "ai"}}
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO message_store (session_id, message) VALUES (?, ?)", ("s", json.dumps(row))
        )
    db.close()
    assert history.messages == [AIMessage("from LangChain")]


def test_sqlite_clear_removes_one_session_only(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    a, b = SQLiteChatMessageHistory("a", path), SQLiteChatMessageHistory("b", path)
    a.add_user_message("for a")
    b.add_user_message("for b")
    a.clear()
    assert (a.messages, b.messages) == ([], [HumanMessage("for b")])


def test_sqlite_with_an_owned_connection_and_a_custom_table() -> None:
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        history = SQLiteChatMessageHistory("s", connection=connection, table_name="turns")
        history.add_ai_message("kept in memory")
        assert SQLiteChatMessageHistory(
            "s", connection=connection, table_name="turns"
        ).messages == [AIMessage("kept in memory")]
        assert repr(history) == (
            "SQLiteChatMessageHistory(session_id='s', database='<connection>', table_name='turns')"
        )
    finally:
        connection.close()


@pytest.mark.parametrize("table", ["x; DROP TABLE y", "1abc", "a-b", ""])
def test_sqlite_table_name_must_be_an_identifier(tmp_path: Path, table: str) -> None:
    with pytest.raises(ValueError) as caught:
        SQLiteChatMessageHistory("s", tmp_path / "x.db", table_name=table)
    assert str(caught.value) == (
        f"table_name must be a plain SQL identifier (letters, digits, _), got {table!r}"
    )


def test_sqlite_needs_exactly_one_of_database_and_connection(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exactly one of database"):
        SQLiteChatMessageHistory("s")
    connection = sqlite3.connect(":memory:")
    try:
        with pytest.raises(ValueError, match="exactly one of database"):
            SQLiteChatMessageHistory("s", tmp_path / "x.db", connection=connection)
    finally:
        connection.close()


def _store_raw(path: Path, text: str) -> None:
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO message_store (session_id, message) VALUES ('s', ?)", (text,))
    db.close()


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        ("not json", "A stored message is not JSON: 'not json'"),
        (
            json.dumps({"type": "human", "data": {"content": "x"}, "version": 2}),
            "A stored message has format version 2; this version of leanchain reads version 1",
        ),
        (
            json.dumps({"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]}),
            "Expected a dict with 'type' and 'data' keys",
        ),
        (
            json.dumps({"type": "constructor", "data": {"content": "x"}}),
            "Got unexpected message type: constructor",
        ),
    ],
)
def test_sqlite_refuses_rows_it_cannot_read(tmp_path: Path, stored: str, message: str) -> None:
    path = tmp_path / "chat.db"
    history = SQLiteChatMessageHistory("s", path)
    _store_raw(path, stored)
    with pytest.raises(ValueError) as caught:
        history.messages  # noqa: B018
    assert str(caught.value).startswith(message)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_ROWS = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["human", "ai", "system", "tool", "secret", "constructor", "x"]),
        "data": st.dictionaries(
            st.sampled_from(["content", "type", "id", "lc", "tool_call_id"]), _JSON
        ),
        "version": st.integers(0, 2),
    },
)


@settings(max_examples=60, deadline=None)
@given(row=_ROWS)
def test_a_stored_row_is_read_as_a_message_or_refused_never_anything_else(
    tmp_path_factory: pytest.TempPathFactory, row: dict[str, Any]
) -> None:
    path = tmp_path_factory.mktemp("rows") / "chat.db"
    history = SQLiteChatMessageHistory("s", path)
    _store_raw(path, json.dumps(row))
    try:
        [message] = history.messages
    except ValueError:
        return
    assert type(message) in (HumanMessage, AIMessage, SystemMessage, ToolMessage)


def test_sqlite_writes_from_many_threads_all_land(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    SQLiteChatMessageHistory("s", path)

    def write(i: int) -> None:
        SQLiteChatMessageHistory("s", path).add_messages(
            [HumanMessage(f"q{i}"), AIMessage(f"a{i}")]
        )

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    stored = SQLiteChatMessageHistory("s", path).messages
    assert sorted(m.text for m in stored) == sorted(
        [f"q{i}" for i in range(8)] + [f"a{i}" for i in range(8)]
    )
    # One write per call: each question is directly followed by its answer.
    assert all(stored[i + 1].text == "a" + stored[i].text[1:] for i in range(0, 16, 2))


async def test_sqlite_async_methods(tmp_path: Path) -> None:
    history = SQLiteChatMessageHistory("s", tmp_path / "chat.db")
    await history.aadd_messages([HumanMessage("q"), AIMessage("a")])
    assert await history.aget_messages() == [HumanMessage("q"), AIMessage("a")]
    await history.aclear()
    assert await history.aget_messages() == []
