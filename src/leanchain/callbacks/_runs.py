"""The run tree: `CallbackManager` (where the next run hangs), `RunManager` (a run in progress)
and how a run is made and announced.

Every run of a tree shares the handlers' dispatch table (`leanchain.callbacks._dispatch`),
resolved once at the root: an event that no handler overrides costs a dict lookup, and a
child's config is its parent's with one key replaced. A parent that runs a child itself can
start the child's run straight from its own (`RunManager.start_child`), with no config in
between.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias
from uuid import UUID

from leanchain.callbacks import _run_ids
from leanchain.callbacks._dispatch import (
    Entries,
    Table,
    acall_handlers,
    acall_run_hooks,
    build_table,
    call_handlers,
    call_run_hooks,
    handler_failed,
    is_coroutine,
    run_coroutine,
)
from leanchain.callbacks._run_ids import UNKNOWN_SAFETY, set_uuid_int, set_uuid_safety
from leanchain.callbacks.base import BaseCallbackHandler

if TYPE_CHECKING:
    from leanchain.runnables.config import RunnableConfig

__all__ = [
    "CallbackManager",
    "Callbacks",
    "RunManager",
    "RunType",
    "atell_start",
    "make_run",
    "merge_callbacks",
    "tell_start",
]

_new_object = object.__new__

RunType: TypeAlias = Literal[
    "chain", "prompt", "parser", "chat_model", "tool", "agent", "retriever"
]

START_EVENT = {
    "chat_model": "on_chat_model_start",
    "tool": "on_tool_start",
    "retriever": "on_retriever_start",
}
_END = {"chat_model": "on_llm_end", "tool": "on_tool_end", "retriever": "on_retriever_end"}
_ERROR = {"chat_model": "on_llm_error", "tool": "on_tool_error", "retriever": "on_retriever_error"}


class CallbackManager:
    """Handlers, plus where the next run hangs in the run tree.

    This is what a parent puts in its children's ``config["callbacks"]``.

    Attributes:
        handlers: the handlers that observe the run and its descendants.
        parent_run_id: the run the next run is a child of.
        tags: tags for the next run only (such as ``seq:step:2``), not inherited further.
    """

    __slots__ = ("_table", "handlers", "parent_run_id", "tags")

    def __init__(
        self,
        handlers: Sequence[BaseCallbackHandler],
        parent_run_id: UUID | None = None,
        tags: Sequence[str] = (),
    ) -> None:
        self.handlers: tuple[BaseCallbackHandler, ...] = (
            handlers if type(handlers) is tuple else tuple(handlers)
        )
        self.parent_run_id = parent_run_id
        self.tags: tuple[str, ...] = tags if type(tags) is tuple else tuple(tags)
        self._table: Table | None = None

    def __repr__(self) -> str:
        return f"CallbackManager(handlers={list(self.handlers)!r}, parent={self.parent_run_id})"

    def table(self) -> Table:
        """The handlers' dispatch table (resolved on first use, then shared by the tree)."""
        table = self._table
        if table is None:
            # Two threads may both resolve it: the tables are equal, either one serves.
            table = self._table = build_table(self.handlers)
        return table


Callbacks: TypeAlias = Sequence[BaseCallbackHandler] | CallbackManager | None


def merge_callbacks(left: Callbacks, right: Callbacks) -> Callbacks:
    """Both sets of handlers; a manager keeps its place in the run tree (the left one's when
    both are managers, whose next-run tags join).

    With a manager, a handler both sides hold is kept once (LangChain's ``add_handler``): a
    tool that hands its callbacks to a model inside a chain gives the model the chain's
    handlers again, and each event must still reach each handler once.
    """
    if not left:
        return right
    if not right:
        return left
    if isinstance(left, CallbackManager):
        if isinstance(right, CallbackManager):
            tags = (*left.tags, *(t for t in right.tags if t not in left.tags))
            handlers = _union(left.handlers, right.handlers)
            return CallbackManager(handlers, left.parent_run_id, tags)
        return CallbackManager(_union(left.handlers, tuple(right)), left.parent_run_id, left.tags)
    if isinstance(right, CallbackManager):
        return CallbackManager(_union(tuple(left), right.handlers), right.parent_run_id, right.tags)
    return [*left, *right]


