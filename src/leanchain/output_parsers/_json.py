"""`JsonOutputParser`: JSON from a model's reply (fenced or not), streamed as it grows."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from leanchain._partial_json import parse_json_markdown
from leanchain.errors import OutputParserException
from leanchain.output_parsers._base import BaseCumulativeTransformOutputParser, generation_text
from leanchain.output_parsers._json_stream import NO_VALUE, json_reply_reader
from leanchain.outputs import Generation

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["JsonOutputParser", "json_format_instructions", "parse_json_output"]

_INSTRUCTIONS = (
    "Reply with a single JSON value that conforms to the JSON schema below, and nothing "
    "else: no comments, no explanation. You may wrap it in a ```json code fence.\n\n"
    "JSON schema:\n```json\n{schema}\n```"
)


def parse_json_output(text: str, *, partial: bool = False) -> Any:
    """The JSON value in a model's reply: the whole text, or the first fenced block.

    Truncated JSON is closed (a reply cut off by a token limit still parses as far as it
    goes), as LangChain's parser does.

    Args:
        text: the reply.
        partial: the reply may still be streaming; return ``None`` instead of raising when
            it holds no JSON value yet.

    Raises:
        OutputParserException: ``"Invalid json output: {text}"`` (with ``llm_output``), when
            not `partial` and the reply holds no JSON value.
    """
    text = text.strip()
    try:
        return parse_json_markdown(text)
    except (ValueError, RecursionError) as exc:
        if partial:
            return None
        raise OutputParserException(f"Invalid json output: {text}", llm_output=text) from exc


def json_format_instructions(schema: dict[str, Any] | None) -> str:
    """Instructions to reply with JSON; with a schema, the schema without its title and type."""
    if schema is None:
        return "Return a JSON object."
    reduced = {k: v for k, v in schema.items() if k not in ("title", "type")}
    return _INSTRUCTIONS.format(schema=json.dumps(reduced, ensure_ascii=False))


class JsonOutputParser(BaseCumulativeTransformOutputParser[Any]):
    """The JSON value in a model's reply; accepts ```` ```json ```` fences.

    Streams growing partial values: ``{}``, ``{"a": "he"}``, ``{"a": "hello"}``, ...; each
    chunk is read once (the stream costs its length), so successive values share their
    finished parts: copy a streamed value before changing it.

    Args:
        pydantic_object: a model describing the expected JSON, used for the format
            instructions and the output schema only (values stay plain JSON; use
            `PydanticOutputParser` to get model instances).
    """

    __slots__ = ("pydantic_object",)

    def __init__(self, pydantic_object: type[BaseModel] | None = None) -> None:
        self.pydantic_object = pydantic_object
        """The model that describes the expected JSON, if any."""

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The JSON value in the first output (``None`` when `partial` and none yet).

        Raises:
            OutputParserException: ``"Invalid json output: {text}"``.
        """
        return parse_json_output(generation_text(result[0]), partial=partial)

    def _stream_reader(self) -> Callable[[Any], Any]:
        if type(self).parse_result is not JsonOutputParser.parse_result:
            return super()._stream_reader()  # a subclass reads differently: let it
        read = json_reply_reader()

        def value_so_far(total: Any) -> Any:
            value = read(total)
            return None if value is NO_VALUE else value

        return value_so_far

    def parse(self, text: str) -> Any:
        """The JSON value in `text`.

        Raises:
            OutputParserException: ``"Invalid json output: {text}"``.
        """
        return parse_json_output(text)

    def get_format_instructions(self) -> str:
        """``"Return a JSON object."``, or instructions with the model's JSON schema."""
        if self.pydantic_object is None:
            return json_format_instructions(None)
        return json_format_instructions(self.pydantic_object.model_json_schema())

    @property
    def OutputType(self) -> Any:
        """The pydantic model, if one was given, else ``Any``."""
        return self.pydantic_object if self.pydantic_object is not None else Any

    def __repr__(self) -> str:
        if self.pydantic_object is None:
            return "JsonOutputParser()"
        return f"JsonOutputParser(pydantic_object={self.pydantic_object.__name__})"
