"""Validating tool arguments with pydantic (the error it raises lives in `leanchain.errors`).

Most tools take a few plain ``str``/``int``/``float``/``bool`` arguments, and a model sends
exactly those. For such a schema (`plain_fields`: no constraints, validators, aliases or
config that could change a value) an input that has exactly the schema's fields, each of its
exact type, is already what pydantic would return, so `validate_args` hands it on without
building the model instance (~1 µs). Any other input, a missing field, an extra key, an int
for a float, a str subclass, goes through pydantic as before.
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias

from pydantic import BaseModel, ValidationError

from leanchain.errors import ToolInputValidationError

__all__ = [
    "PlainFields",
    "ToolInputValidationError",
    "plain_fields",
    "plain_kwargs",
    "text_param",
    "validate_args",
]

PlainFields: TypeAlias = tuple[tuple[str, str, type], ...]
"""``(field, parameter, exact type)`` for each field of a schema pydantic would not change."""

_PLAIN_TYPES: Final = frozenset({str, int, float, bool})
# Config keys that change nothing about how an exact str/int/float/bool validates.
_PLAIN_CONFIG: Final = frozenset(
    {
        "arbitrary_types_allowed",
        "defer_build",
        "extra",
        "frozen",
        "json_schema_extra",
        "populate_by_name",
        "protected_namespaces",
        "strict",
        "title",
        "use_attribute_docstrings",
        "validate_assignment",
    }
)


def _plain_model(model: type[BaseModel]) -> bool:
    """Whether `model` validates its fields and nothing else (no hooks of its own)."""
    decorators = model.__pydantic_decorators__
    return (
        model.__pydantic_complete__
        and not model.__pydantic_root_model__
        and model.__pydantic_post_init__ is None
        and not (
            decorators.validators
            or decorators.field_validators
            or decorators.root_validators
            or decorators.model_validators
        )
        and model.model_validate.__func__ is BaseModel.model_validate.__func__  # type: ignore[attr-defined]
        and model.__get_pydantic_core_schema__.__func__  # type: ignore[attr-defined]
        is BaseModel.__get_pydantic_core_schema__.__func__  # type: ignore[attr-defined]
        and set(model.model_config) <= _PLAIN_CONFIG
    )


def plain_fields(model: type[BaseModel], names: tuple[tuple[str, str], ...]) -> PlainFields | None:
    """The fields of `model` when an exact-typed input needs no validation, else ``None``.

    Every field must be a plain ``str``, ``int``, ``float`` or ``bool`` with no constraint
    (string metadata, a description, is not one), no alias and no deprecation, and the model
    must have no validators, no post-init, and no config beyond `_PLAIN_CONFIG`.
    """
    if not _plain_model(model):
        return None
    fields = model.model_fields
    plain: list[tuple[str, str, type]] = []
    for field, param in names:
        info = fields.get(field)
        if (
            info is None
            or info.annotation not in _PLAIN_TYPES
            or info.alias is not None
            or info.validation_alias is not None
            or info.deprecated is not None
            or not all(isinstance(meta, str) for meta in info.metadata)
        ):
            return None
        plain.append((field, param, info.annotation))
    if len(plain) != len(fields):
        return None
    return tuple(plain)


def text_param(plain: PlainFields) -> str | None:
    """The parameter a string input fills: that of the one field of `plain`, if a ``str``.

    A tool reads a string input as its first field's value (`BaseTool._to_args_and_kwargs`);
    when that is the only field, a plain ``str``, an exact ``str`` is what pydantic returns.
    """
    if len(plain) == 1 and plain[0][2] is str:
        return plain[0][1]
    return None


def plain_kwargs(
    plain: PlainFields, tool_input: Any, text: str | None = None
) -> dict[str, Any] | None:
    """The keyword arguments for an input of exactly the `plain` fields and types, else ``None``.

    Such an input is what pydantic would return (see the module docstring), so it is handed
    on as it is; ``None`` means it must be validated. With `text` (`text_param` of `plain`),
    an exact ``str`` input is that parameter's value, as the tool would read it.
    """
    if type(tool_input) is not dict:
        if text is not None and type(tool_input) is str:
            return {text: tool_input}
        return None
    if len(tool_input) != len(plain):
        return None
    kwargs = {}
    for field, param, kind in plain:
        value = tool_input.get(field)  # a missing field reads None: never a plain type
        if type(value) is not kind:
            return None
        kwargs[param] = value
    return kwargs


def validate_args(
    tool_name: str,
    model: type[BaseModel],
    names: tuple[tuple[str, str], ...],
    tool_input: Any,
    plain: PlainFields | None = None,
) -> dict[str, Any]:
    """The keyword arguments for the tool function, validated against `model`.

    Args:
        tool_name: named in the error.
        model: the argument schema.
        names: ``(model field, function parameter)`` pairs; every field is passed, so the
            schema's defaults apply even where the function has none.
        tool_input: the arguments as given (extra keys are ignored).
        plain: `plain_fields` of `model` and `names`: an input of exactly those fields and
            types is passed on as it is (see the module docstring).

    Raises:
        ToolInputValidationError: the arguments do not match the schema.
    """
    if plain is not None:
        kwargs = plain_kwargs(plain, tool_input)
        if kwargs is not None:
            return kwargs
    try:
        result = model.model_validate(tool_input)
    except ValidationError as exc:
        raise ToolInputValidationError(tool_name, exc) from exc
    return {param: getattr(result, field) for field, param in names}
