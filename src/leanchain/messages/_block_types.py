"""LangChain 1.x's standard content blocks: the typed dicts that ``message.content_blocks`` gives.

A message's ``content`` stays what the provider sent (text, or a list of provider-shaped
blocks); ``content_blocks`` reads it as these standard blocks, the same whatever the provider
(``_blocks``), and a message can be built from them (``HumanMessage(content_blocks=[...])``).
Every block is a plain dict with a ``type``; ``extras`` holds provider data that has no
standard key, and ``non_standard`` wraps a block that has no standard form at all.

Imported on first use (``leanchain.messages`` loads this module when one of its names is asked
for), so a program that never reads standard content pays nothing for these classes.
"""

from __future__ import annotations

from typing import Any, Final, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

from ._tool import InvalidToolCall, ToolCall, ToolCallChunk

__all__ = [
    "KNOWN_BLOCK_TYPES",
    "Annotation",
    "AudioContentBlock",
    "Citation",
    "ContentBlock",
    "DataContentBlock",
    "FileContentBlock",
    "ImageContentBlock",
    "NonStandardAnnotation",
    "NonStandardContentBlock",
    "PlainTextContentBlock",
    "ReasoningContentBlock",
    "RefusalContentBlock",
    "ServerToolCall",
    "ServerToolCallChunk",
    "ServerToolResult",
    "TextContentBlock",
    "VideoContentBlock",
]


class Citation(TypedDict):
    """A source that a piece of text cites."""

    type: Literal["citation"]
    """Always "citation"."""
    id: NotRequired[str]
    """The citation's id, if the provider gave one."""
    url: NotRequired[str]
    """The cited web page."""
    title: NotRequired[str]
    """The cited source's title."""
    start_index: NotRequired[int]
    """Where the citing text starts in the block's text."""
    end_index: NotRequired[int]
    """Where the citing text ends in the block's text."""
    cited_text: NotRequired[str]
    """The text that was cited."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


class NonStandardAnnotation(TypedDict):
    """A provider's annotation that has no standard form."""

    type: Literal["non_standard_annotation"]
    """Always "non_standard_annotation"."""
    id: NotRequired[str]
    """The annotation's id, if any."""
    value: dict[str, Any]
    """The provider's annotation, as it came."""


Annotation: TypeAlias = Citation | NonStandardAnnotation
"""An annotation of a text block."""


class TextContentBlock(TypedDict):
    """Text, from the user or the model."""

    type: Literal["text"]
    """Always "text"."""
    id: NotRequired[str]
    """The block's id, if any."""
    text: str
    """The text."""
    annotations: NotRequired[list[Annotation]]
    """Citations and other annotations of the text."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


class ReasoningContentBlock(TypedDict):
    """The model's reasoning (Anthropic's thinking, a reasoning model's summary)."""

    type: Literal["reasoning"]
    """Always "reasoning"."""
    id: NotRequired[str]
    """The block's id, if any."""
    reasoning: NotRequired[str]
    """The reasoning text."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key (Anthropic's ``signature``)."""


class RefusalContentBlock(TypedDict):
    """The model declined to answer."""

    type: Literal["refusal"]
    """Always "refusal"."""
    refusal: str
    """The model's explanation."""
    id: NotRequired[str]
    """The block's id, if any."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


class ImageContentBlock(TypedDict):
    """An image: by URL, as base64 data, or as a provider file id."""

    type: Literal["image"]
    """Always "image"."""
    id: NotRequired[str]
    """The block's id, if any."""
    file_id: NotRequired[str]
    """The image in a provider's file store."""
    mime_type: NotRequired[str]
    """The image's MIME type (needed with base64 data)."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    url: NotRequired[str]
    """The image's URL."""
    base64: NotRequired[str]
    """The image's data, base64-encoded."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key (OpenAI's ``detail``)."""