def _union(
    first: tuple[BaseCallbackHandler, ...], more: Sequence[BaseCallbackHandler]
) -> tuple[BaseCallbackHandler, ...]:
    """`first`, then the handlers of `more` it does not hold (the same object, not equal)."""
    held = {id(handler) for handler in first}
    new = []
    for handler in more:
        if id(handler) not in held:
            held.add(id(handler))
            new.append(handler)
    return (*first, *new) if new else first


class RunManager:
    """One run in progress: reports its events and parents its children.

    Attributes:
        run_id: this run's id.
        parent_run_id: the id of the run this one is a child of (``None`` for a root).
        handlers: the handlers that observe the run tree.
        run_type: which family of events the run sends.
        name: the run's name.
        tags: the run's tags (its own, then the inherited ones).
        inheritable_tags: the tags its children inherit.
        metadata: the run's metadata.
    """

    __slots__ = (
        "_table",
        "handlers",
        "inheritable_tags",
        "metadata",
        "name",
        "parent_run_id",
        "run_id",
        "run_type",
        "tags",
    )

    def __init__(
        self,
        run_id: UUID,
        parent_run_id: UUID | None,
        handlers: tuple[BaseCallbackHandler, ...],
        run_type: RunType,
        name: str,
        tags: list[str],
        inheritable_tags: list[str],
        metadata: dict[str, Any],
    ) -> None:
        self.run_id = run_id
        self.parent_run_id = parent_run_id
        self.handlers = handlers
        self.run_type = run_type
        self.name = name
        self.tags = tags
        self.inheritable_tags = inheritable_tags
        self.metadata = metadata
        self._table = build_table(handlers)

    def child(self, tag: str | None = None) -> CallbackManager:
        """A manager for a child run; `tag` (e.g. ``seq:step:1``) labels that child only."""
        # Without `__init__` (whose table starts empty, to be built again): the child shares it.
        manager: CallbackManager = _new_object(CallbackManager)
        manager.handlers = self.handlers
        manager.parent_run_id = self.run_id
        manager.tags = (tag,) if tag else ()
        manager._table = self._table
        return manager

    def get_child(self, tag: str | None = None) -> CallbackManager:
        """LangChain's name for `child`: callbacks that make a run a child of this one."""
        return self.child(tag)

    def child_config(self, config: RunnableConfig, tag: str | None = None) -> RunnableConfig:
        """`config` for a child run of this one: the same keys, with callbacks naming this run
        as the parent (and without ``run_name``/``run_id``, which named this run only)."""
        child = config.copy()
        if "run_name" in child or "run_id" in child:
            child.pop("run_name", None)
            child.pop("run_id", None)
        # `child` written out, `__init__` skipped the same way: every traced run makes one.
        manager: CallbackManager = _new_object(CallbackManager)
        manager.handlers = self.handlers
        manager.parent_run_id = self.run_id
        manager.tags = (tag,) if tag else ()
        manager._table = self._table
        child["callbacks"] = manager
        return child

    def start_child(
        self,
        config: RunnableConfig,
        run_type: RunType,
        name: str,
        inputs: Any,
        tag: str | None = None,
    ) -> RunManager:
        """Start a child run as ``start_run(self.child_config(config, tag), ...)`` would,
        without making that config (for a parent that runs the child itself)."""
        run = make_run(
            self.handlers,
            self._table,
            self.run_id,
            (tag,) if tag else (),
            config,
            run_type,
            config.get("tags"),
            name,
            None,
        )
        if START_EVENT.get(run_type, "on_chain_start") in self._table:
            tell_start(run, None, inputs, None)
        return run

    def emit(self, event: str, *args: Any, **kwargs: Any) -> None:
        """Send `event` (a handler method name) about this run to every handler."""
        entries = self._table.get(event)
        if not entries:
            return
        if len(args) == 1:
            call_run_hooks(entries, event, args[0], self.run_id, self.parent_run_id, kwargs)
            return
        kwargs["run_id"] = self.run_id
        kwargs["parent_run_id"] = self.parent_run_id
        call_handlers(entries, event, args, kwargs)

    async def aemit(self, event: str, *args: Any, **kwargs: Any) -> None:
        """Async twin of `emit`."""
        entries = self._table.get(event)
        if not entries:
            return
        if len(args) == 1:
            await acall_run_hooks(entries, event, args[0], self.run_id, self.parent_run_id, kwargs)
            return
        kwargs["run_id"] = self.run_id
        kwargs["parent_run_id"] = self.parent_run_id
        await acall_handlers(entries, event, args, kwargs)

    def on_stream(self, chunk: Any) -> None:
        """Report that the run produced `chunk` of its output (``on_chain_stream``)."""
        entries = self._table.get("on_chain_stream")
        if not entries:
            return
        run_id, parent = self.run_id, self.parent_run_id
        for handler, hook in entries:
            try:
                result = hook(handler, chunk, run_id=run_id, parent_run_id=parent)
                if result is not None and is_coroutine(result):
                    run_coroutine(result)
            except Exception as exc:
                handler_failed(handler, "on_chain_stream", exc)

    def on_end(self, output: Any, **kwargs: Any) -> None:
        """Report that the run finished with `output`."""
        event = _END.get(self.run_type, "on_chain_end")
        entries = self._table.get(event)
        if not entries:
            return
        run_id, parent = self.run_id, self.parent_run_id
        # `call_run_hooks` written out: every run ends here.
        for handler, hook in entries:
            try:
                if kwargs:
                    result = hook(handler, output, run_id=run_id, parent_run_id=parent, **kwargs)
                else:
                    result = hook(handler, output, run_id=run_id, parent_run_id=parent)
                if result is not None and is_coroutine(result):
                    run_coroutine(result)
            except Exception as exc:
                handler_failed(handler, event, exc)

    def on_error(self, error: BaseException, **kwargs: Any) -> None:
        """Report that the run raised `error`."""
        event = _ERROR.get(self.run_type, "on_chain_error")
        entries = self._table.get(event)
        if entries:
            call_run_hooks(entries, event, error, self.run_id, self.parent_run_id, kwargs)

    async def aon_end(self, output: Any, **kwargs: Any) -> None:
        """Async twin of `on_end`."""
        await self.aemit(_END.get(self.run_type, "on_chain_end"), output, **kwargs)

    async def aon_error(self, error: BaseException, **kwargs: Any) -> None:
        """Async twin of `on_error`."""
        await self.aemit(_ERROR.get(self.run_type, "on_chain_error"), error, **kwargs)


