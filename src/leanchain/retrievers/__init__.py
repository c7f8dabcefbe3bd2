"""Retrievers: runnables from a query string to a list of `Document`s.

Subclass `BaseRetriever` and implement ``_get_relevant_documents(query, *, run_manager)``
(and ``_aget_relevant_documents`` for real async work), with the settings as annotated
fields, as in LangChain. `InMemoryRetriever` ranks a fixed list of documents by the words
they share with the query: enough for tests and small apps; the core has no vector store.
`leanchain.tools.create_retriever_tool` makes a tool of any retriever.
"""

from __future__ import annotations

from leanchain.retrievers._base import BaseRetriever
from leanchain.retrievers._memory import InMemoryRetriever

__all__ = ["BaseRetriever", "InMemoryRetriever"]
