"""Message content for both providers: reading text and image blocks, building text chunks.

A message's content is a str or a list of strs and block dicts. Images come in several
spellings — OpenAI's ``image_url``, LangChain's standard ``image`` blocks (``url``,
``base64``/``mime_type``, or ``source_type``/``data``) and Anthropic's ``source`` form — and each
provider converter writes the one its API wants from the `Image` read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from leanchain.messages import AIMessageChunk

__all__ = ["Image", "read_image", "text_blocks", "text_chunk"]


@dataclass(frozen=True, slots=True)
class Image:
    """An image given by URL, or inline as base64 data with its MIME type."""

    url: str | None = None
    """An http(s) URL (never a ``data:`` URL: those are split into the fields below)."""
    data: str | None = None
    """The base64 data of an inline image."""
    mime_type: str | None = None
    """The MIME type of an inline image, e.g. ``image/png``."""

    @property
    def data_url(self) -> str:
        """The image as a URL: its own, or a ``data:`` URL for inline data."""
        if self.url is not None:
            return self.url
        return f"data:{self.mime_type};base64,{self.data}"


def _from_url(url: str) -> Image:
    if url.startswith("data:"):
        header, _, data = url[5:].partition(",")
        mime_type, _, encoding = header.partition(";")
        if encoding == "base64" and data:
            return Image(data=data, mime_type=mime_type or "image/png")
    return Image(url=url)


def read_image(block: Mapping[str, Any]) -> Image | None:
    """The image a block holds, or ``None`` if it is not an image block this module knows."""
    kind = block.get("type")
    if kind == "image_url":
        image_url = block.get("image_url")
        url = image_url.get("url") if isinstance(image_url, Mapping) else image_url
        return _from_url(url) if isinstance(url, str) else None
    if kind != "image":
        return None
    source = block.get("source")
    if isinstance(source, Mapping):  # Anthropic's own form
        if source.get("type") == "base64":
            return Image(data=source.get("data"), mime_type=source.get("media_type"))
        if source.get("type") == "url" and isinstance(source.get("url"), str):
            return _from_url(source["url"])
        return None
    data = block.get("base64") or (block.get("data") if block.get("source_type") else None)
    if isinstance(data, str):
        return Image(data=data, mime_type=block.get("mime_type") or "image/png")
    url = block.get("url")
    return _from_url(url) if isinstance(url, str) else None


def text_blocks(content: str | list[Any]) -> list[str]:
    """The non-empty texts of a content: the str itself, or its strs and text blocks."""
    if isinstance(content, str):
        return [content] if content else []
    texts: list[str] = []
    for block in content:
        if isinstance(block, str):
            text: Any = block
        elif isinstance(block, Mapping) and block.get("type") == "text":
            text = block.get("text")
        else:
            continue
        if isinstance(text, str) and text:
            texts.append(text)
    return texts


def text_chunk(text: str, message_id: str | None) -> AIMessageChunk:
    """A streamed piece of reply text: ``AIMessageChunk(content=text, id=message_id)``, built
    without validation (`AIMessageChunk._of_text`)."""
    return AIMessageChunk._of_text(text, message_id)
