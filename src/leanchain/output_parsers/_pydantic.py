"""`PydanticOutputParser`: a model's JSON reply validated into a pydantic model instance."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from leanchain.errors import OutputParserException
from leanchain.output_parsers._base import BaseCumulativeTransformOutputParser, generation_text
from leanchain.output_parsers._json import json_format_instructions, parse_json_output
from leanchain.output_parsers._json_stream import NO_VALUE, json_reply_reader
from leanchain.outputs import Generation

__all__ = ["PydanticOutputParser"]

M = TypeVar("M", bound=BaseModel)


class PydanticOutputParser(BaseCumulativeTransformOutputParser[M], Generic[M]):
    """An instance of `pydantic_object` from the JSON in a model's reply.

    Streams a new instance whenever the JSON so far validates to a different one. The JSON is
    read once per stream (see `JsonOutputParser`); the value so far is validated after each
    chunk that changes it.

    Args:
        pydantic_object: the pydantic model (v2 ``BaseModel``) to validate into.

    Raises:
        TypeError: `pydantic_object` is not a pydantic model class.
    """

    __slots__ = ("pydantic_object",)

    def __init__(self, pydantic_object: type[M]) -> None:
        if not (isinstance(pydantic_object, type) and issubclass(pydantic_object, BaseModel)):
            raise TypeError(
                f"pydantic_object must be a pydantic BaseModel subclass, got {pydantic_object!r}"
            )
        self.pydantic_object = pydantic_object
        """The model replies are validated into."""

    def _validate(self, obj: Any) -> M:
        try:
            return self.pydantic_object.model_validate(obj)
        except ValidationError as exc:
            json_string = json.dumps(obj, ensure_ascii=False)
            name = self.pydantic_object.__name__
            raise OutputParserException(
                f"Failed to parse {name} from completion {json_string}. Got: {exc}",
                llm_output=json_string,
            ) from exc

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """An instance from the first output's JSON (``None`` when `partial` and invalid yet).

        Raises:
            OutputParserException: the reply is not JSON (``"Invalid json output: ..."``),
                or its JSON does not validate (``"Failed to parse {Name} from completion
                {json}. Got: {error}"``).
        """
        try:
            return self._validate(parse_json_output(generation_text(result[0])))
        except OutputParserException:
            if partial:
                return None
            raise

    def _stream_reader(self) -> Callable[[Any], Any]:
        cls = type(self)
        if (
            cls.parse_result is not PydanticOutputParser.parse_result
            or cls._validate is not PydanticOutputParser._validate
        ):
            return super()._stream_reader()  # a subclass reads differently: let it
        read = json_reply_reader()
        model = self.pydantic_object
        seen: Any = NO_VALUE
        instance: M | None = None

        def instance_so_far(total: Any) -> M | None:
            nonlocal seen, instance
            value = read(total)
            if value is not seen:  # the reader gives the same object for the same text
                seen = value
                instance = None if value is NO_VALUE else _valid_or_none(model, value)
            return instance

        return instance_so_far

    def parse(self, text: str) -> M:
        """An instance from the JSON in `text`.

        Raises:
            OutputParserException: as `parse_result`.
        """
        return self._validate(parse_json_output(text))

    def get_format_instructions(self) -> str:
        """Instructions to reply with JSON that matches the model's JSON schema."""
        return json_format_instructions(self.pydantic_object.model_json_schema())

    @property
    def OutputType(self) -> type[M]:
        """The pydantic model."""
        return self.pydantic_object

    def __repr__(self) -> str:
        return f"PydanticOutputParser(pydantic_object={self.pydantic_object.__name__})"


def _valid_or_none(model: type[M], value: Any) -> M | None:
    """What ``parse_result(partial=True)`` answers for a JSON value, without its error text."""
    try:
        return model.model_validate(value)
    except ValidationError:
        return None
