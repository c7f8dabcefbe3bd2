"""Output parsers: turn a model's text or message into a value (text, JSON, a pydantic model).

Parsers are runnables with run type ``"parser"``. `StrOutputParser` streams chunk by chunk;
`JsonOutputParser` and `PydanticOutputParser` stream the growing value. Output a parser cannot
read raises `OutputParserException`.
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
from leanchain.output_parsers._pydantic import PydanticOutputParser
from leanchain.output_parsers._str import StrOutputParser

__all__ = [
    "BaseCumulativeTransformOutputParser",
    "BaseOutputParser",
    "BaseTransformOutputParser",
    "JsonOutputParser",
    "LanguageModelOutput",
    "OutputParserException",
    "PydanticOutputParser",
    "StrOutputParser",
    "generation_message",
    "generation_text",
]
