"""What a chat model's `_generate` and `_stream` return, and what `on_llm_end` receives: the
classes live in `leanchain.outputs` (output parsers receive them too, and sit beside this
package, not above it)."""

from __future__ import annotations

from leanchain.outputs import ChatGeneration, ChatGenerationChunk, ChatResult, LLMResult

__all__ = ["ChatGeneration", "ChatGenerationChunk", "ChatResult", "LLMResult"]
