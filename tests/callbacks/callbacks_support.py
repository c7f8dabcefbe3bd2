"""Test doubles for the callback tests: a handler that records every hook, sync and async.

Runs are named by labels (the run's name, then ``name#2``, ``name#3`` for later runs of the
same name), so that an expected trail reads like the run tree it describes.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from leanchain.callbacks import AsyncCallbackHandler, BaseCallbackHandler

START_HOOKS = ("on_chain_start", "on_chat_model_start", "on_tool_start")
HOOKS = (
    *START_HOOKS,
    "on_chain_end",
    "on_chain_error",
    "on_chain_stream",
    "on_llm_new_token",
    "on_llm_end",
    "on_llm_error",
    "on_tool_end",
    "on_tool_error",
    "on_agent_action",
    "on_agent_finish",
    "on_retry",
    "on_text",
    "on_custom_event",
)


@dataclass(frozen=True)
class Hook:
    """One hook call: which hook, about which run, under which parent, with what."""

    hook: str
    run: str
    parent: str | None
    detail: Any = None


@dataclass
class Start:
    """What a start hook said about its run."""

    run_id: UUID
    parent_run_id: UUID | None
    tags: list[str]
    metadata: dict[str, Any]
    kwargs: dict[str, Any] = field(default_factory=dict)


def _detail(hook: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if hook == "on_chain_start":
        return args[1]
    if hook == "on_chat_model_start":
        return args[1]
    if hook == "on_tool_start":
        return kwargs.get("inputs") if kwargs.get("inputs") is not None else args[1]
    if hook == "on_llm_end":
        return args[0].generations[0][0].message
    if hook in ("on_chain_error", "on_llm_error", "on_tool_error"):
        return f"{type(args[0]).__name__}: {args[0]}"
    if hook == "on_agent_action":
        return ("action", args[0].tool, args[0].tool_input)
    if hook == "on_agent_finish":
        return ("finish", args[0].return_values)
    if hook == "on_custom_event":
        return (args[0], args[1])
    if hook == "on_retry":
        return (f"{type(args[0]).__name__}: {args[0]}", kwargs.get("attempt"))
    if hook == "on_llm_new_token":
        return args[0]
    return args[0] if args else None


class Trail:
    """The record shared by `TrailHandler` and `AsyncTrailHandler`."""

    def __init__(self) -> None:
        self.hooks: list[Hook] = []
        self.labels: dict[UUID, str] = {}
        self.starts: dict[str, Start] = {}
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def record(self, hook: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        run_id: UUID = kwargs["run_id"]
        parent_id: UUID | None = kwargs.get("parent_run_id")
        with self._lock:
            if hook in START_HOOKS:
                name = str(kwargs["name"])
                self._counts[name] += 1
                n = self._counts[name]
                self.labels[run_id] = name if n == 1 else f"{name}#{n}"
                self.starts[self.labels[run_id]] = Start(
                    run_id,
                    parent_id,
                    kwargs["tags"],
                    kwargs["metadata"],
                    {k: v for k, v in kwargs.items() if k not in ("tags", "metadata")},
                )
            label = self.labels.get(run_id, str(run_id))
            parent = None if parent_id is None else self.labels.get(parent_id, str(parent_id))
            self.hooks.append(Hook(hook, label, parent, _detail(hook, args, kwargs)))

    def of(self, *hooks: str) -> list[Hook]:
        """The recorded calls of these hooks, in order."""
        return [h for h in self.hooks if h.hook in hooks]

    def tree(self) -> dict[str, str | None]:
        """Each run's parent, by label."""
        return {label: self.parent_of(label) for label in self.starts}

    def parent_of(self, label: str) -> str | None:
        """The label of `label`'s parent run."""
        parent = self.starts[label].parent_run_id
        return None if parent is None else self.labels[parent]


def _sync_hook(name: str) -> Any:
    def hook(self: TrailHandler, *args: Any, **kwargs: Any) -> None:
        self.trail.record(name, args, kwargs)

    hook.__name__ = name
    return hook


def _async_hook(name: str) -> Any:
    async def hook(self: AsyncTrailHandler, *args: Any, **kwargs: Any) -> None:
        self.trail.record(name, args, kwargs)

    hook.__name__ = name
    return hook


class TrailHandler(BaseCallbackHandler):
    """Records every hook into `trail`; ``wants_tokens`` makes invoked models stream."""

    def __init__(self, trail: Trail | None = None, *, wants_tokens: bool = False) -> None:
        self.trail = trail if trail is not None else Trail()
        self.wants_tokens = wants_tokens


class AsyncTrailHandler(AsyncCallbackHandler):
    """`TrailHandler` with coroutine hooks."""

    def __init__(self, trail: Trail | None = None, *, wants_tokens: bool = False) -> None:
        self.trail = trail if trail is not None else Trail()
        self.wants_tokens = wants_tokens


for _name in HOOKS:
    setattr(TrailHandler, _name, _sync_hook(_name))
    setattr(AsyncTrailHandler, _name, _async_hook(_name))
