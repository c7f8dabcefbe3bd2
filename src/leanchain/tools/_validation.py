"""Validating tool arguments with pydantic, and the error that names what was wrong."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from leanchain.errors import LeanchainError

__all__ = ["ToolInputValidationError", "validate_args"]

_MAX_VALUE_REPR = 80


def _location(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_VALUE_REPR else text[: _MAX_VALUE_REPR - 3] + "..."


def _describe(error: Any) -> str:
    where = _location(tuple(error["loc"]))
    text = error["msg"]
    if error["type"] != "missing":
        text = f"{text} (got {_shown(error['input'])})"
    return f"{where!r}: {text}" if where else text


class ToolInputValidationError(LeanchainError, ValueError):
    """A tool was called with arguments that do not match its schema.

    The message names the tool, each wrong argument and what was expected, e.g.
    ``Tool 'multiply' got invalid arguments: 'b': Input should be a valid integer, unable to
    parse string as an integer (got 'x')``. With ``handle_validation_error`` set on the tool it
    becomes the observation instead of being raised.

    Attributes:
        tool_name: the tool that was called.
        validation_error: pydantic's error (also the ``__cause__``).
    """

    def __init__(self, tool_name: str, validation_error: ValidationError) -> None:
        details = "; ".join(_describe(e) for e in validation_error.errors())
        super().__init__(f"Tool {tool_name!r} got invalid arguments: {details}")
        self.tool_name = tool_name
        self.validation_error = validation_error

    def errors(self) -> list[Any]:
        """Pydantic's list of errors (for handlers written against ``ValidationError``)."""
        return list(self.validation_error.errors())


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
