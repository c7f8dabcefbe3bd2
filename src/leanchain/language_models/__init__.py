"""Chat models: the `BaseChatModel` every model builds on, and models for tests.

`FakeListChatModel` and `GenericFakeChatModel` behave as LangChain's fakes do.
`ScriptedChatModel` (a queue of replies) and `FunctionChatModel` (a function of the messages)
support tools and stop sequences, record every request and stream their replies; they are what
agent tests should use. `intercept_model_calls` puts a `ModelInterceptor` around every chat-model
call in a block (usage budgets, cassettes).
"""

from __future__ import annotations

from ._base import BaseChatModel, LanguageModelInput, ToolChoice
from ._chunking import Chunking
from ._fakes import FakeListChatModel, FakeListChatModelError, GenericFakeChatModel
from ._intercept import ModelCall, ModelInterceptor, intercept_model_calls
from ._results import ChatGeneration, ChatGenerationChunk, ChatResult, LLMResult
from ._scripted import (
    ChatRequest,
    FunctionChatModel,
    Reply,
    ScriptedChatModel,
    ScriptItem,
)
from ._structured import ToolCallOutputParser

__all__ = [
    "BaseChatModel",
    "ChatGeneration",
    "ChatGenerationChunk",
    "ChatRequest",
    "ChatResult",
    "Chunking",
    "FakeListChatModel",
    "FakeListChatModelError",
    "FunctionChatModel",
    "GenericFakeChatModel",
    "LLMResult",
    "LanguageModelInput",
    "ModelCall",
    "ModelInterceptor",
    "Reply",
    "ScriptItem",
    "ScriptedChatModel",
    "ToolCallOutputParser",
    "ToolChoice",
    "intercept_model_calls",
]
