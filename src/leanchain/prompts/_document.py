"""`format_document`: a `Document` as text, through a prompt over its content and metadata."""

from __future__ import annotations

from typing import Any

from leanchain.documents import Document
from leanchain.prompts._base import BasePromptTemplate

__all__ = ["aformat_document", "format_document"]


def _document_info(doc: Document, prompt: BasePromptTemplate) -> dict[str, Any]:
    info = {"page_content": doc.page_content, **doc.metadata}
    missing = [name for name in prompt.input_variables if name not in info]
    if missing:
        required = [name for name in prompt.input_variables if name != "page_content"]
        raise ValueError(
            f"Document prompt requires documents to have metadata variables: {required}. "
            f"Received document with missing metadata: {missing}."
        )
    return {name: info[name] for name in prompt.input_variables}


def format_document(doc: Document, prompt: BasePromptTemplate) -> str:
    """`doc` formatted with `prompt`: ``{page_content}`` and the metadata keys are variables.

    ``format_document(Document("hi", metadata={"page": 1}), PromptTemplate.from_template(
    "Page {page}: {page_content}"))`` is ``"Page 1: hi"``.

    Raises:
        ValueError: the prompt needs a metadata key the document does not have.
    """
    return prompt.format(**_document_info(doc, prompt))


async def aformat_document(doc: Document, prompt: BasePromptTemplate) -> str:
    """Async `format_document` (formatting never blocks, so it runs inline)."""
    return format_document(doc, prompt)
