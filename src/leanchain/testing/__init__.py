"""Test doubles for leanchain users: a local fake provider server and its script.

``FakeProviderServer`` speaks the OpenAI Chat Completions and Anthropic Messages wire formats on
127.0.0.1, so tests can point the real SDK clients at it and stay offline and deterministic.
"""

from __future__ import annotations

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
    "FakeProviderServer",
    "FinishReason",
    "MidStreamError",
    "Provider",
    "RecordedRequest",
    "ScriptItem",
    "ScriptedError",
    "ScriptedReply",
    "ScriptedToolCall",
    "ScriptedUsage",
    "StalledStream",
]
