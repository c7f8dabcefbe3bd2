"""`RunnableConfig` and how it travels down a call tree.

A config is passed explicitly from parent to child, and is also published in a context
variable while user code runs (a lambda, a tool, a generator), so that a runnable invoked from
inside that code without a config inherits its parent's tags, metadata, callbacks and limits.

Configs are never mutated: every change makes a new dict. On the fast path (no callbacks, no
run name) a parent hands its own config object to its children unchanged.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, Final, TypedDict, cast
from uuid import UUID

from leanchain.callbacks.defaults import DEFAULT_HANDLERS, with_default_handlers

if TYPE_CHECKING:
    from leanchain.callbacks.manager import Callbacks

__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "RunnableConfig",
    "config_for_user_code",
    "current_config",
    "ensure_config",
    "get_config",
    "get_config_list",
    "merge_configs",
    "patch_config",
    "reset_config_context",
    "set_config_context",
]

DEFAULT_RECURSION_LIMIT = 25


class RunnableConfig(TypedDict, total=False):
    """Options for one call of a runnable; every key is optional."""

    tags: list[str]
    """Labels for this run and every run below it."""
    metadata: dict[str, Any]
    """Free-form data for this run and every run below it."""
    callbacks: Callbacks
    """Handlers (or a manager) that observe this run and its children."""
    run_name: str
    """A name for this run only; children keep their own names."""
    max_concurrency: int | None
    """The most work items that run at once anywhere in this call tree."""
    recursion_limit: int
    """How many times a lambda may return a runnable to be run in its place (default 25)."""
    configurable: dict[str, Any]
    """Values for configurable fields and alternatives, by id."""
    run_id: UUID | None
    """The id for this run only (children get fresh ids)."""


CONFIG_KEYS = frozenset(RunnableConfig.__annotations__)
_EMPTY: RunnableConfig = {}
_PER_RUN_KEYS = ("run_name", "run_id")

_current: ContextVar[RunnableConfig | None] = ContextVar("leanchain_config", default=None)


def get_config() -> RunnableConfig:
    """The config of the runnable whose user code is running now (empty outside any run)."""
    return _current.get() or _EMPTY


def current_config() -> RunnableConfig | None:
    """The config of the run whose user code is running now, or ``None`` outside any run
    (where `get_config` gives an empty config): how code tells whether it runs inside one."""
    return _current.get()


set_config_context: Final[Callable[[RunnableConfig], Token[RunnableConfig | None]]] = _current.set
"""Publish `config` to code called from here; returns the token for `reset_config_context`.
(The context variable's own method: every runnable call goes through it, and a function
around it would cost a frame each time.)"""

reset_config_context: Final[Callable[[Token[RunnableConfig | None]], None]] = _current.reset
"""Undo `set_config_context` (the context variable's own method, as above)."""


def ensure_config(config: RunnableConfig | None = None) -> RunnableConfig:
    """The effective config: the given one laid over the one inherited from the context.

    Keys of the given config replace inherited ones (LangChain's behaviour). Unknown top-level
    keys move into ``configurable``. The result must be treated as read-only.
    """
    parent = _current.get()
    if config is None:
        if parent is not None:
            return parent
        return with_default_handlers(_EMPTY) if DEFAULT_HANDLERS else _EMPTY
    if parent is not None and parent is not config:
        inherited = {k: v for k, v in parent.items() if k not in _PER_RUN_KEYS and v is not None}
        config = cast(RunnableConfig, {**inherited, **config})
    if config:  # (an empty config, the common one, has nothing to move)
        if not CONFIG_KEYS.issuperset(config):
            config = _move_unknown_keys(config)
        configurable = config.get("configurable")
        if configurable and ("model" in configurable or "checkpoint_ns" in configurable):
            config = _model_into_metadata(config, configurable)
    # Handlers registered for every run (`leanchain.tracing.instrument`) join each root run.
    return with_default_handlers(config) if DEFAULT_HANDLERS else config


def config_for_user_code(config: RunnableConfig) -> RunnableConfig:
    """`config` as a function, tool or listener that asks for it receives it: with ``tags``,
    ``metadata`` and ``configurable`` always there (empty when unset) and ``recursion_limit``,
    as LangChain hands them, so that ``config["configurable"]["user_id"]`` reads a value or
    raises about the key, never about a missing dict.

    A copy when a key is missing; the runs themselves keep the lean config (no copies on the
    fast path), only user code that declares a ``config`` parameter pays for this one.
    """
    if (
        config.get("tags") is not None
        and config.get("metadata") is not None
        and config.get("configurable") is not None
        and "recursion_limit" in config
    ):
        return config
    full = dict(config)
    full["tags"] = config.get("tags") or []
    full["metadata"] = config.get("metadata") or {}
    full["configurable"] = config.get("configurable") or {}
    full.setdefault("recursion_limit", DEFAULT_RECURSION_LIMIT)
    return cast(RunnableConfig, full)


def _model_into_metadata(config: RunnableConfig, configurable: dict[str, Any]) -> RunnableConfig:
    """Copy string ``model``/``checkpoint_ns`` configurables into metadata (as LangChain does,
    so traces show them), unless metadata already has them."""
    metadata = config.get("metadata") or {}
    extra = {
        key: configurable[key]
        for key in ("model", "checkpoint_ns")
        if isinstance(configurable.get(key), str) and key not in metadata
    }
    if not extra:
        return config
    return cast(RunnableConfig, {**config, "metadata": {**metadata, **extra}})


def _move_unknown_keys(config: RunnableConfig) -> RunnableConfig:
    known: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in config.items():
        (known if key in CONFIG_KEYS else extra)[key] = value
    known["configurable"] = {**extra, **known.get("configurable", {})}
    return known  # type: ignore[return-value]


def strip_run_keys(config: RunnableConfig) -> RunnableConfig:
    """The config for a child: ``run_name`` and ``run_id`` belong to the parent run only."""
    if "run_name" in config or "run_id" in config:
        return {k: v for k, v in config.items() if k not in _PER_RUN_KEYS}  # type: ignore[return-value]
    return config


def patch_config(
    config: RunnableConfig | None,
    *,
    callbacks: Callbacks | None = None,
    recursion_limit: int | None = None,
    max_concurrency: int | None = None,
    run_name: str | None = None,
    configurable: dict[str, Any] | None = None,
) -> RunnableConfig:
    """A copy of `config` with the given keys replaced (``configurable`` is merged).

    Replacing callbacks drops ``run_name`` and ``run_id``: they named the original run only.
    """
    patched: dict[str, Any] = dict(ensure_config(config))
    if callbacks is not None:
        patched["callbacks"] = callbacks
        patched.pop("run_name", None)
        patched.pop("run_id", None)
    if recursion_limit is not None:
        patched["recursion_limit"] = recursion_limit
    if max_concurrency is not None:
        patched["max_concurrency"] = max_concurrency
    if run_name is not None:
        patched["run_name"] = run_name
    if configurable is not None:
        patched["configurable"] = {**patched.get("configurable", {}), **configurable}
    return patched  # type: ignore[return-value]


def merge_configs(*configs: RunnableConfig | None) -> RunnableConfig:
    """Merge configs left to right: tags union (sorted), metadata and configurable update,
    callbacks concatenate, a non-default recursion limit wins, other keys: last set value wins.
    """
    from leanchain.callbacks.manager import merge_callbacks

    merged: dict[str, Any] = {}
    for config in configs:
        if not config:
            continue
        items: dict[str, Any] = dict(ensure_config(config))
        for key, value in items.items():
            if key == "tags":
                merged["tags"] = sorted(set(merged.get("tags", [])) | set(value or []))
            elif key in ("metadata", "configurable"):
                merged[key] = {**merged.get(key, {}), **(value or {})}
            elif key == "callbacks":
                merged["callbacks"] = merge_callbacks(merged.get("callbacks"), value)
            elif key == "recursion_limit":
                if value != DEFAULT_RECURSION_LIMIT:
                    merged["recursion_limit"] = value
            elif value is not None or key not in merged:
                merged[key] = value
    return merged  # type: ignore[return-value]


def get_config_list(
    config: RunnableConfig | Sequence[RunnableConfig] | None, length: int
) -> list[RunnableConfig]:
    """One config per input of a batch.

    Raises:
        ValueError: a list of configs whose length differs from the number of inputs.
    """
    if length < 0:
        raise ValueError(f"length must be >= 0, but got {length}")
    if isinstance(config, Sequence):
        if len(config) != length:
            raise ValueError(
                "config must be a list of the same length as inputs, "
                f"but got {len(config)} configs for {length} inputs"
            )
        return [ensure_config(c) for c in config]
    single = ensure_config(config)
    if length > 1 and single.get("run_id") is not None:
        warnings.warn(
            "Provided run_id be used only for the first element of the batch.",
            category=RuntimeWarning,
            stacklevel=3,
        )
        rest: RunnableConfig = {k: v for k, v in single.items() if k != "run_id"}  # type: ignore[assignment]
        return [single] + [rest] * (length - 1)
    return [single] * length
