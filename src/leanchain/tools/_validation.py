"""Validating tool arguments with pydantic (the error it raises lives in `leanchain.errors`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from leanchain.errors import ToolInputValidationError

__all__ = ["ToolInputValidationError", "validate_args"]


def validate_args(
    tool_name: str,
    model: type[BaseModel],
    names: tuple[tuple[str, str], ...],
    tool_input: Any,
) -> dict[str, Any]:
    """The keyword arguments for the tool function, validated against `model`.

    Args:
        tool_name: named in the error.
        model: the argument schema.
        names: ``(model field, function parameter)`` pairs; every field is passed, so the
            schema's defaults apply even where the function has none.
        tool_input: the arguments as given (extra keys are ignored).

    Raises:
        ToolInputValidationError: the arguments do not match the schema.
    """
    try:
        result = model.model_validate(tool_input)
    except ValidationError as exc:
        raise ToolInputValidationError(tool_name, exc) from exc
    return {param: getattr(result, field) for field, param in names}
