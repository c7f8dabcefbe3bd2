"""Reading a message's content as LangChain 1.x standard blocks (``message.content_blocks``).

The rules are LangChain's: a string is a text block; a block whose ``type`` is standard is
kept; the input shapes of LangChain 0.x (``source_type``), OpenAI Chat Completions
(``image_url``, ``input_audio``, ``file``) and Anthropic (``image``/``document`` with a
``source``) become image, audio, file and plain-text blocks; anything else is wrapped as a
``non_standard`` block. A model's reply adds its tool calls (or, while it streams, its
tool-call chunks) and its ``reasoning_content``; a reply whose ``response_metadata`` names
``model_provider`` "openai" or "anthropic" is read by that provider's rules.

Where LangChain drops data or fails, this reads on (see docs/messages.md): no block is ever
dropped, no id is invented (LangChain gives converted OpenAI blocks a new ``lc_`` id on every
read, so that two reads differ), and a block it cannot convert is ``non_standard``, never an
exception. The blocks are new dicts: changing them does not change the message.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final, cast

from ._ai import AIMessage, AIMessageChunk
from ._anthropic_blocks import add_stop_refusal, from_anthropic
from ._block_types import KNOWN_BLOCK_TYPES

if TYPE_CHECKING:
    from ._base import BaseMessage
    from ._block_types import ContentBlock

__all__ = ["message_content_blocks", "non_standard", "tool_call_block", "with_extras"]

Block = dict[str, Any]

_DATA_TYPES: Final = frozenset({"image", "audio", "file"})


def message_content_blocks(message: BaseMessage) -> list[ContentBlock]:
    """The standard blocks of `message` (what ``message.content_blocks`` returns)."""
    if isinstance(message, AIMessage):
        return cast("list[ContentBlock]", _reply_blocks(message))
    return cast("list[ContentBlock]", read_content(message.content))


def read_content(content: Any) -> list[Block]:
    """The standard blocks of a ``content`` value: text, or a list of strings and blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks = []
    for item in content:
        if isinstance(item, str):
            blocks.append({"type": "text", "text": item})
        elif isinstance(item, Mapping):
            blocks.append(read_block(item))
    return blocks


def read_block(block: Mapping[str, Any]) -> Block:
    """One provider-shaped or standard block as a standard block."""
    kind = block.get("type")
    if not isinstance(kind, str):
        if len(block) == 1 and isinstance(block.get("text"), str) and block["text"]:
            return {"type": "text", "text": block["text"]}  # Gemini's and Bedrock's text parts
        return non_standard(block)
    if "source_type" in block and kind in _DATA_TYPES:
        return _from_v0(block)
    if kind == "image_url" or kind == "input_audio" or (kind == "file" and "file" in block):
        return _from_openai_input(block)
    if (kind == "image" or kind == "document") and isinstance(block.get("source"), Mapping):
        return _from_anthropic_input(block)
    if kind in KNOWN_BLOCK_TYPES:
        return dict(block)
    return non_standard(block)


def non_standard(block: Mapping[str, Any]) -> Block:
    """`block` kept as it came, with no standard form."""
    return {"type": "non_standard", "value": dict(block)}


def with_extras(standard: Block, block: Mapping[str, Any], known: frozenset[str]) -> Block:
    """`standard` with the keys of `block` not in `known` under ``extras`` (if any)."""
    extras = {key: value for key, value in block.items() if key not in known}
    if extras:
        standard["extras"] = extras
    return standard


def tool_call_block(call: Mapping[str, Any]) -> Block:
    """A tool call (``message.tool_calls`` entry) as a standard ``tool_call`` block."""
    return {"type": "tool_call", "id": call.get("id"), "name": call["name"], "args": call["args"]}


# -- input shapes ---------------------------------------------------------------------------

_V0_KNOWN: Final = frozenset({"type", "source_type", "url", "data", "mime_type", "id", "text"})


