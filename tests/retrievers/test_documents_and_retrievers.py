"""Document, BaseRetriever (LangChain-style subclasses), InMemoryRetriever, format_document."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from pydantic import ValidationError

from leanchain.callbacks import BaseCallbackHandler
from leanchain.callbacks.manager import RunManager
from leanchain.documents import Document
from leanchain.prompts import PromptTemplate, aformat_document, format_document
from leanchain.retrievers import BaseRetriever, InMemoryRetriever
from leanchain.runnables import RunnableLambda

CATS = Document("cats purr", metadata={"s": 1})
DOGS = Document(page_content="dogs bark", id="d2")


def test_document_reads_as_langchain_s() -> None:
    assert repr(CATS) == "Document(metadata={'s': 1}, page_content='cats purr')"
    assert repr(DOGS) == "Document(id='d2', metadata={}, page_content='dogs bark')"
    assert str(CATS) == "page_content='cats purr' metadata={'s': 1}"
    assert str(DOGS) == "page_content='dogs bark'"
    assert CATS.model_dump() == {
        "id": None,
        "metadata": {"s": 1},
        "page_content": "cats purr",
        "type": "Document",
    }
    assert Document("x") == Document(page_content="x")


def test_document_is_frozen_and_strict_about_its_fields() -> None:
    with pytest.raises(ValidationError):
        CATS.page_content = "changed"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Document("x", source="web")
    with pytest.raises(TypeError, match="multiple values for argument 'page_content'"):
        Document("x", page_content="y")
    assert CATS.model_copy(update={"page_content": "cats nap"}).page_content == "cats nap"


class KeywordRetriever(BaseRetriever):
    """Written the LangChain way: annotated fields, keyword construction."""

    docs: list[Document]
    k: int = 2

    def _get_relevant_documents(self, query: str, *, run_manager: RunManager) -> list[Document]:
        return [d for d in self.docs if query in d.page_content][: self.k]


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def on_retriever_start(
        self, serialized: Any, query: str, *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.seen.append(("start", (query, kwargs["name"], kwargs["tags"])))

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.seen.append(("end", documents))

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.seen.append(("error", str(error)))


def test_subclass_with_fields_is_built_with_keywords_and_invoked() -> None:
    retriever = KeywordRetriever(docs=[CATS, DOGS], tags=["kb"])
    assert retriever.k == 2
    assert retriever.invoke("cats") == [CATS]
    assert retriever.get_relevant_documents("dogs") == [DOGS]
    assert repr(retriever) == f"KeywordRetriever(docs={[CATS, DOGS]!r}, k=2)"


def test_subclass_rejects_unknown_and_missing_fields_by_name() -> None:
    with pytest.raises(TypeError) as caught:
        KeywordRetriever(docs=[], top_k=3)
    assert str(caught.value) == (
        "KeywordRetriever got unexpected keyword argument(s) 'top_k'; "
        "it accepts: docs, k, metadata, tags"
    )
    with pytest.raises(TypeError) as missing:
        KeywordRetriever()
    assert str(missing.value) == "KeywordRetriever missing required field(s): 'docs'"


def test_retriever_runs_are_reported_to_handlers() -> None:
    handler = Recorder()
    retriever = KeywordRetriever(docs=[CATS, DOGS], tags=["kb"])
    assert retriever.invoke("dogs", {"callbacks": [handler]}) == [DOGS]
    assert handler.seen == [("start", ("dogs", "KeywordRetriever", ["kb"])), ("end", [DOGS])]


def test_a_failing_retriever_reports_its_error() -> None:
    class Broken(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: RunManager) -> Any:
            raise RuntimeError("index offline")

    handler = Recorder()
    with pytest.raises(RuntimeError, match="index offline"):
        Broken().invoke("q", {"callbacks": [handler]})
    assert handler.seen[-1] == ("error", "index offline")


async def test_astream_events_show_retriever_events() -> None:
    retriever = KeywordRetriever(docs=[CATS, DOGS])
    events = [(e["event"], e["name"], e["data"]) async for e in retriever.astream_events("cats")]
    assert events == [
        ("on_retriever_start", "KeywordRetriever", {"input": "cats"}),
        ("on_retriever_end", "KeywordRetriever", {"output": [CATS]}),
    ]


async def test_async_invoke_uses_the_sync_method_or_the_async_one() -> None:
    assert await KeywordRetriever(docs=[CATS]).ainvoke("cats") == [CATS]

    class Async(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: RunManager) -> Any:
            raise AssertionError("the async method should run")

        async def _aget_relevant_documents(
            self, query: str, *, run_manager: RunManager
        ) -> list[Document]:
            return [Document(f"async {query}")]

    handler = Recorder()
    assert await Async().ainvoke("q", {"callbacks": [handler]}) == [Document("async q")]
    assert handler.seen == [("start", ("q", "Async", [])), ("end", [Document("async q")])]


def test_method_without_run_manager_and_invoke_keywords() -> None:
    class Plain(BaseRetriever):
        def _get_relevant_documents(self, query: str, limit: int = 1) -> list[Document]:  # type: ignore[override]
            return [Document(query)] * limit

    assert Plain().invoke("q") == [Document("q")]
    assert Plain().invoke("q", limit=2) == [Document("q"), Document("q")]


def test_run_manager_parents_inner_runs() -> None:
    class Nested(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: RunManager) -> Any:
            inner = RunnableLambda(lambda q: [Document(q.upper())], name="inner")
            return inner.invoke(query, {"callbacks": run_manager.get_child()})

    events = [(e["event"], e["name"]) for e in Nested().stream_events("q")]
    assert events == [
        ("on_retriever_start", "Nested"),
        ("on_chain_start", "inner"),
        ("on_chain_end", "inner"),
        ("on_retriever_end", "Nested"),
    ]


def test_retrievers_compose_with_pipes() -> None:
    chain = KeywordRetriever(docs=[CATS, DOGS]) | (lambda docs: [d.page_content for d in docs])
    assert chain.invoke("bark") == ["dogs bark"]


LIBRARY = [
    Document("Tea is brewed from leaves.", metadata={"page": 1}),
    Document("Coffee beans are roasted; coffee is brewed hot.", metadata={"page": 2}),
    Document("Water boils at 100 degrees.", metadata={"page": 3}),
]


def test_in_memory_retriever_ranks_by_shared_words() -> None:
    retriever = InMemoryRetriever(documents=LIBRARY, k=2)
    assert retriever.invoke("How is COFFEE brewed?") == [LIBRARY[1], LIBRARY[0]]
    assert retriever.invoke("boils") == [LIBRARY[2]]
    assert retriever.invoke("nothing matches") == []
    assert InMemoryRetriever().invoke("tea") == []
    assert InMemoryRetriever(documents=LIBRARY).k == 4


def test_in_memory_retriever_ties_keep_the_documents_order() -> None:
    retriever = InMemoryRetriever(documents=[Document("a b"), Document("b a"), Document("a")])
    assert [d.page_content for d in retriever.invoke("a")] == ["a b", "b a", "a"]


def test_in_memory_retriever_rejects_a_k_below_one() -> None:
    with pytest.raises(ValueError, match="k must be at least 1, got 0"):
        InMemoryRetriever(documents=LIBRARY, k=0)


async def test_format_document_uses_content_and_metadata() -> None:
    prompt = PromptTemplate.from_template("[p{page}] {page_content}")
    assert format_document(LIBRARY[0], prompt) == "[p1] Tea is brewed from leaves."
    assert await aformat_document(LIBRARY[2], prompt) == "[p3] Water boils at 100 degrees."
    with pytest.raises(ValueError) as caught:
        format_document(Document("x"), PromptTemplate.from_template("{source}: {page_content}"))
    assert str(caught.value) == (
        "Document prompt requires documents to have metadata variables: ['source']. "
        "Received document with missing metadata: ['source']."
    )
