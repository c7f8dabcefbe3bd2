"""An Anthropic reply's content blocks as standard blocks (LangChain 1.x's Anthropic rules).

Used by ``content_blocks`` for a reply whose ``response_metadata["model_provider"]`` is
"anthropic" and whose content is a list (``ChatAnthropic`` keeps the list when the reply has
blocks other than text and tool use: thinking, server tools, citations). ``thinking`` becomes
``reasoning`` (its ``signature`` under ``extras``), ``tool_use`` a ``tool_call`` taken from
the message's parsed ``tool_calls`` (a ``tool_call_chunk`` while a stream brings it), server
tools ``server_tool_call``/``server_tool_result``, citations standard annotations, and a
``stop_reason`` of "refusal" a ``refusal`` block.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ._ai import AIMessage

__all__ = ["add_stop_refusal", "from_anthropic"]

Block = dict[str, Any]

_THINKING_KNOWN: Final = frozenset({"type", "thinking", "index", "extras"})
_SERVER_CALL_KNOWN: Final = frozenset({"type", "name", "input", "partial_json", "id", "index"})
_RESULT_KNOWN: Final = frozenset({"type", "tool_use_id", "content", "is_error", "index"})
_DOCUMENT_CITATIONS: Final = frozenset(
    {"char_location", "content_block_location", "page_location", "search_result_location"}
)


def from_anthropic(message: AIMessage) -> list[Block]:
    """The standard blocks of an Anthropic reply with list content."""
    from ._ai import AIMessageChunk  # a cycle at import: _ai is loaded by then

    chunk = message if isinstance(message, AIMessageChunk) else None
    streaming = chunk is not None and chunk.chunk_position != "last"
    blocks: list[Block] = []
    for item in message.content:
        if isinstance(item, str):
            blocks.append({"type": "text", "text": item})
            continue
        kind = item.get("type")
        if kind == "text":
            blocks.append(_text(item))
        elif kind == "thinking":
            reasoning: Block = {"type": "reasoning", "reasoning": item.get("thinking", "")}
            _copy_index(reasoning, item)
            _extras(reasoning, item, _THINKING_KNOWN)
            blocks.append(reasoning)
        elif kind == "refusal":
            refusal: Block = {"type": "refusal", "refusal": item.get("refusal", "")}
            if item.get("extras"):
                refusal["extras"] = item["extras"]
            _copy_index(refusal, item)
            blocks.append(refusal)
        elif kind == "tool_use":
            if streaming and chunk is not None and len(chunk.tool_call_chunks) == 1:
                blocks.append(_call_chunk(chunk.tool_call_chunks[0], item))
            else:
                blocks.append(_tool_call(message, item))
        elif kind == "input_json_delta" and chunk is not None:
            if len(chunk.tool_call_chunks) == 1:
                blocks.append(_call_chunk(chunk.tool_call_chunks[0], {}))
            else:
                delta: Block = {
                    "type": "server_tool_call_chunk",
                    "args": item.get("partial_json", ""),
                }
                _copy_index(delta, item)
                blocks.append(delta)
        elif kind == "server_tool_use" or kind == "mcp_tool_use":
            blocks.append(_server_call(item, streaming))
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            blocks.append(_server_result(item, kind))
        else:
            value = dict(item)
            wrapped: Block = {"type": "non_standard", "value": value}
            if "index" in value:
                wrapped["index"] = value.pop("index")
            blocks.append(wrapped)
    add_stop_refusal(blocks, message)
    return blocks


def add_stop_refusal(blocks: list[Block], message: AIMessage) -> None:
    """Append a ``refusal`` block for a reply Anthropic stopped as a refusal, if none is there."""
    metadata = message.response_metadata
    if metadata.get("stop_reason") == "refusal" and not any(b["type"] == "refusal" for b in blocks):
        details = metadata.get("stop_details")
        details = details if isinstance(details, Mapping) else {}
        refusal: Block = {"type": "refusal", "refusal": details.get("explanation") or ""}
        if details.get("category"):
            refusal["extras"] = {"category": details["category"]}
        blocks.append(refusal)


def _copy_index(standard: Block, block: Mapping[str, Any]) -> None:
    if "index" in block:
        standard["index"] = block["index"]


def _extras(standard: Block, block: Mapping[str, Any], known: frozenset[str]) -> None:
    extras = {key: value for key, value in block.items() if key not in known}
    if extras:
        standard.setdefault("extras", {}).update(extras)


def _text(block: Mapping[str, Any]) -> Block:
    text: Block = {"type": "text", "text": block.get("text", "")}
    citations = block.get("citations")
    if citations:
        text["annotations"] = [_citation(c) for c in citations]
    _copy_index(text, block)
    return text


def _citation(citation: Any) -> Block:
    if not isinstance(citation, Mapping):
        return {"type": "non_standard_annotation", "value": citation}
    kind = citation.get("type")
    if kind == "web_search_result_location" and "cited_text" in citation and "url" in citation:
        standard: Block = {
            "type": "citation",
            "cited_text": citation["cited_text"],
            "url": citation["url"],
        }
        if citation.get("title"):
            standard["title"] = citation["title"]
        _extras(standard, citation, frozenset({"type", "cited_text", "url", "title", "index"}))
        return standard
    if kind in _DOCUMENT_CITATIONS and "cited_text" in citation:
        standard = {"type": "citation", "cited_text": citation["cited_text"]}
        if "document_title" in citation:
            standard["title"] = citation["document_title"]
        elif citation.get("title"):
            standard["title"] = citation["title"]
        known = frozenset({"type", "cited_text", "document_title", "title", "index"})
        _extras(standard, citation, known)
        return standard
    return {"type": "non_standard_annotation", "value": dict(citation)}


def _call_chunk(piece: Mapping[str, Any], block: Mapping[str, Any]) -> Block:
    standard: Block = {
        "type": "tool_call_chunk",
        "id": piece.get("id"),
        "name": piece.get("name"),
        "args": piece.get("args"),
    }
    if piece.get("index") is not None:
        standard["index"] = piece["index"]
    _caller_extras(standard, block)
    return standard


def _tool_call(message: AIMessage, block: Mapping[str, Any]) -> Block:
    """The parsed call the block stands for: by id, else the reply's only call, else its input."""
    calls = message.tool_calls
    call = next((c for c in calls if block.get("id") and c.get("id") == block["id"]), None)
    if call is None and len(calls) == 1:
        call = calls[0]
    if call is not None:
        standard: Block = {
            "type": "tool_call",
            "id": call.get("id"),
            "name": call["name"],
            "args": call["args"],
        }
    else:
        standard = {
            "type": "tool_call",
            "id": block.get("id", ""),
            "name": block.get("name", ""),
            "args": block.get("input", {}),
        }
    _copy_index(standard, block)
    _caller_extras(standard, block)
    return standard


