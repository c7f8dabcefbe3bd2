"""What a model call produced: `Generation`, `ChatGeneration` and their chunks, `ChatResult`
and `LLMResult` (LangChain's ``langchain_core.outputs``).

Layer 1: depends on ``leanchain.messages`` only. `leanchain.language_models` re-exports the
chat ones, and output parsers hand generations to ``parse_result``.
"""

from __future__ import annotations

from ._generations import (
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    Generation,
    GenerationChunk,
    LLMResult,
)

__all__ = [
    "ChatGeneration",
    "ChatGenerationChunk",
    "ChatResult",
    "Generation",
    "GenerationChunk",
    "LLMResult",
]
