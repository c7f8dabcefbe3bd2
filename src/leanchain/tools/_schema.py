"""Argument schemas inferred from a function's signature, type hints and docstring.

The schema is a pydantic model named after the tool, with one field per argument the model
should supply. Parameters that leanchain fills in itself — ``config`` (or any parameter typed
`RunnableConfig`), ``callbacks`` and ``run_manager`` — and ``*args``/``**kwargs`` are left out.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from leanchain.runnables.config import RunnableConfig
from leanchain.tools._docstring import parse_google_docstring

__all__ = ["FunctionInfo", "create_schema_from_function", "inspect_function"]

FILTERED_ARGS = frozenset({"run_manager", "callbacks"})
_SKIPPED_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


@dataclass(frozen=True, slots=True)
class FunctionInfo:
    """What a tool function wants besides its arguments, read once when the tool is built."""

    config_param: str | None
    """The parameter that receives the run's config, if any."""
    wants_callbacks: bool
    """The function declares ``callbacks`` (it gets a manager for child runs)."""
    wants_run_manager: bool
    """The function declares ``run_manager`` (it gets the tool's own run, or ``None``)."""


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(func, include_extras=True)
    except NameError as exc:
        name = getattr(func, "__qualname__", repr(func))
        raise TypeError(
            f"Cannot build an argument schema for {name}: its type hints cannot be resolved "
            f"({exc}). Define the types at module level or pass args_schema explicitly."
        ) from exc
    except TypeError:  # a callable object without annotations get_type_hints understands
        return {}


def _parameters(func: Callable[..., Any]) -> list[inspect.Parameter]:
    params = list(inspect.signature(func).parameters.values())
    qualname = getattr(func, "__qualname__", "") or ""
    if params and params[0].name in ("self", "cls") and "." in qualname:
        params = params[1:]
    return params


def _is_config_type(hint: Any) -> bool:
    return hint is RunnableConfig or RunnableConfig in typing.get_args(hint)


def _config_param(params: list[inspect.Parameter], hints: dict[str, Any]) -> str | None:
    """The parameter that receives the run's config.

    One typed `RunnableConfig` (or ``RunnableConfig | None``), whatever its name, or one
    called ``config`` with no type or ``Any``. A ``config: str`` stays an argument the model
    fills in.
    """
    for param in params:
        hint = hints.get(param.name, Any)
        if _is_config_type(hint) or (param.name == "config" and hint is Any):
            return param.name
    return None


def inspect_function(func: Callable[..., Any]) -> FunctionInfo:
    """Which of leanchain's own values `func` wants injected."""
    try:
        params = _parameters(func)
    except (TypeError, ValueError):
        return FunctionInfo(None, wants_callbacks=False, wants_run_manager=False)
    names = {p.name for p in params}
    try:
        hints = _type_hints(func)
    except TypeError:  # unresolvable hints: a parameter called config is taken as the config
        hints = {}
    return FunctionInfo(
        config_param=_config_param(params, hints),
        wants_callbacks="callbacks" in names,
        wants_run_manager="run_manager" in names,
    )


def _annotation_description(annotation: Any) -> str | None:
    """The first string in ``Annotated[T, "text", ...]`` metadata."""
    if typing.get_origin(annotation) is Annotated:
        for meta in annotation.__metadata__:
            if isinstance(meta, str):
                return meta
    return None


def _field_name(param: str, taken: set[str]) -> str:
    """A pydantic-safe field name for `param` (which becomes the field's alias)."""
    if not (param.startswith("_") or param.startswith("model_") or hasattr(BaseModel, param)):
        return param
    base = f"arg_{param.lstrip('_')}"
    name = base
    while name in taken:
        name += "_"
    return name


def create_schema_from_function(
    model_name: str,
    func: Callable[..., Any],
    *,
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = False,
) -> tuple[type[BaseModel], tuple[tuple[str, str], ...]]:
    """A pydantic model of `func`'s arguments, and its ``(field, parameter)`` name pairs.

    The model's title is `model_name`; its description is the whole docstring, or with
    `parse_docstring` the docstring's description without the ``Args:`` section. Argument
    descriptions come from the ``Args:`` section (with `parse_docstring`) or from string
    metadata in ``Annotated[T, "description"]``.

    Raises:
        ValueError: with `parse_docstring`, the docstring documents an argument the function
            does not have, or (with `error_on_invalid_docstring`) it has no ``Args:`` section.
        TypeError: the type hints cannot be resolved.
    """
    hints = _type_hints(func)
    params = _parameters(func)
    config_param = _config_param(params, hints)
    arg_params = [
        p
        for p in params
        if p.kind not in _SKIPPED_KINDS and p.name not in FILTERED_ARGS and p.name != config_param
    ]
    docstring = inspect.getdoc(func)
    if parse_docstring:
        description, arg_descriptions = parse_google_docstring(
            docstring, [p.name for p in arg_params], error_on_invalid=error_on_invalid_docstring
        )
        known = {p.name for p in params}
        for documented in arg_descriptions:
            if documented not in known:
                raise ValueError(f"Arg {documented} in docstring not found in function signature.")
    else:
        description, arg_descriptions = docstring or "", {}

    fields: dict[str, Any] = {}
    pairs: list[tuple[str, str]] = []
    taken = {p.name for p in arg_params}
    for param in arg_params:
        annotation = hints.get(param.name, Any)
        kwargs: dict[str, Any] = {}
        text = arg_descriptions.get(param.name) or _annotation_description(annotation)
        if text:
            kwargs["description"] = text
        if param.default is not inspect.Parameter.empty:
            kwargs["default"] = param.default
        field = _field_name(param.name, taken)
        if field != param.name:
            kwargs["alias"] = param.name
            taken.add(field)
        fields[field] = (annotation, Field(**kwargs))
        pairs.append((field, param.name))
    model: type[BaseModel] = create_model(
        model_name,
        __config__=ConfigDict(arbitrary_types_allowed=True),
        __doc__=description or None,
        **fields,
    )
    return model, tuple(pairs)