def make_run(
    handlers: tuple[BaseCallbackHandler, ...],
    table: Table,
    parent_run_id: UUID | None,
    local_tags: tuple[str, ...],
    config: RunnableConfig,
    run_type: RunType,
    inherited_tags: Sequence[str] | None,
    name: str,
    run_id: UUID | None,
) -> RunManager:
    """A new run (nothing is told yet): its tags are `local_tags` then `inherited_tags`, its
    metadata a copy of the config's."""
    inheritable = list(inherited_tags) if inherited_tags else []
    metadata = config.get("metadata")
    # One per run, so made without `__init__` and with `new_run_id` written out (`_run_ids`).
    run: RunManager = _new_object(RunManager)
    if run_id is None:
        run_id = _new_object(UUID)
        set_uuid_int(run_id, next(_run_ids.id_ints))
        set_uuid_safety(run_id, UNKNOWN_SAFETY)
    run.run_id = run_id
    run.parent_run_id = parent_run_id
    run.handlers = handlers
    run._table = table
    run.run_type = run_type
    run.name = name
    run.tags = [*local_tags, *inheritable] if local_tags else inheritable[:]
    run.inheritable_tags = inheritable
    run.metadata = dict(metadata) if metadata else {}
    return run


def tell_start(
    run: RunManager,
    serialized: dict[str, Any] | None,
    inputs: Any,
    extra: dict[str, Any] | None,
) -> None:
    """Send `run`'s start event (``extra`` as further keywords)."""
    event = START_EVENT.get(run.run_type, "on_chain_start")
    entries = run._table.get(event)
    if not entries:
        return
    run_id, parent, tags, metadata, name = (
        run.run_id,
        run.parent_run_id,
        run.tags,
        run.metadata,
        run.name,
    )
    if serialized is None:
        serialized = {"name": name}
    if run.run_type == "prompt" or run.run_type == "parser":
        extra = {**(extra or {}), "run_type": run.run_type}
    # The keywords are passed as such (no dict to unpack): this loop runs for every run.
    try:
        for handler, hook in entries:
            try:
                if extra:
                    result = hook(
                        handler,
                        serialized,
                        inputs,
                        run_id=run_id,
                        parent_run_id=parent,
                        tags=tags,
                        metadata=metadata,
                        name=name,
                        **extra,
                    )
                else:
                    result = hook(
                        handler,
                        serialized,
                        inputs,
                        run_id=run_id,
                        parent_run_id=parent,
                        tags=tags,
                        metadata=metadata,
                        name=name,
                    )
                if result is not None and is_coroutine(result):
                    run_coroutine(result)
            except Exception as exc:
                handler_failed(handler, event, exc)
    except BaseException as exc:
        # The start reached some handlers only (one raised past `handler_failed`: a closed
        # event stream's collector, a ``raise_error`` handler): the run will not go on, so
        # those that saw it start see it fail.
        _tell_failed_start(run, entries, handler, exc)
        raise


