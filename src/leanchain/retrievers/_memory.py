"""`InMemoryRetriever`: documents ranked by the words they share with the query."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from leanchain.documents import Document
from leanchain.retrievers._base import BaseRetriever

__all__ = ["InMemoryRetriever"]

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


class InMemoryRetriever(BaseRetriever):
    """Ranks `documents` by how often the query's words occur in them; returns the top `k`.

    Words are runs of letters and digits, compared without case. A document that shares no
    word with the query is never returned; ties keep the documents' order. No embeddings and
    no index: for tests, examples and small, fixed collections.

    ``InMemoryRetriever(documents=[Document("..."), ...], k=2)``
    """

    def __init__(
        self,
        documents: Sequence[Document] = (),
        k: int = 4,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(tags=tags, metadata=metadata)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k!r}")
        self.documents = list(documents)
        """The collection to search."""
        self.k = k
        """How many documents at most (LangChain's default search size)."""
        self._counts = [Counter(_words(d.page_content)) for d in self.documents]

    def __repr__(self) -> str:
        return f"InMemoryRetriever(documents=<{len(self.documents)} documents>, k={self.k})"

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        wanted = set(_words(query))
        scored = [(sum(counts[w] for w in wanted), i) for i, counts in enumerate(self._counts)]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        return [self.documents[i] for _, i in ranked[: self.k]]
