"""What `BaseChatModel` makes out of a model's `_stream` (these are its `_astream` default,
`_generate_from_stream` and `_agenerate_from_stream`).

A model that only implements the sync `_stream` still streams async: its chunks are pulled
through a worker thread. And when a callback handler wants the tokens (``wants_tokens``, as
the event stream does), `invoke` streams the reply and adds the chunks up, so that the
handler sees each token while the caller still gets one reply.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from leanchain.callbacks.manager import RunManager
from leanchain.messages import BaseMessage
from leanchain.runnables.concurrency import get_executor

from ._results import ChatGenerationChunk, ChatResult
from ._stop import acut_stream, cut_stream
from ._streaming import aemitting, emitting, result_from_chunks

if TYPE_CHECKING:
    from ._base import BaseChatModel

__all__ = ["agenerate_from_stream", "astream_in_thread", "generate_from_stream"]


async def astream_in_thread(
    self: BaseChatModel,
    messages: list[BaseMessage],
    stop: list[str] | None = None,
    run_manager: RunManager | None = None,
    **kwargs: Any,
) -> AsyncIterator[ChatGenerationChunk]:
    """Async `_stream`; by default iterates `_stream` in a worker thread."""
    iterator = self._stream(messages, stop=stop, run_manager=run_manager, **kwargs)
    executor = get_executor()
    loop = asyncio.get_running_loop()
    # One context for the whole stream, so the generator sees the caller's context vars.
    context = contextvars.copy_context()

    def step() -> ChatGenerationChunk | None:
        return next(iterator, None)

    while True:
        chunk = await loop.run_in_executor(executor, context.run, step)
        if chunk is None:
            return
        yield chunk


def generate_from_stream(
    self: BaseChatModel,
    messages: list[BaseMessage],
    stop: list[str] | None,
    run: RunManager,
    kwargs: dict[str, Any],
) -> ChatResult:
    """The reply `_stream` gives, added up, with `run` told about every chunk."""
    chunks = cut_stream(self._stream(messages, stop, run, **kwargs), self._markers(stop))
    return result_from_chunks(list(emitting(chunks, run)))


async def agenerate_from_stream(
    self: BaseChatModel,
    messages: list[BaseMessage],
    stop: list[str] | None,
    run: RunManager,
    kwargs: dict[str, Any],
) -> ChatResult:
    """Async `generate_from_stream`, over `_astream`."""
    chunks = acut_stream(self._astream(messages, stop, run, **kwargs), self._markers(stop))
    return result_from_chunks([chunk async for chunk in aemitting(chunks, run)])
