"""Streaming `with_structured_output`: the forced tool call's arguments, yielded as they grow.

LangChain pipes the model into ``JsonOutputKeyToolsParser(key_name=..., first_tool_only=True)``
(dict, JSON schema and TypedDict schemas) or ``PydanticToolsParser(first_tool_only=True)``
(pydantic), which stream a growing partial value. `StructuredToolCallParser` is the first of
these (so it reads the first call of the schema's tool, whatever else the model calls), made
to yield instances for a pydantic schema as the second does, and to read the finished reply
as leanchain's `ToolCallOutputParser` does: TypedDicts validated, refusals and text replies
raised as `OutputParserException` at the end of the stream.

Kept out of ``_structured`` so that importing `leanchain.language_models` does not import the
output parsers: this module is imported when a structured-output runnable is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from leanchain.messages import AIMessage, AIMessageChunk, message_chunk_to_message
from leanchain.output_parsers import JsonOutputKeyToolsParser, generation_message
from leanchain.outputs import Generation

if TYPE_CHECKING:
    from ._structured import ToolCallOutputParser

__all__ = ["StructuredToolCallParser"]


class StructuredToolCallParser(JsonOutputKeyToolsParser):
    """The value of one tool's first call, streamed while its arguments grow.

    While the reply streams, the arguments read so far (partial JSON) are yielded each time
    they change: as a dict, not yet validated (the dict, JSON schema and TypedDict schemas),
    or with `partial_instances` as the instance they validate to (a pydantic schema); arguments
    that do not validate yet (a required field still missing) are skipped, as LangChain's
    ``PydanticToolsParser`` skips them. The finished reply (a whole message, or the stream's
    last chunk) is read by `reply`, so a stream ends with the value `invoke` returns, or
    raises the error `invoke` raises.

    Args:
        reply: the parser of a finished reply (built without `include_raw`); its tool name,
            validation and name are used.
        partial_instances: validate partial arguments with `reply`'s validator (a pydantic
            model) instead of yielding them as dicts.

    Raises:
        OutputParserException: (when parsing a finished reply) as `ToolCallOutputParser`.
    """

    __slots__ = ("name", "partial_instances", "reply")

    def __init__(self, reply: ToolCallOutputParser, *, partial_instances: bool) -> None:
        super().__init__(reply.tool_name, first_tool_only=True)
        self.reply = reply
        """The parser of the finished reply."""
        self.partial_instances = partial_instances
        """Whether partial arguments are yielded as validated instances."""
        self.name = reply.name

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The tool's arguments so far (`partial`, unfinished reply), else the parsed value.

        Raises:
            OutputParserException: the output is not a message, or (finished reply) as
                `ToolCallOutputParser.parse`.
        """
        message = generation_message(result[0])
        if not isinstance(message, AIMessage):
            return super().parse_result(result, partial=partial)  # no call: None, or an error
        if isinstance(message, AIMessageChunk) and message.chunk_position != "last":
            if partial:
                return self._partial_value(super().parse_result(result, partial=True))
            # A reply that ended without a last chunk: its arguments must be whole JSON too.
            finished = message_chunk_to_message(message)
            if isinstance(finished, AIMessage):
                message = finished
        return self.reply.parse(message)

    def _partial_value(self, args: dict[str, Any] | None) -> Any:
        validate = self.reply.validate
        if args is None or not self.partial_instances or validate is None:
            return args
        try:
            return validate(args)
        except ValidationError:
            return None  # not valid yet: the next chunks may complete it

    def __repr__(self) -> str:
        return (
            f"StructuredToolCallParser(tool_name={self.reply.tool_name!r}, "
            f"partial_instances={self.partial_instances!r})"
        )
