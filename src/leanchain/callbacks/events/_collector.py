"""Stream events (LangChain's ``astream_events`` v2 shape) and the handler that makes them.

`EventCollector` turns the callbacks of one run tree into `StreamEvent` dicts and hands each
to a ``send`` function (a queue's ``put``). Events carry the run's objects as they are:
nothing is serialised, so nothing can be revived from data (the incumbent's event log was
on the path of CVE-2025-68664 and CVE-2026-44843).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from leanchain.callbacks._run_ids import run_id_str
from leanchain.callbacks.base import BaseCallbackHandler
from leanchain.callbacks.events._run import CHAIN_EVENTS, EVENT_NAMES, UNKNOWN, EventRun, event_of
from leanchain.callbacks.events._types import EventFilter, StreamClosed, StreamEvent

__all__ = ["EventCollector"]

_new_object = object.__new__


class EventCollector(BaseCallbackHandler):
    """A handler that turns a run tree's callbacks into `StreamEvent` dicts.

    The first run to start is the root: its start event carries `root_input` (the caller's
    input), its end event no input, and `root_chunk` reports the root's output chunks when
    the root does not stream them itself.

    Args:
        send: called with each event that passes the filter, from whichever thread runs.
        event_filter: which runs' events to send (``None``: all).
        root_input: the input the caller gave.
    """

    wants_tokens = True
    """Chat models stream even when invoked, so that their tokens become events."""
    _hooks_fixed = True
    """One is made per event stream: its dispatch table is read once for the class."""

    def __init__(
        self,
        send: Callable[[StreamEvent], object],
        event_filter: EventFilter | None,
        root_input: Any,
    ) -> None:
        self._send = send
        self._filter = event_filter
        # Keyed by the ids' ints: a `UUID` hashes in Python code, an int in C.
        self._runs: dict[int, EventRun] = {}
        self._root_input = root_input
        self.root: EventRun | None = None
        self._root_id: int | None = None
        self._root_streams = False
        self._tapping: bool | None = None
        self.closed = False
        """Set when the consumer has gone: the next event stops the run."""
        self.reached_out = False
        """Set when a chat model or a tool run starts: what a consumer wants to see live."""

    # -- bookkeeping ------------------------------------------------------------------------

    def root_chunk(self, chunk: Any) -> None:
        """The root produced `chunk`: report it unless the root streams its chunks itself.

        Decided at the first chunk, as LangChain does: when the root had not reported a
        chunk by then (and had not ended), every chunk of the root is reported from here.
        """
        if self.closed:
            raise StreamClosed
        if self._tapping is None:
            self._tapping = (
                not self._root_streams and self._root_id is not None and self._root_id in self._runs
            )
        root = self.root
        if self._tapping and root is not None and root.included:
            self._send(event_of(root, root.events[1], {"chunk": chunk}))

    # -- the handler protocol ---------------------------------------------------------------

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        run_type: str | None = None,
        **kwargs: Any,
    ) -> None:
        """A run started: a chain, prompt or parser (a streaming one does not know its input
        yet), or, through their own hooks, a chat model or a tool."""
        # Every run starts here, written out: `name` and `run_type` are parameters so that
        # no keyword dict is filled on every run.
        if self.closed:
            raise StreamClosed
        if run_type is None or (events := EVENT_NAMES.get(run_type)) is None:
            run_type, events = "chain", CHAIN_EVENTS
        if not name:
            name = _name(kwargs, serialized)
        runs = self._runs
        if parent_run_id is None:
            parent_ids: list[str] = []
        else:
            parent = runs.get(parent_run_id.int)
            parent_ids = (
                [*parent.parent_ids, parent.run_id] if parent else [run_id_str(parent_run_id)]
            )
        if tags is None:
            tags = []
        if metadata is None:
            metadata = {}
        is_root = self.root is None
        if is_root:
            inputs = self._root_input
        elif type(inputs) is str and not inputs and run_type != "tool":
            inputs = UNKNOWN
        event_filter = self._filter
        include = event_filter is None or event_filter.includes(name, run_type, tags)
        id_str = run_id_str(run_id)
        key = run_id.int
        # One per run, so built field by field: no `__init__` call to pay for (a third less).
        run: EventRun = _new_object(EventRun)
        run.events = events
        run.name = name
        run.run_id = id_str
        run.parent_ids = parent_ids
        run.tags = tags
        run.metadata = metadata
        run.included = include
        run.inputs = inputs
        runs[key] = run
        if is_root:
            self.root, self._root_id = run, key
        if include:
            self._send(
                {
                    "event": events[0],
                    "name": name,
                    "run_id": id_str,
                    "parent_ids": parent_ids,
                    "tags": tags,
                    "metadata": metadata,
                    "data": {} if inputs is UNKNOWN else {"input": inputs},
                }
            )

    def on_chain_stream(
        self, chunk: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A chain run produced `chunk`."""
        if self.closed:
            raise StreamClosed
        key = run_id.int
        if key == self._root_id:
            self._root_streams = True
        run = self._runs.get(key)
        if run is not None and run.included:
            self._send(
                {
                    "event": run.events[1],
                    "name": run.name,
                    "run_id": run.run_id,
                    "parent_ids": run.parent_ids,
                    "tags": run.tags,
                    "metadata": run.metadata,
                    "data": {"chunk": chunk},
                }
            )

    def on_chain_end(
        self,
        outputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        inputs: Any = None,
        **kwargs: Any,
    ) -> None:
        """A run ended (every run ends here); a streaming one says its summed input."""
        key = run_id.int
        run = self._runs.pop(key, None)
        if run is None or not run.included:
            return
        if key == self._root_id:
            data: dict[str, Any] = {"output": outputs}
        else:
            if inputs is None:
                inputs = {} if run.inputs is UNKNOWN else run.inputs
            data = {"output": outputs, "input": inputs}
        self._send(
            {
                "event": run.events[2],
                "name": run.name,
                "run_id": run.run_id,
                "parent_ids": run.parent_ids,
                "tags": run.tags,
                "metadata": run.metadata,
                "data": data,
            }
        )

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Forget the run (the error reaches the consumer as the stream's exception)."""
        self._runs.pop(run_id.int, None)

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
    ) -> None:
        """A chat model run started."""
        self.reached_out = True
        self.on_chain_start(
            serialized,
            {"messages": messages},
            run_id=run_id,
            parent_run_id=parent_run_id,
            tags=tags,
            metadata=metadata,
            name=_name(kwargs, serialized),
            run_type="chat_model",
        )

    def on_llm_new_token(
        self,
        token: str,
        *,
        chunk: Any = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """A token: ``on_chat_model_stream`` with the message chunk (the text when a model
        reports no chunk; the core never imports the message types, DESIGN §1)."""
        message: Any = token if chunk is None else getattr(chunk, "message", chunk)
        self.on_chain_stream(message, run_id=run_id)

    def on_llm_end(
        self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A chat model run ended: its output is the reply message."""
        generations = getattr(response, "generations", None)
        output = generations[0][0].message if generations and generations[0] else {}
        self.on_chain_end(output, run_id=run_id)

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Forget the run."""
        self._runs.pop(run_id.int, None)

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
    ) -> None:
        """A tool run started: its input is the arguments dict, or the input string."""
        self.reached_out = True
        self.on_chain_start(
            serialized,
            input_str if inputs is None else inputs,
            run_id=run_id,
            parent_run_id=parent_run_id,
            tags=tags,
            metadata=metadata,
            name=_name(kwargs, serialized),
            run_type="tool",
        )

    def on_tool_end(
        self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A tool run ended with `output`."""
        self.on_chain_end(output, run_id=run_id)

    def on_tool_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """A tool raised: ``on_tool_error`` with the error and the tool's input."""
        run = self._runs.pop(run_id.int, None)
        if run is not None and run.included:
            self._send(event_of(run, "on_tool_error", {"error": error, "input": run.inputs}))

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
    ) -> None:
        """A retriever run started: its input is the query."""
        self.reached_out = True
        self.on_chain_start(
            serialized,
            query,
            run_id=run_id,
            parent_run_id=parent_run_id,
            tags=tags,
            metadata=metadata,
            name=_name(kwargs, serialized),
            run_type="retriever",
        )

    def on_retriever_end(
        self, documents: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A retriever run ended with its documents."""
        self.on_chain_end(documents, run_id=run_id)

    def on_retriever_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Forget the run."""
        self._runs.pop(run_id.int, None)

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A user event, reported under the run that dispatched it."""
        if self.closed:
            raise StreamClosed
        run = self._runs.get(run_id.int)
        event_tags = list(tags) if tags is not None else []
        if self._filter is not None and not self._filter.includes(name, name, event_tags):
            return
        self._send(
            {
                "event": "on_custom_event",
                "name": name,
                "run_id": run_id_str(run_id),
                "parent_ids": run.parent_ids if run is not None else [],
                "tags": event_tags,
                "metadata": metadata if metadata is not None else {},
                "data": data,
            }
        )


def _name(kwargs: dict[str, Any], serialized: dict[str, Any] | None) -> str:
    name = kwargs.get("name")
    if name:
        return str(name)
    if serialized:
        return str(serialized.get("name") or "Unnamed")
    return "Unnamed"
