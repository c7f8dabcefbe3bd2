"""Output parsers: turn a model's text or message into a value (text, JSON, a pydantic model,
a list of strings, tool calls).

Parsers are runnables with run type ``"parser"``. `StrOutputParser` streams chunk by chunk;
`JsonOutputParser` and `PydanticOutputParser` stream the growing value; the list parsers
stream each item once it is complete; the tool-call parsers (`JsonOutputToolsParser`,
`JsonOutputKeyToolsParser`, `PydanticToolsParser`) stream the growing calls; `XMLOutputParser`
streams each leaf element (it never processes a DTD or expands an entity). Output a parser
cannot read raises `OutputParserException`.
"""

from __future__ import annotations

from leanchain.errors import OutputParserException
from leanchain.output_parsers._base import (
    BaseCumulativeTransformOutputParser,
    BaseOutputParser,
    BaseTransformOutputParser,
    LanguageModelOutput,
    generation_message,
    generation_text,
)
from leanchain.output_parsers._json import JsonOutputParser
from leanchain.output_parsers._list import (
    CommaSeparatedListOutputParser,
    ListOutputParser,
    MarkdownListOutputParser,
    NumberedListOutputParser,
)
from leanchain.output_parsers._pydantic import PydanticOutputParser
from leanchain.output_parsers._str import StrOutputParser
from leanchain.output_parsers._tool_calls import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)
from leanchain.output_parsers._xml import XMLOutputParser

SimpleJsonOutputParser = JsonOutputParser
"""LangChain's other name for `JsonOutputParser` (the same class)."""

__all__ = [
    "BaseCumulativeTransformOutputParser",
    "BaseOutputParser",
    "BaseTransformOutputParser",
    "CommaSeparatedListOutputParser",
    "JsonOutputKeyToolsParser",
    "JsonOutputParser",
    "JsonOutputToolsParser",
    "LanguageModelOutput",
    "ListOutputParser",
    "MarkdownListOutputParser",
    "NumberedListOutputParser",
    "OutputParserException",
    "PydanticOutputParser",
    "PydanticToolsParser",
    "SimpleJsonOutputParser",
    "StrOutputParser",
    "XMLOutputParser",
    "generation_message",
    "generation_text",
]
