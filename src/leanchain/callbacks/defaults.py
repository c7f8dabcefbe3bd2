"""Handlers that observe every run of the process (what `leanchain.tracing.instrument` uses).

`ensure_config` adds them to the config of every root run, so that the whole tree below it
is observed; with none registered it pays one truthiness test of a global list. Runs that
already hang in a run tree (their callbacks are a `CallbackManager`) inherit them from their
root and are left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from leanchain.callbacks.base import BaseCallbackHandler
from leanchain.callbacks.manager import CallbackManager

if TYPE_CHECKING:
    from leanchain.runnables.config import RunnableConfig

__all__ = [
    "DEFAULT_HANDLERS",
    "add_default_handler",
    "default_handlers",
    "remove_default_handler",
    "with_default_handlers",
]

DEFAULT_HANDLERS: list[BaseCallbackHandler] = []
"""The registered handlers; changed in place only, so importers may hold the list itself."""


def add_default_handler(handler: BaseCallbackHandler) -> None:
    """Observe every run that starts from now on with `handler` (once, however often added)."""
    if not any(h is handler for h in DEFAULT_HANDLERS):
        DEFAULT_HANDLERS.append(handler)


def remove_default_handler(handler: BaseCallbackHandler) -> None:
    """Stop observing new runs with `handler` (nothing happens when it was not added)."""
    for i, registered in enumerate(DEFAULT_HANDLERS):
        if registered is handler:
            del DEFAULT_HANDLERS[i]
            return


def default_handlers() -> list[BaseCallbackHandler]:
    """The handlers that observe every run, in the order they were added."""
    return list(DEFAULT_HANDLERS)


def with_default_handlers(config: RunnableConfig) -> RunnableConfig:
    """`config` with the default handlers after its own (unchanged when nothing is missing)."""
    callbacks = config.get("callbacks")
    if isinstance(callbacks, CallbackManager):
        return config
    own = list(callbacks) if callbacks else []
    missing = [h for h in DEFAULT_HANDLERS if not any(h is o for o in own)]
    if not missing:
        return config
    return cast("RunnableConfig", {**config, "callbacks": [*own, *missing]})