def _caller_extras(standard: Block, block: Mapping[str, Any]) -> None:
    for key in ("caller", "toolset_name"):
        if key in block:
            standard.setdefault("extras", {})[key] = block[key]


def _server_call(block: Mapping[str, Any], streaming: bool) -> Block:
    mcp = block["type"] == "mcp_tool_use"
    name = "remote_mcp" if mcp else block.get("name", "")
    if name == "code_execution":
        name = "code_interpreter"
    first_piece = streaming and block.get("input") == {} and "partial_json" not in block
    standard: Block
    if first_piece:
        standard = {
            "type": "server_tool_call_chunk",
            "name": name,
            "args": "",
            "id": block.get("id", ""),
        }
    else:
        standard = {
            "type": "server_tool_call",
            "name": name,
            "args": block.get("input", {}),
            "id": block.get("id", ""),
        }
        if block.get("input") == {} and isinstance(block.get("partial_json"), str):
            try:
                value = json.loads(block["partial_json"])
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict):
                standard["args"] = value
    _copy_index(standard, block)
    if mcp and "name" in block:
        standard["extras"] = {"tool_name": block["name"]}
    _extras(standard, block, _SERVER_CALL_KNOWN)
    return standard


def _server_result(block: Mapping[str, Any], kind: str) -> Block:
    standard: Block = {
        "type": "server_tool_result",
        "tool_call_id": block.get("tool_use_id", ""),
        "status": "success",
        "extras": {"block_type": kind},
    }
    output = block.get("content", [])
    if output:
        standard["output"] = output
        if isinstance(output, Mapping) and output.get("error_code"):
            standard["status"] = "error"
    if block.get("is_error"):
        standard["status"] = "error"
    _copy_index(standard, block)
    _extras(standard, block, _RESULT_KNOWN)
    return standard
