"""The executor's hook table: for each hook, the middleware that override it, read once.

The loop asks the table (``if hooks.after_step: ...``) and never looks at a middleware that
does not use a hook; with no middleware every entry is empty and the loop runs as if the
layer did not exist.
"""

from __future__ import annotations

from collections.abc import Sequence

from leanchain.agents.middleware._base import HOOKS, AgentMiddleware, overrides
from leanchain.errors import AgentConfigurationError

__all__ = ["HookTable"]


class HookTable:
    """Which middleware override which hook, in the executor's order; and their state keys."""

    __slots__ = (
        "after_agent",
        "after_model",
        "after_step",
        "any",
        "before_agent",
        "before_model",
        "keys",
        "middleware",
        "sync_gaps",
        "wrap_model_call",
        "wrap_tool_call",
    )

    def __init__(self, middleware: Sequence[AgentMiddleware]) -> None:
        for m in middleware:
            if not isinstance(m, AgentMiddleware):
                raise AgentConfigurationError(
                    f"middleware must be AgentMiddleware instances, got {type(m).__name__}: {m!r}"
                )
        self.middleware = tuple(middleware)
        self.before_agent = self._users("before_agent")
        self.after_agent = self._users("after_agent")
        self.before_model = self._users("before_model")
        self.wrap_model_call = self._users("wrap_model_call")
        self.after_model = self._users("after_model")
        self.wrap_tool_call = self._users("wrap_tool_call")
        self.after_step = self._users("after_step")
        self.any = bool(self.middleware)
        self.keys = _state_keys(self.middleware)
        self.sync_gaps = tuple(
            f"{type(m).__name__}.a{hook}"
            for m in self.middleware
            for hook in HOOKS
            if getattr(type(m), hook) is getattr(AgentMiddleware, hook)
            and getattr(type(m), "a" + hook) is not getattr(AgentMiddleware, "a" + hook)
        )

    def _users(self, hook: str) -> tuple[AgentMiddleware, ...]:
        return tuple(m for m in self.middleware if overrides(m, hook))

    def check_sync(self) -> None:
        """Refuse a sync run when a middleware has only the async form of a hook.

        Raises:
            AgentConfigurationError: names the async-only hooks.
        """
        if self.sync_gaps:
            raise AgentConfigurationError(
                f"These middleware hooks are async only, so this executor can only run with "
                f"ainvoke/astream/astream_events: {list(self.sync_gaps)}; define the sync "
                "hook too"
            )


def _state_keys(middleware: tuple[AgentMiddleware, ...]) -> dict[int, str]:
    """Each middleware's key in a run's state: its name, numbered from the second of a name.

    Keys depend only on the list's order and names, so a run saved by one process is resumed
    by another executor built the same way.
    """
    keys: dict[int, str] = {}
    seen: dict[str, int] = {}
    for m in middleware:
        name = m.name or type(m).__name__
        seen[name] = count = seen.get(name, 0) + 1
        keys[id(m)] = name if count == 1 else f"{name}#{count}"
    return keys