class VideoContentBlock(TypedDict):
    """A video: by URL, as base64 data, or as a provider file id."""

    type: Literal["video"]
    """Always "video"."""
    id: NotRequired[str]
    """The block's id, if any."""
    file_id: NotRequired[str]
    """The video in a provider's file store."""
    mime_type: NotRequired[str]
    """The video's MIME type."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    url: NotRequired[str]
    """The video's URL."""
    base64: NotRequired[str]
    """The video's data, base64-encoded."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


class AudioContentBlock(TypedDict):
    """Audio: by URL, as base64 data, or as a provider file id."""

    type: Literal["audio"]
    """Always "audio"."""
    id: NotRequired[str]
    """The block's id, if any."""
    file_id: NotRequired[str]
    """The audio in a provider's file store."""
    mime_type: NotRequired[str]
    """The audio's MIME type (``audio/wav``, ...)."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    url: NotRequired[str]
    """The audio's URL."""
    base64: NotRequired[str]
    """The audio's data, base64-encoded."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


class PlainTextContentBlock(TypedDict):
    """A plain-text document (not text the model is to read as the message itself)."""

    type: Literal["text-plain"]
    """Always "text-plain"."""
    id: NotRequired[str]
    """The block's id, if any."""
    file_id: NotRequired[str]
    """The document in a provider's file store."""
    mime_type: Literal["text/plain"]
    """Always "text/plain"."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    url: NotRequired[str]
    """The document's URL."""
    base64: NotRequired[str]
    """The document's data, base64-encoded."""
    text: NotRequired[str]
    """The document's text."""
    title: NotRequired[str]
    """The document's title."""
    context: NotRequired[str]
    """What the document is about, for the model."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


class FileContentBlock(TypedDict):
    """A file (a PDF, say): by URL, as base64 data, or as a provider file id."""

    type: Literal["file"]
    """Always "file"."""
    id: NotRequired[str]
    """The block's id, if any."""
    file_id: NotRequired[str]
    """The file in a provider's file store."""
    mime_type: NotRequired[str]
    """The file's MIME type."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    url: NotRequired[str]
    """The file's URL."""
    base64: NotRequired[str]
    """The file's data, base64-encoded."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key (OpenAI's ``filename``)."""


class NonStandardContentBlock(TypedDict):
    """A provider's block that has no standard form, kept as it came."""

    type: Literal["non_standard"]
    """Always "non_standard"."""
    id: NotRequired[str]
    """The block's id, if any."""
    value: dict[str, Any]
    """The provider's block."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""


class ServerToolCall(TypedDict):
    """A tool the provider ran on its side (web search, code execution)."""

    type: Literal["server_tool_call"]
    """Always "server_tool_call"."""
    id: str
    """The call's id."""
    name: str
    """The tool's name."""
    args: dict[str, Any]
    """The call's arguments."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


class ServerToolCallChunk(TypedDict):
    """A piece of a streamed server-side tool call."""

    type: Literal["server_tool_call_chunk"]
    """Always "server_tool_call_chunk"."""
    name: NotRequired[str]
    """The tool's name, usually in the first piece."""
    args: NotRequired[str]
    """A piece of the arguments' JSON text."""
    id: NotRequired[str]
    """The call's id, usually in the first piece."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


class ServerToolResult(TypedDict):
    """What a server-side tool call returned."""

    type: Literal["server_tool_result"]
    """Always "server_tool_result"."""
    id: NotRequired[str]
    """The block's id, if any."""
    tool_call_id: str
    """The call this answers."""
    status: Literal["success", "error"]
    """Whether the call succeeded."""
    output: NotRequired[Any]
    """The call's output."""
    index: NotRequired[int | str]
    """The block's position in a streamed reply."""
    extras: NotRequired[dict[str, Any]]
    """Provider data without a standard key."""


DataContentBlock: TypeAlias = (
    ImageContentBlock
    | VideoContentBlock
    | AudioContentBlock
    | PlainTextContentBlock
    | FileContentBlock
)
"""A multimodal data block."""

ContentBlock: TypeAlias = (
    TextContentBlock
    | ReasoningContentBlock
    | RefusalContentBlock
    | NonStandardContentBlock
    | DataContentBlock
    | ToolCall
    | ToolCallChunk
    | InvalidToolCall
    | ServerToolCall
    | ServerToolCallChunk
    | ServerToolResult
)
"""Any standard content block; its ``type`` says which."""

KNOWN_BLOCK_TYPES: Final = frozenset(
    {
        "text",
        "reasoning",
        "refusal",
        "tool_call",
        "invalid_tool_call",
        "tool_call_chunk",
        "image",
        "audio",
        "file",
        "text-plain",
        "video",
        "server_tool_call",
        "server_tool_call_chunk",
        "server_tool_result",
        "non_standard",
    }
)
"""The ``type`` of every standard block (LangChain 1.x's list): any other type is a provider's."""
