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

from leanchain.callbacks._event_run import EVENT_NAMES, UNKNOWN, EventRun
from leanchain.callbacks._event_types import EventFilter, StreamClosed, StreamEvent
from leanchain.callbacks._run_ids import run_id_str
from leanchain.callbacks.base import BaseCallbackHandler

__all__ = ["EventCollector"]


_new_run = object.__new__


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

    # -- bookkeeping ------------------------------------------------------------------------

    def _start(
        self,
        run_id: UUID,
        parent_run_id: UUID | None,
        name: str,
        run_type: str,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
        inputs: Any,
    ) -> EventRun:
        if self.closed:
            raise StreamClosed
        runs = self._runs
        if parent_run_id is None:
            parent_ids: list[str] = []
        else:
            parent = runs.get(parent_run_id.int)
            parent_ids = (
                [*parent.parent_ids, parent.id]
                if parent is not None
                else [run_id_str(parent_run_id)]
            )
        if tags is None:
            tags = []
        if metadata is None:
            metadata = {}
        # One per run: made without `__init__`.
        run: EventRun = _new_run(EventRun)
        run.id = run_id_str(run_id)
        run.name = name
        run.tags = tags
        run.metadata = metadata
        run.parent_ids = parent_ids
        run.events = events = EVENT_NAMES.get(run_type) or EVENT_NAMES["chain"]
        event_filter = self._filter
        run.include = include = event_filter is None or event_filter.includes(name, run_type, tags)
        key = run_id.int
        runs[key] = run
        if self.root is None:
            self.root = run
            self._root_id = key
            inputs = self._root_input
        run.inputs = inputs
        if include:
            self._send(
                {
                    "event": events[0],
                    "name": name,
                    "run_id": run.id,
                    "parent_ids": parent_ids,
                    "tags": tags,
                    "metadata": metadata,
                    "data": {} if inputs is UNKNOWN else {"input": inputs},
                }
            )
        return run

    def _end(self, run_id: UUID, output: Any, inputs: Any = None) -> None:
        key = run_id.int
        run = self._runs.pop(key, None)
        if run is None or not run.include:
            return
        if key == self._root_id:
            data: dict[str, Any] = {"output": output}
        else:
            if inputs is None:
                inputs = {} if run.inputs is UNKNOWN else run.inputs
            data = {"output": output, "input": inputs}
        self._send(
            {
                "event": run.events[2],
                "name": run.name,
                "run_id": run.id,
                "parent_ids": run.parent_ids,
                "tags": run.tags,
                "metadata": run.metadata,
                "data": data,
            }
        )

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
        if self._tapping and root is not None and root.include:
            self._send(root.event(root.events[1], {"chunk": chunk}))

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
        """A chain, prompt or parser run started (a streaming run does not know its input)."""
        # `name` and `run_type` are parameters: no keyword dict to fill on every run.
        if run_type is None or run_type not in EVENT_NAMES:
            run_type = "chain"
        self._start(
            run_id,
            parent_run_id,
            name or _name(kwargs, serialized),
            run_type,
            tags,
            metadata,
            UNKNOWN if type(inputs) is str and not inputs else inputs,
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
        if run is not None and run.include:
            self._send(
                {
                    "event": run.events[1],
                    "name": run.name,
                    "run_id": run.id,
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
        """A chain run ended; a streaming run says its summed input here."""
        self._end(run_id, outputs, inputs)

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
        self._start(
            run_id,
            parent_run_id,
            _name(kwargs, serialized),
            "chat_model",
            tags,
            metadata,
            {"messages": messages},
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
        self._end(run_id, output)

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
        self._start(
            run_id,
            parent_run_id,
            _name(kwargs, serialized),
            "tool",
            tags,
            metadata,
            input_str if inputs is None else inputs,
        )

    def on_tool_end(
        self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A tool run ended with `output`."""
        self._end(run_id, output)

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
        if run is not None and run.include:
            self._send(run.event("on_tool_error", {"error": error, "input": run.inputs}))

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
