"""Chat models over the official provider SDKs: `ChatOpenAI` and `ChatAnthropic`.

Importing this package imports neither SDK: each is imported when its first model object is
created, and its client is built on the first call (once per model object).
"""

from __future__ import annotations

from ._anthropic import ChatAnthropic
from ._openai import ChatOpenAI

__all__ = ["ChatAnthropic", "ChatOpenAI"]
