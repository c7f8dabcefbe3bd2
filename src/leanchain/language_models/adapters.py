"""The API for writing a provider or chat model class: what it builds on beyond `BaseChatModel`.

`leanchain.providers` uses exactly these, and a chat model of your own may too.

Cutting a streamed reply at the client-side stop sequences (`StopScanner`, and the metadata of a
reply cut there, `stopped_metadata`), and the structured-output runnables a provider returns
from ``with_structured_output`` (`check_method`, `tool_call_output`, `json_reply_output`).
"""

from __future__ import annotations

from leanchain.language_models._stop import StopScanner, stopped_metadata
from leanchain.language_models._structured import (
    check_method,
    json_reply_output,
    tool_call_output,
)

__all__ = [
    "StopScanner",
    "check_method",
    "json_reply_output",
    "stopped_metadata",
    "tool_call_output",
]
