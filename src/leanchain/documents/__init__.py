"""Documents: a piece of text with metadata, what retrievers return.

`Document` is LangChain's: ``Document(page_content="...", metadata={...}, id=None)``. It is a
frozen value, like a message; ``doc.model_copy(update={...})`` gives a changed copy.
"""

from __future__ import annotations

from leanchain.documents._document import Document

__all__ = ["Document"]
