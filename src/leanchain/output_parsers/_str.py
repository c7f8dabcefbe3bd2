"""`StrOutputParser`: a model's output as plain text, streamed chunk by chunk."""

from __future__ import annotations

from leanchain.output_parsers._base import BaseTransformOutputParser

__all__ = ["StrOutputParser"]


class StrOutputParser(BaseTransformOutputParser[str]):
    """The text of a model's output: a string as it is, a message's text content.

    Streams: each chunk's text is passed on as it arrives.
    """

    __slots__ = ()

    def parse(self, text: str) -> str:
        """`text`, unchanged."""
        return text
