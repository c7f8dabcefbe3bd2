"""`Document`: a piece of text and the metadata that says where it came from."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Document"]


class Document(BaseModel):
    """A piece of text with metadata, for retrieval (not for chat: use messages there).

    ``Document("text")`` and ``Document(page_content="text", metadata={"source": ...})`` both
    work. The repr and ``str`` read as LangChain's.
    """

    # defer_build: the validator is built on first use, not at import (building one at import
    # also loads pydantic's plugin machinery: importlib.metadata, email, zipfile...).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str | None = Field(default=None, coerce_numbers_to_str=True)
    """An optional unique id (a vector store's, say)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Where the text came from: source, page, score, ..."""
    page_content: str
    """The text."""
    type: Literal["Document"] = "Document"
    """The kind tag, as LangChain's serialised form has it."""

    def __init__(self, page_content: str | None = None, /, **kwargs: Any) -> None:
        if page_content is not None:
            if "page_content" in kwargs:
                raise TypeError("got multiple values for argument 'page_content'")
            kwargs["page_content"] = page_content
        super().__init__(**kwargs)

    def __repr_args__(self) -> Iterable[tuple[str | None, Any]]:
        if self.id is not None:
            yield "id", self.id
        yield "metadata", self.metadata
        yield "page_content", self.page_content

    def __str__(self) -> str:
        if self.metadata:
            return f"page_content='{self.page_content}' metadata={self.metadata}"
        return f"page_content='{self.page_content}'"
