"""The value types of configurable runnables: fields, options, and the specs they publish."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from itertools import groupby
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias, cast

if TYPE_CHECKING:
    from leanchain.runnables.base import Runnable

__all__ = [
    "AnyConfigurableField",
    "ConfigurableField",
    "ConfigurableFieldMultiOption",
    "ConfigurableFieldSingleOption",
    "ConfigurableFieldSpec",
    "config_specs_of",
    "get_unique_config_specs",
    "keys_enum",
    "prefixed_spec",
]


class ConfigurableField(NamedTuple):
    """An attribute whose value a call may set with ``configurable={id: value}``."""

    id: str
    """The key in ``config["configurable"]``."""
    name: str | None = None
    """A display name."""
    description: str | None = None
    """What the field does."""
    annotation: Any | None = None
    """The value's type (defaults to the current value's type)."""
    is_shared: bool = False
    """Whether the value is shared by every runnable that names this id (never prefixed)."""

    def __hash__(self) -> int:
        return hash((self.id, self.annotation))


class ConfigurableFieldSingleOption(NamedTuple):
    """An attribute set per call to one of several named options."""

    id: str
    """The key in ``config["configurable"]``."""
    options: Mapping[str, Any]
    """The values a call may pick from, by key."""
    default: str
    """The key of the option used when the call names none."""
    name: str | None = None
    """A display name."""
    description: str | None = None
    """What the field does."""
    is_shared: bool = False
    """Whether the value is shared by every runnable that names this id."""

    def __hash__(self) -> int:
        return hash((self.id, tuple(self.options), self.default))


class ConfigurableFieldMultiOption(NamedTuple):
    """An attribute set per call to a list of named options."""

    id: str
    """The key in ``config["configurable"]``."""
    options: Mapping[str, Any]
    """The values a call may pick from, by key."""
    default: Sequence[str]
    """The keys of the options used when the call names none."""
    name: str | None = None
    """A display name."""
    description: str | None = None
    """What the field does."""
    is_shared: bool = False
    """Whether the value is shared by every runnable that names this id."""

    def __hash__(self) -> int:
        return hash((self.id, tuple(self.options), tuple(self.default)))


AnyConfigurableField: TypeAlias = (
    ConfigurableField | ConfigurableFieldSingleOption | ConfigurableFieldMultiOption
)


class ConfigurableFieldSpec(NamedTuple):
    """What a runnable accepts in ``config["configurable"]``: one entry of `config_specs`."""

    id: str
    """The key in ``config["configurable"]``."""
    annotation: Any
    """The value's type (an enum of the keys for options and alternatives)."""
    name: str | None = None
    """A display name."""
    description: str | None = None
    """What the field does."""
    default: Any = None
    """The value used when the call gives none."""
    is_shared: bool = False
    """Whether the value is shared by every runnable that names this id."""
    dependencies: list[str] | None = None
    """Ids this one depends on."""


def get_unique_config_specs(specs: Iterable[ConfigurableFieldSpec]) -> list[ConfigurableFieldSpec]:
    """The specs sorted by id, each id once.

    Raises:
        ValueError: two different specs share an id.
    """
    ordered = sorted(specs, key=lambda s: (s.id, *(s.dependencies or [])))
    unique: list[ConfigurableFieldSpec] = []
    for spec_id, group in groupby(ordered, key=lambda s: s.id):
        first, *others = group
        if any(other != first for other in others):
            raise ValueError(f"Conflicting config specs for {spec_id}: {[first, *others]}")
        unique.append(first)
    return unique


def config_specs_of(runnable: Runnable[Any, Any]) -> list[ConfigurableFieldSpec]:
    """The runnable's `config_specs` (every runnable has them; most have none)."""
    return runnable.config_specs


_enums: dict[tuple[str, tuple[str, ...]], type[StrEnum]] = {}
_enums_lock = threading.Lock()


def keys_enum(name: str, keys: Iterable[str]) -> type[StrEnum]:
    """One enum class per (name, keys), so that equal specs compare equal."""
    key = (name, tuple(keys))
    with _enums_lock:
        enum = _enums.get(key)
        if enum is None:
            enum = cast(type[StrEnum], StrEnum(name, [(k, k) for k in key[1]]))
            _enums[key] = enum
    return enum


def prefixed_spec(spec: ConfigurableFieldSpec, prefix: str) -> ConfigurableFieldSpec:
    """`spec` with its id under ``{prefix}/``, unless it is shared."""
    return spec if spec.is_shared else spec._replace(id=f"{prefix}/{spec.id}")
