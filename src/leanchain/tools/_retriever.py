"""`create_retriever_tool`: a tool that looks documents up and hands them to the model as text."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from leanchain.documents import Document
from leanchain.prompts import BasePromptTemplate, PromptTemplate, format_document
from leanchain.retrievers import BaseRetriever
from leanchain.runnables.config import RunnableConfig
from leanchain.tools._base import ResponseFormat
from leanchain.tools._structured import StructuredTool

__all__ = ["RetrieverInput", "create_retriever_tool"]


class RetrieverInput(BaseModel):
    """Input to the retriever."""

    # Built on first use, not when leanchain.tools is imported.
    model_config = ConfigDict(defer_build=True)

    query: str = Field(description="query to look up in retriever")


def create_retriever_tool(
    retriever: BaseRetriever,
    name: str,
    description: str,
    *,
    document_prompt: BasePromptTemplate | None = None,
    document_separator: str = "\n\n",
    response_format: ResponseFormat = "content",
) -> StructuredTool:
    """A tool of one argument, ``query``, that returns the retriever's documents as text.

    Each document is formatted with `document_prompt` (default ``"{page_content}"``; its
    other variables are read from the document's metadata) and the texts are joined with
    `document_separator`. With ``response_format="content_and_artifact"`` the documents
    themselves travel as the `ToolMessage`'s artifact. The retriever runs as a child of the
    tool's run, with the tool's callbacks.

    Raises:
        TypeError: `retriever` is not a `BaseRetriever`.
    """
    if not isinstance(retriever, BaseRetriever):
        raise TypeError(
            f"create_retriever_tool needs a BaseRetriever, got {type(retriever).__name__}"
        )
    prompt = document_prompt or PromptTemplate.from_template("{page_content}")

    def answer(docs: list[Document]) -> Any:
        content = document_separator.join(format_document(doc, prompt) for doc in docs)
        if response_format == "content_and_artifact":
            return content, docs
        return content

    def func(query: str, config: RunnableConfig) -> Any:
        return answer(retriever.invoke(query, config))

    async def afunc(query: str, config: RunnableConfig) -> Any:
        return answer(await retriever.ainvoke(query, config))

    return StructuredTool(
        name=name,
        description=description,
        func=func,
        coroutine=afunc,
        args_schema=RetrieverInput,
        response_format=response_format,
    )
