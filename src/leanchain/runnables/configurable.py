"""Runnables chosen or re-parameterised per call from ``config["configurable"]``.

`configurable_fields` makes attributes settable per call (``temperature``, ``prompt``...);
`configurable_alternatives` swaps in a whole other runnable by key. Both return a
`DynamicRunnable`, which decides at call time which concrete runnable to run and delegates
to it, adding nothing to the call itself.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from leanchain.runnables._configurable_specs import (
    AnyConfigurableField,
    ConfigurableField,
    ConfigurableFieldMultiOption,
    ConfigurableFieldSingleOption,
    ConfigurableFieldSpec,
    config_specs_of,
    get_unique_config_specs,
    keys_enum,
    prefixed_spec,
)
from leanchain.runnables._dynamic import DynamicRunnable
from leanchain.runnables.base import Input, Output, Runnable
from leanchain.runnables.config import RunnableConfig

if TYPE_CHECKING:
    pass

__all__ = [
    "AnyConfigurableField",
    "ConfigurableField",
    "ConfigurableFieldMultiOption",
    "ConfigurableFieldSingleOption",
    "ConfigurableFieldSpec",
    "DynamicRunnable",
    "RunnableConfigurableAlternatives",
    "RunnableConfigurableFields",
    "config_specs_of",
    "configurable_alternatives",
    "configurable_fields",
    "get_unique_config_specs",
]


def _attributes(runnable: Runnable[Any, Any]) -> list[str]:
    """The public attributes of a runnable: its ``__slots__`` along the MRO, then its dict."""
    names: dict[str, None] = {}
    for klass in reversed(type(runnable).__mro__):
        slots = klass.__dict__.get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if not slot.startswith("_"):
                names[slot] = None
    for attr in getattr(runnable, "__dict__", {}):
        if not attr.startswith("_"):
            names[attr] = None
    return list(names)


class RunnableConfigurableFields(DynamicRunnable[Input, Output]):
    """The default runnable, copied with the attribute values a call configures."""

    __slots__ = ("fields",)

    def __init__(
        self, default: Runnable[Input, Output], fields: Mapping[str, AnyConfigurableField]
    ) -> None:
        super().__init__(default)
        self.fields = dict(fields)

    def __repr__(self) -> str:
        return f"RunnableConfigurableFields(default={self.default!r}, fields={self.fields!r})"

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """One spec per field (its current value as the default), then the default's specs."""
        specs: list[ConfigurableFieldSpec] = []
        for attr, field in self.fields.items():
            if isinstance(field, ConfigurableField):
                current = getattr(self.default, attr)
                annotation = field.annotation or (Any if current is None else type(current))
                specs.append(
                    ConfigurableFieldSpec(
                        id=field.id,
                        annotation=annotation,
                        name=field.name,
                        description=field.description,
                        default=current,
                        is_shared=field.is_shared,
                    )
                )
                continue
            enum = keys_enum(field.name or field.id, field.options)
            multi = isinstance(field, ConfigurableFieldMultiOption)
            specs.append(
                ConfigurableFieldSpec(
                    id=field.id,
                    annotation=Sequence[enum] if multi else enum,  # type: ignore[valid-type]
                    name=field.name,
                    description=field.description,
                    default=field.default,
                    is_shared=field.is_shared,
                )
            )
        return get_unique_config_specs([*specs, *config_specs_of(self.default)])

    def configurable_fields(self, **fields: Any) -> Runnable[Input, Output]:
        """The default made configurable in these fields as well as the present ones."""
        return configurable_fields(self.default, **{**self.fields, **fields})

    def _prepare(self, config: RunnableConfig) -> tuple[Runnable[Input, Output], RunnableConfig]:
        values = config.get("configurable") or {}
        changes: dict[str, Any] = {}
        for attr, field in self.fields.items():
            if isinstance(field, ConfigurableField):
                if field.id in values:
                    changes[attr] = values[field.id]
            elif isinstance(field, ConfigurableFieldSingleOption):
                changes[attr] = _option(field, values.get(field.id) or field.default)
            else:
                changes[attr] = [_option(field, key) for key in values.get(field.id, field.default)]
        if not changes:
            return self.default, config
        configured = copy.copy(self.default)
        for attr, value in changes.items():
            setattr(configured, attr, value)
        return configured, config


def _option(field: ConfigurableFieldSingleOption | ConfigurableFieldMultiOption, key: str) -> Any:
    try:
        return field.options[key]
    except KeyError:
        raise ValueError(
            f"Unknown option {key!r} for {field.id!r}: expected one of {list(field.options)}"
        ) from None