def _from_v0(block: Mapping[str, Any]) -> Block:
    """LangChain 0.x's ``{"type": "image", "source_type": "url"|"base64"|"id"|"text", ...}``."""
    kind, source = block["type"], block["source_type"]
    standard: Block = {"type": kind}
    if source == "id" and isinstance(block.get("id"), str):
        standard["file_id"] = block["id"]  # here the id is the provider file's, not the block's
    else:
        if isinstance(block.get("id"), str):
            standard["id"] = block["id"]
        if source == "url" and isinstance(block.get("url"), str):
            standard["url"] = block["url"]
        elif source == "base64" and isinstance(block.get("data"), str):
            standard["base64"] = block["data"]
        elif source == "text" and kind == "file" and isinstance(block.get("text"), str):
            standard.update(type="text-plain", text=block["text"])
        else:
            return non_standard(block)
    if standard["type"] == "text-plain":
        standard["mime_type"] = "text/plain"
    elif block.get("mime_type"):
        standard["mime_type"] = block["mime_type"]
    extras = {k: v for k, v in block.items() if k not in _V0_KNOWN and v is not None}
    if extras:
        standard["extras"] = extras
    return standard


def _data_uri(uri: Any) -> tuple[str, str] | None:
    """The MIME type and base64 data of a ``data:<mime>;base64,<data>`` URI, or None."""
    if not isinstance(uri, str) or not uri.startswith("data:"):
        return None
    header, comma, data = uri[5:].partition(",")
    mime, marker, rest = header.partition(";base64")
    if not comma or not data or not mime or not marker or rest:
        return None
    return mime, data


def _from_openai_input(block: Mapping[str, Any]) -> Block:
    """OpenAI Chat Completions' ``image_url``, ``input_audio`` and ``file`` parts."""
    kind = block["type"]
    if kind == "image_url":
        image = block.get("image_url")
        if not (isinstance(image, Mapping) and isinstance(image.get("url"), str)):
            return non_standard(block)
        if not set(block) <= {"type", "image_url", "detail"}:
            return non_standard(block)
        standard: Block = {"type": "image"}
        parsed = _data_uri(image["url"])
        if parsed is None:
            standard["url"] = image["url"]
        else:
            standard["mime_type"], standard["base64"] = parsed
        extras = {k: v for k, v in block.items() if k not in ("type", "image_url")}
        for key, value in image.items():
            if key != "url":
                extras[key if key == "detail" else f"image_url_{key}"] = value
        if extras:
            standard["extras"] = extras
        return standard
    if kind == "input_audio":
        audio = block.get("input_audio")
        if not (
            isinstance(audio, Mapping)
            and isinstance(audio.get("data"), str)
            and isinstance(audio.get("format"), str)
        ):
            return non_standard(block)
        standard = {
            "type": "audio",
            "base64": audio["data"],
            "mime_type": f"audio/{audio['format']}",
        }
        extras = {k: v for k, v in block.items() if k not in ("type", "input_audio")}
        extras.update({f"audio_{k}": v for k, v in audio.items() if k not in ("data", "format")})
        if extras:
            standard["extras"] = extras
        return standard
    file = block["file"]
    if not isinstance(file, Mapping):
        return non_standard(block)
    extras = {k: v for k, v in block.items() if k not in ("type", "file")}
    if isinstance(file.get("file_id"), str):
        standard = {"type": "file", "file_id": file["file_id"]}
        extras.update({f"file_{k}": v for k, v in file.items() if k != "file_id"})
    else:
        parsed = _data_uri(file.get("file_data"))
        if parsed is None:
            return non_standard(block)
        standard = {"type": "file", "base64": parsed[1], "mime_type": parsed[0]}
        if file.get("filename") is not None:
            extras["filename"] = file["filename"]
        extras.update(
            {f"file_{k}": v for k, v in file.items() if k not in ("file_data", "filename")}
        )
    if extras:
        standard["extras"] = extras
    return standard


