"""Chat histories: where a conversation's messages are kept between turns.

`BaseChatMessageHistory` is LangChain's interface; `InMemoryChatMessageHistory` keeps the
messages in a list, `SQLiteChatMessageHistory` in a SQLite file (the standard library's, so a
conversation outlives the process). `RunnableWithMessageHistory` wraps a chain, a chat model
or an `AgentExecutor` so that each call reads the session's history and stores the new turn.
"""

from __future__ import annotations

from leanchain.chat_history._base import BaseChatMessageHistory, InMemoryChatMessageHistory
from leanchain.chat_history._runnable import GetSessionHistory, RunnableWithMessageHistory
from leanchain.chat_history._sqlite import SQLiteChatMessageHistory

__all__ = [
    "BaseChatMessageHistory",
    "GetSessionHistory",
    "InMemoryChatMessageHistory",
    "RunnableWithMessageHistory",
    "SQLiteChatMessageHistory",
]
