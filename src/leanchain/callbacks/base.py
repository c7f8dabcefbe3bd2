"""The callback handler protocol: one method per moment of a run, all optional.

Method names and signatures follow LangChain's, so handlers written for it port unchanged.
Every method receives ``run_id`` and ``parent_run_id`` (``None`` for a root run); start methods
also receive ``tags``, ``metadata`` and ``name``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from leanchain._fields import init_fields

__all__ = ["AsyncCallbackHandler", "BaseCallbackHandler"]


class BaseCallbackHandler:
    """A handler for the events of runs; subclass and override the methods you need.

    Attributes:
        raise_error: re-raise exceptions this handler throws (by default they are logged and
            the run goes on).
        run_inline: run this handler's coroutines inline rather than in a worker.
        ignore_chain: skip chain events.
        ignore_chat_model: skip ``on_chat_model_start``.
        ignore_llm: skip model token, end and error events.
        ignore_tool: skip tool events.
        ignore_retriever: skip retriever events.
        ignore_agent: skip agent action and finish events.
        ignore_retry: skip retry events.
        ignore_custom_event: skip custom events.
    """

    raise_error: bool = False
    run_inline: bool = True

    def __init__(self, **fields: Any) -> None:
        # A subclass's annotated fields are its constructor's keywords (LangChain's way).
        init_fields(self, fields, BaseCallbackHandler)

    ignore_chain: bool = False
    ignore_chat_model: bool = False
    ignore_llm: bool = False
    ignore_tool: bool = False
    ignore_retriever: bool = False
    ignore_agent: bool = False
    ignore_retry: bool = False
    ignore_custom_event: bool = False

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A chain (any runnable that is not a model or a tool) started."""

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        """A chain finished with `outputs`."""

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        """A chain raised `error`."""

    def on_chain_stream(
        self, chunk: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        """A streaming chain produced `chunk` (leanchain addition used by event streaming)."""

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A chat model was called with `messages` (one list per prompt)."""

    def on_llm_new_token(
        self,
        token: str,
        *,
        chunk: Any = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        """A streaming model produced `token`; `chunk` is the whole message chunk."""

    def on_llm_end(
        self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        """A model finished; `response` is an `LLMResult`."""

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        """A model raised `error`."""

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A tool started with `input_str` (and `inputs` when the input was a dict)."""

    def on_tool_end(
        self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        """A tool finished with `output`."""

    def on_tool_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        """A tool raised `error`."""

    def on_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A retriever started looking up `query`."""

    def on_retriever_end(
        self, documents: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        """A retriever found `documents`."""

    def on_retriever_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        """A retriever raised `error`."""

    def on_agent_action(
        self, action: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        """An agent decided to call a tool."""

    def on_agent_finish(
        self, finish: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        """An agent gave its final answer."""

    def on_retry(
        self,
        retry_state: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        """A runnable is about to be retried after `retry_state` (the failed attempt)."""

    def on_text(
        self, text: str, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        """Free text for display, such as an agent's thought."""

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A user-defined event."""


class AsyncCallbackHandler(BaseCallbackHandler):
    """A handler whose methods are coroutines; override them with ``async def``.

    Under a synchronous run its coroutines are run to completion before the run goes on.
    """

    run_inline = False