class RunnableConfigurableAlternatives(DynamicRunnable[Input, Output]):
    """The default runnable, or the alternative a call names under ``which.id``."""

    __slots__ = ("alternatives", "default_key", "prefix_keys", "which")

    def __init__(
        self,
        default: Runnable[Input, Output],
        which: ConfigurableField,
        alternatives: Mapping[str, Runnable[Input, Output] | Callable[[], Runnable[Input, Output]]],
        *,
        default_key: str = "default",
        prefix_keys: bool = False,
    ) -> None:
        super().__init__(default)
        self.which = which
        self.alternatives = dict(alternatives)
        self.default_key = default_key
        self.prefix_keys = prefix_keys

    def __repr__(self) -> str:
        keys = [self.default_key, *self.alternatives]
        return f"RunnableConfigurableAlternatives(which={self.which.id!r}, keys={keys!r})"

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The choice itself (an enum of the keys), then the alternatives' own specs."""
        which = self.which
        enum = keys_enum(which.name or which.id, [*self.alternatives, self.default_key])
        specs = [
            ConfigurableFieldSpec(
                id=which.id,
                annotation=enum,
                name=which.name,
                description=which.description,
                default=self.default_key,
                is_shared=which.is_shared,
            )
        ]
        choices: list[tuple[str, Any]] = [(self.default_key, self.default)]
        choices.extend(self.alternatives.items())
        for key, runnable in choices:
            if not isinstance(runnable, Runnable):
                continue
            for spec in config_specs_of(runnable):
                specs.append(
                    prefixed_spec(spec, f"{which.id}=={key}") if self.prefix_keys else spec
                )
        return get_unique_config_specs(specs)

    def configurable_fields(self, **fields: Any) -> Runnable[Input, Output]:
        """The same alternatives, with the default made configurable in these fields."""
        return RunnableConfigurableAlternatives(
            configurable_fields(self.default, **fields),
            self.which,
            self.alternatives,
            default_key=self.default_key,
            prefix_keys=self.prefix_keys,
        )

    def _prepare(self, config: RunnableConfig) -> tuple[Runnable[Input, Output], RunnableConfig]:
        values = config.get("configurable") or {}
        which = values.get(self.which.id, self.default_key)
        if self.prefix_keys:
            prefix = f"{self.which.id}=={which}/"
            remapped = {key.removeprefix(prefix): value for key, value in values.items()}
            config = cast(RunnableConfig, {**config, "configurable": remapped})
        if which == self.default_key:
            return self.default, config
        if which not in self.alternatives:
            raise ValueError(f"Unknown alternative: {which}")
        alternative = self.alternatives[which]
        if isinstance(alternative, Runnable):
            return alternative, config
        return alternative(), config


def configurable_fields(
    runnable: Runnable[Input, Output], **fields: AnyConfigurableField
) -> Runnable[Input, Output]:
    """`runnable`, with the named attributes settable per call.

    Raises:
        ValueError: a name that is not one of the runnable's attributes.
        TypeError: a value that is not a configurable field or option.
    """
    if isinstance(runnable, DynamicRunnable):
        return runnable.configurable_fields(**fields)
    available = _attributes(runnable)
    for key, field in fields.items():
        if key not in available:
            raise ValueError(
                f"Configuration key {key} not found in {runnable}: "
                f"available keys are {dict.fromkeys(available).keys()}"
            )
        if not isinstance(
            field, ConfigurableField | ConfigurableFieldSingleOption | ConfigurableFieldMultiOption
        ):
            raise TypeError(
                f"Configuration key {key} must be a ConfigurableField, "
                f"ConfigurableFieldSingleOption or ConfigurableFieldMultiOption, not {type(field)}"
            )
    return RunnableConfigurableFields(runnable, fields)


def configurable_alternatives(
    runnable: Runnable[Input, Output],
    which: ConfigurableField,
    *,
    default_key: str = "default",
    prefix_keys: bool = False,
    **alternatives: Runnable[Input, Output] | Callable[[], Runnable[Input, Output]],
) -> Runnable[Input, Output]:
    """`runnable`, or one of `alternatives` when a call sets ``configurable[which.id]``.

    Raises:
        TypeError: `which` is not a `ConfigurableField`, or an alternative is neither a
            runnable nor a factory of one.
        ValueError: an alternative is named like the default.
    """
    if not isinstance(which, ConfigurableField):
        raise TypeError(f"which must be a ConfigurableField, not {type(which)}")
    for key, alternative in alternatives.items():
        if not isinstance(alternative, Runnable) and not callable(alternative):
            raise TypeError(
                f"Alternative {key} must be a Runnable or a function that returns one, "
                f"not {type(alternative)}"
            )
    if default_key in alternatives:
        raise ValueError(f"Alternative {default_key} has the same key as the default")
    return RunnableConfigurableAlternatives(
        runnable, which, alternatives, default_key=default_key, prefix_keys=prefix_keys
    )
