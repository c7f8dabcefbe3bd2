"""`BaseRetriever`: a runnable that looks documents up for a query, as a retriever run."""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from leanchain._fields import fields_repr, init_fields
from leanchain.callbacks.manager import RunManager, silent_run
from leanchain.documents import Document
from leanchain.runnables.base import Runnable
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import RunnableConfig, ensure_config, merge_configs

__all__ = ["BaseRetriever"]


def _parameters(method: Any) -> tuple[bool, bool]:
    """Whether `method` takes ``run_manager``, and whether it takes other keywords."""
    params = inspect.signature(method).parameters
    takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    others = [n for n in params if n not in ("self", "query", "run_manager")]
    return "run_manager" in params or takes_kwargs, bool(others)


class BaseRetriever(Runnable[str, list[Document]]):
    """A runnable from a query to the documents relevant to it.

    Subclass it, declare its settings as annotated class fields (built with keywords), and
    implement ``_get_relevant_documents(self, query, *, run_manager)``. ``run_manager`` is
    the retriever's run (``run_manager.get_child()`` gives callbacks for inner runs); a method
    that does not declare it is called without it. Keywords given to `invoke` are passed on.
    Each call is a retriever run: ``on_retriever_start``/``on_retriever_end`` for handlers,
    ``on_retriever_*`` events for `astream_events`.

    Attributes:
        tags: tags added to every run of this retriever.
        metadata: metadata added to every run of this retriever.
    """

    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None

    _takes_run_manager: ClassVar[bool] = True
    _takes_kwargs: ClassVar[bool] = False
    _atakes_run_manager: ClassVar[bool] = True
    _atakes_kwargs: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._takes_run_manager, cls._takes_kwargs = _parameters(cls._get_relevant_documents)
        cls._atakes_run_manager, cls._atakes_kwargs = _parameters(cls._aget_relevant_documents)

    def __init__(
        self,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        if tags is not None:
            self.tags = tags
        if metadata is not None:
            self.metadata = metadata
        init_fields(self, fields, BaseRetriever, ("tags", "metadata"))

    def __repr__(self) -> str:
        return fields_repr(self, BaseRetriever)

    def _get_relevant_documents(self, query: str, *, run_manager: RunManager) -> list[Document]:
        """The documents for `query`; subclasses implement this."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement _get_relevant_documents(query, *, run_manager)"
        )

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: RunManager
    ) -> list[Document]:
        """Async `_get_relevant_documents`; by default runs it in a worker thread."""
        return await run_in_executor(self._sync_lookup, query, run_manager, {})

    def _sync_lookup(self, query: str, run: RunManager, kwargs: dict[str, Any]) -> list[Document]:
        if self._takes_run_manager:
            kwargs = {**kwargs, "run_manager": run}
        elif kwargs and not self._takes_kwargs:
            raise TypeError(f"{type(self).__name__} takes no keywords, got {sorted(kwargs)}")
        return self._get_relevant_documents(query, **kwargs)

    def _config(self, config: RunnableConfig | None) -> RunnableConfig:
        if not (self.tags or self.metadata):
            return ensure_config(config)
        own: RunnableConfig = {}
        if self.tags:
            own["tags"] = self.tags
        if self.metadata:
            own["metadata"] = self.metadata
        return merge_configs(config, own)

    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """The documents relevant to the query `input`."""

        def lookup(query: str, child: RunnableConfig, run: RunManager | None) -> list[Document]:
            if run is None:
                run = silent_run(child, "retriever", self.get_name())
            return self._sync_lookup(query, run, kwargs)

        return self._call_with_config(lookup, input, self._config(config), "retriever")

    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Async `invoke`."""

        async def lookup(
            query: str, child: RunnableConfig, run: RunManager | None
        ) -> list[Document]:
            if run is None:
                run = silent_run(child, "retriever", self.get_name())
            if type(self)._aget_relevant_documents is BaseRetriever._aget_relevant_documents:
                return await run_in_executor(self._sync_lookup, query, run, kwargs)
            extra = dict(kwargs)
            if self._atakes_run_manager:
                extra["run_manager"] = run
            return await self._aget_relevant_documents(query, **extra)

        return await self._acall_with_config(lookup, input, self._config(config), "retriever")

    def get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        """LangChain's older name for `invoke`."""
        return self.invoke(query, **kwargs)

    async def aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        """LangChain's older name for `ainvoke`."""
        return await self.ainvoke(query, **kwargs)