def _told_before(entries: Entries, failed: BaseCallbackHandler) -> set[int]:
    """The ids of the handlers of `entries` that come before `failed`."""
    told: set[int] = set()
    for handler, _ in entries:
        if handler is failed:
            break
        told.add(id(handler))
    return told


def _error_entries(run: RunManager, told: set[int]) -> tuple[str, Entries]:
    """`run`'s error event, and the entries of the handlers in `told` that want it."""
    event = _ERROR.get(run.run_type, "on_chain_error")
    return event, tuple(e for e in run._table.get(event, ()) if id(e[0]) in told)


def _tell_failed_start(
    run: RunManager, entries: Entries, failed: BaseCallbackHandler, error: BaseException
) -> None:
    """Tell the handlers of `entries` before `failed` (whose hook raised) that `run` failed."""
    event, wanted = _error_entries(run, _told_before(entries, failed))
    if wanted:
        call_run_hooks(wanted, event, error, run.run_id, run.parent_run_id, {})


async def atell_start(
    run: RunManager,
    serialized: dict[str, Any] | None,
    inputs: Any,
    extra: dict[str, Any] | None,
) -> None:
    """Async `tell_start`: async hooks are awaited."""
    event = START_EVENT.get(run.run_type, "on_chain_start")
    entries = run._table.get(event)
    if not entries:
        return
    keywords = {
        **(extra or {}),
        "run_id": run.run_id,
        "parent_run_id": run.parent_run_id,
        "tags": run.tags,
        "metadata": run.metadata,
        "name": run.name,
    }
    if run.run_type == "prompt" or run.run_type == "parser":
        keywords["run_type"] = run.run_type
    args = (serialized or {"name": run.name}, inputs)
    told = 0
    try:
        for entry in entries:
            await acall_handlers((entry,), event, args, keywords)
            told += 1
    except BaseException as exc:
        # As in `tell_start`: those that saw the start see the run fail.
        if told:
            error_event = _ERROR.get(run.run_type, "on_chain_error")
            seen = {id(handler) for handler, _ in entries[:told]}
            wanted = tuple(e for e in run._table.get(error_event, ()) if id(e[0]) in seen)
            if wanted:
                await acall_run_hooks(wanted, error_event, exc, run.run_id, run.parent_run_id, {})
        raise
