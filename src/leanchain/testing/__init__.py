"""Test doubles for leanchain users: scripted chat models and a local fake provider server.

``ScriptedChatModel`` and friends stand in for a chat model inside pipelines and agents.
``FakeProviderServer`` speaks the OpenAI Chat Completions and Anthropic Messages wire formats on
127.0.0.1, so tests can point the real SDK clients at it and stay offline and deterministic.
``cassette`` records every chat-model call of a block to a readable JSON file and plays it back;
``HumanChatModel`` lets a person play the model.
"""

from __future__ import annotations

from leanchain.language_models import (
    ChatRequest,
    FakeListChatModel,
    FunctionChatModel,
    GenericFakeChatModel,
    ScriptedChatModel,
)
from leanchain.testing._cassette import (
    Cassette,
    CassetteEntry,
    CassetteMismatchError,
    CassetteMode,
    cassette,
)
from leanchain.testing._cassette_format import CassetteFormatError
from leanchain.testing._human import HumanChatModel
from leanchain.testing._recording import REDACTED, RecordedRequest
from leanchain.testing._script import (
    BrokenStream,
    FinishReason,
    MidStreamError,
    Provider,
    ScriptedError,
    ScriptedReply,
    ScriptedToolCall,
    ScriptedUsage,
    ScriptItem,
    StalledStream,
)
from leanchain.testing._server import FakeProviderServer

__all__ = [
    "REDACTED",
    "BrokenStream",
    "Cassette",
    "CassetteEntry",
    "CassetteFormatError",
    "CassetteMismatchError",
    "CassetteMode",
    "ChatRequest",
    "FakeListChatModel",
    "FakeProviderServer",
    "FinishReason",
    "FunctionChatModel",
    "GenericFakeChatModel",
    "HumanChatModel",
    "MidStreamError",
    "Provider",
    "RecordedRequest",
    "ScriptItem",
    "ScriptedChatModel",
    "ScriptedError",
    "ScriptedReply",
    "ScriptedToolCall",
    "ScriptedUsage",
    "StalledStream",
    "cassette",
]