_SOURCE_KNOWN: Final = frozenset({"type", "source"})


def _from_anthropic_input(block: Mapping[str, Any]) -> Block:
    """Anthropic's ``image`` and ``document`` blocks with a ``source``."""
    source = block["source"]
    kind = "file" if block["type"] == "document" else "image"
    how = source.get("type")
    standard: Block
    if how == "base64" and "data" in source and "media_type" in source:
        standard = {"type": kind, "base64": source["data"], "mime_type": source["media_type"]}
    elif how == "url" and "url" in source:
        standard = {"type": kind, "url": source["url"]}
    elif how == "file" and "file_id" in source:
        # LangChain puts the file's id under "id", the block's own id: "file_id" is its place.
        standard = {"type": kind, "file_id": source["file_id"]}
    elif how == "text" and kind == "file" and "data" in source:
        standard = {"type": "text-plain", "text": source["data"], "mime_type": "text/plain"}
    else:
        return non_standard(block)
    return with_extras(standard, block, _SOURCE_KNOWN)


# -- model replies --------------------------------------------------------------------------


def _reply_blocks(message: AIMessage) -> list[Block]:
    content = message.content
    metadata = message.response_metadata
    if metadata.get("output_version") == "v1" and isinstance(content, list):
        # Already standard blocks (LangChain's v1 output): taken as they are.
        return [
            {"type": "text", "text": item} if isinstance(item, str) else dict(item)
            for item in content
        ]
    provider = metadata.get("model_provider")
    if provider == "anthropic" and isinstance(content, list):
        blocks = from_anthropic(message)
        _add_missing_calls(blocks, message)
        return blocks
    if provider == "openai" and isinstance(content, str):
        blocks = read_content(content)
        if _streaming_calls(message):
            blocks.extend(_chunk_blocks(message))
        else:
            blocks.extend(tool_call_block(call) for call in message.tool_calls)
        refusal = message.additional_kwargs.get("refusal")
        if refusal:
            blocks.append({"type": "refusal", "refusal": refusal})
    else:
        blocks = read_content(content)
        if _streaming_calls(message) and not content:
            blocks = [b for b in blocks if b["type"] not in ("tool_call", "invalid_tool_call")]
            blocks.extend(_chunk_blocks(message))
        else:
            _add_missing_calls(blocks, message)
    reasoning = message.additional_kwargs.get("reasoning_content")
    if isinstance(reasoning, str) and not any(b["type"] == "reasoning" for b in blocks):
        blocks.insert(0, {"type": "reasoning", "reasoning": reasoning})
    if provider == "anthropic":
        add_stop_refusal(blocks, message)  # ChatAnthropic's text replies: the list's rule
    return blocks


def _streaming_calls(message: AIMessage) -> bool:
    """Whether the reply is a piece of a stream whose tool calls are still arriving."""
    return (
        isinstance(message, AIMessageChunk)
        and bool(message.tool_call_chunks)
        and message.chunk_position != "last"
    )


def _chunk_blocks(message: AIMessage) -> Iterator[Block]:
    for chunk in cast(AIMessageChunk, message).tool_call_chunks:
        block: Block = {
            "type": "tool_call_chunk",
            "id": chunk.get("id"),
            "name": chunk.get("name"),
            "args": chunk.get("args"),
        }
        if chunk.get("index") is not None:
            block["index"] = chunk["index"]
        yield block


def _add_missing_calls(blocks: list[Block], message: AIMessage) -> None:
    """Append each tool call that no ``tool_call`` block of the content stands for."""
    # A list, not a set: a block's id is whatever the content says, maybe not hashable.
    present = [b.get("id") for b in blocks if b["type"] in ("tool_call", "tool_call_chunk")]
    for call in message.tool_calls:
        if call.get("id") not in present:
            blocks.append(tool_call_block(call))
