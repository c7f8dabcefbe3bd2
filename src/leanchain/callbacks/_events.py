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

from leanchain.callbacks._event_types import EventFilter, StreamClosed, StreamEvent
from leanchain.callbacks.base import BaseCallbackHandler

__all__ = ["EventCollector"]


_NAMES = {
    family: (f"on_{family}_start", f"on_{family}_stream", f"on_{family}_end")
    for family in ("chain", "prompt", "parser", "chat_model", "tool", "llm")
}


_UNKNOWN: Any = object()


class _Run:
    """What the collector remembers of a run between its start and its end."""

    __slots__ = (
        "end",
        "id",
        "include",
        "inputs",
        "metadata",
        "name",
        "parent_ids",
        "start",
        "stream",
        "tags",
        "type",
    )

    def __init__(
        self,
        run_id: str,
        name: str,
        run_type: str,
        tags: list[str],
        metadata: dict[str, Any],
        parent_ids: list[str],
        inputs: Any,
        include: bool,
    ) -> None:
        self.id = run_id
        self.name = name
        self.type = run_type
        self.tags = tags
        self.metadata = metadata
        self.parent_ids = parent_ids
        self.inputs = inputs
        self.include = include
        self.start, self.stream, self.end = _NAMES.get(run_type) or _NAMES["chain"]

    def event(self, name: str, data: Any) -> StreamEvent:
        return {
            "event": name,
            "name": self.name,
            "run_id": self.id,
            "parent_ids": self.parent_ids,
            "tags": self.tags,
            "metadata": self.metadata,
            "data": data,
        }


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
        self._runs: dict[UUID, _Run] = {}
        self._root_input = root_input
        self.root: _Run | None = None
        self._root_id: UUID | None = None
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
    ) -> _Run:
        if self.closed:
            raise StreamClosed
        if parent_run_id is None:
            parent_ids: list[str] = []
        else:
            parent = self._runs.get(parent_run_id)
            parent_ids = (
                [*parent.parent_ids, parent.id] if parent is not None else [str(parent_run_id)]
            )
        tags = tags if tags is not None else []
        event_filter = self._filter
        run = _Run(
            str(run_id),
            name,
            run_type,
            tags,
            metadata if metadata is not None else {},
            parent_ids,
            inputs,
            event_filter is None or event_filter.includes(name, run_type, tags),
        )
        self._runs[run_id] = run
        if self.root is None:
            self.root = run
            self._root_id = run_id
            run.inputs = self._root_input
        if run.include:
            data = {} if run.inputs is _UNKNOWN else {"input": run.inputs}
            self._send(run.event(run.start, data))
        return run

    def _end(self, run_id: UUID, output: Any, inputs: Any = None) -> None:
        run = self._runs.pop(run_id, None)
        if run is None or not run.include:
            return
        if run_id is self._root_id:
            data: dict[str, Any] = {"output": output}
        else:
            if inputs is None:
                inputs = {} if run.inputs is _UNKNOWN else run.inputs
            data = {"output": output, "input": inputs}
        self._send(run.event(run.end, data))

    def _stream(self, run_id: UUID, chunk: Any) -> None:
        if self.closed:
            raise StreamClosed
        # Identity: a run's id is the one object its manager passes with every event.
        if run_id is self._root_id:
            self._root_streams = True
        run = self._runs.get(run_id)
        if run is not None and run.include:
            self._send(run.event(run.stream, {"chunk": chunk}))

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
            self._send(root.event(root.stream, {"chunk": chunk}))

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
        **kwargs: Any,
    ) -> None:
        """A chain, prompt or parser run started (a streaming run does not know its input)."""
        run_type = kwargs.get("run_type") or "chain"
        if run_type not in _NAMES:
            run_type = "chain"
        self._start(
            run_id,
            parent_run_id,
            _name(kwargs, serialized),
            run_type,
            tags,
            metadata,
            _UNKNOWN if type(inputs) is str and not inputs else inputs,
        )

    def on_chain_stream(
        self, chunk: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A chain run produced `chunk`."""
        self._stream(run_id, chunk)

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A chain run ended; a streaming run says its summed input here."""
        self._end(run_id, outputs, kwargs.get("inputs"))

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Forget the run (the error reaches the consumer as the stream's exception)."""
        self._runs.pop(run_id, None)

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
        """A token: ``on_chat_model_stream`` with the message chunk."""
        if chunk is None:
            from leanchain.messages import AIMessageChunk

            message: Any = AIMessageChunk(content=token)
        else:
            message = getattr(chunk, "message", chunk)
        self._stream(run_id, message)

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
        self._runs.pop(run_id, None)

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
        run = self._runs.pop(run_id, None)
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
        run = self._runs.get(run_id)
        event_tags = list(tags) if tags is not None else []
        if self._filter is not None and not self._filter.includes(name, name, event_tags):
            return
        self._send(
            {
                "event": "on_custom_event",
                "name": name,
                "run_id": str(run_id),
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
