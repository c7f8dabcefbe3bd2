"""Test doubles for the tool tests: a handler that records tool events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from leanchain.callbacks import AsyncCallbackHandler, BaseCallbackHandler


@dataclass
class ToolEvent:
    """One tool callback event as a handler saw it."""

    kind: str
    run_id: UUID
    parent_run_id: UUID | None
    payload: Any
    extra: dict[str, Any]


class ToolRecorder(BaseCallbackHandler):
    """Records tool and chain starts/ends/errors, in order."""

    def __init__(self) -> None:
        self.events: list[ToolEvent] = []

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
        extra = {"serialized": serialized, "tags": tags, "metadata": metadata, "inputs": inputs}
        self.events.append(
            ToolEvent("tool_start", run_id, parent_run_id, input_str, extra | kwargs)
        )

    def on_tool_end(
        self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self.events.append(ToolEvent("tool_end", run_id, parent_run_id, output, kwargs))

    def on_tool_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self.events.append(ToolEvent("tool_error", run_id, parent_run_id, error, kwargs))

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
        self.events.append(
            ToolEvent("chain_start", run_id, parent_run_id, inputs, {"name": kwargs.get("name")})
        )

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self.events.append(ToolEvent("chain_end", run_id, parent_run_id, outputs, {}))

    def kinds(self) -> list[str]:
        """The event kinds, in order."""
        return [e.kind for e in self.events]


class AsyncToolRecorder(AsyncCallbackHandler):
    """Records tool events from async callbacks."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    async def on_tool_start(
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
        self.events.append(("tool_start", input_str))

    async def on_tool_end(
        self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self.events.append(("tool_end", output))

    async def on_tool_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self.events.append(("tool_error", error))
