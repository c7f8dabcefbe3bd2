"""How the streamed pieces of tool calls join into calls (`AIMessageChunk`'s ``+``).

Pieces join by ``index`` (never two different ids). Each piece's arguments are scanned as a
prefix of JSON once, and the scan is resumed by the pieces that follow (`JsonPrefixScan`), so
a stream of n pieces costs O(n) scanning; `calls_from_chunks` then reads the arguments as a
growing stream's (partial JSON) or, for a finished reply, as complete JSON only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from leanchain._partial_json import JsonPrefixScan

from ._tool import (
    InvalidToolCall,
    ToolCall,
    ToolCallChunk,
    invalid_tool_call,
    parse_tool_call_args,
    tool_call,
    tool_call_chunk,
)

if TYPE_CHECKING:
    from ._ai import AIMessageChunk

__all__ = ["BROKEN", "calls_from_chunks", "merge_tool_call_chunks", "scan_args"]

BROKEN: Final = JsonPrefixScan(0, None, 0, False, -1, -1)
"""The scan of arguments that are not a prefix of JSON: no continuation can repair them."""


def scan_args(args: str | None, resume: JsonPrefixScan | None) -> JsonPrefixScan | None:
    """The scan of ``args`` (resuming the scan of a prefix), ``BROKEN``, or None if empty."""
    if not args:
        return None
    if resume is BROKEN:
        return BROKEN
    try:
        return JsonPrefixScan.of(args, resume)
    except json.JSONDecodeError:
        return BROKEN


def calls_from_chunks(
    chunks: Sequence[ToolCallChunk],
    scans: Sequence[JsonPrefixScan | None],
    *,
    final: bool = False,
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Split chunks into calls and invalid ones; ``scans[i]`` covers chunk i's args.

    ``final`` reads the arguments as a finished reply's (:func:`parse_tool_call_args`:
    complete JSON only, errors said) and then ``scans`` is not used; otherwise as a growing
    stream's (partial JSON, ``error`` ``None``).
    """
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for chunk, scan in zip(chunks, scans, strict=True):
        args = chunk["args"]
        value: Any = {}
        error = None
        if final:
            value, error = parse_tool_call_args(args)
        elif args:
            value = None
            if scan is not None and scan is not BROKEN:
                try:
                    value = scan.parse(args)
                except json.JSONDecodeError:
                    value = None
        if isinstance(value, dict):
            calls.append(tool_call(name=chunk["name"] or "", args=value, id=chunk["id"]))
        else:
            invalid.append(
                invalid_tool_call(name=chunk["name"], args=args, id=chunk["id"], error=error)
            )
    return calls, invalid


class _Joined:
    """A tool-call chunk being extended by later pieces during one merge."""

    __slots__ = ("args", "chunk", "id", "index", "names", "resume")

    def __init__(self, chunk: ToolCallChunk, resume: JsonPrefixScan | None) -> None:
        self.chunk: ToolCallChunk | None = chunk  # the original, while nothing joined it
        self.resume = resume
        self.names = [] if chunk["name"] is None else [chunk["name"]]
        self.args = [] if chunk["args"] is None else [chunk["args"]]
        self.id = chunk["id"]
        self.index = chunk["index"]

    def join(self, piece: ToolCallChunk) -> None:
        self.chunk = None
        if piece["name"] is not None:
            self.names.append(piece["name"])
        if piece["args"] is not None:
            self.args.append(piece["args"])
        piece_id = piece["id"]
        if self.id is None:
            self.id = piece_id
        elif piece_id is not None and piece_id != self.id:
            self.id += piece_id  # one of them is "": ids that differ never join

    def result(self) -> tuple[ToolCallChunk, JsonPrefixScan | None]:
        if self.chunk is not None:
            chunk, resume = self.chunk, self.resume
            return chunk, resume if resume is not None else scan_args(chunk["args"], None)
        joined = tool_call_chunk(
            name="".join(self.names) if self.names else None,
            args="".join(self.args) if self.args else None,
            id=self.id,
            index=self.index,
        )
        return joined, scan_args(joined["args"], self.resume)


def merge_tool_call_chunks(
    left: AIMessageChunk, others: Sequence[AIMessageChunk]
) -> tuple[list[ToolCallChunk], list[JsonPrefixScan | None]]:
    """`left`'s tool-call chunks with `others`' pieces joined on, and each chunk's argument
    scan (resumed from the scans `left` kept for the very same argument strings)."""
    known = left._arg_scans or ()
    joined = []
    for position, chunk in enumerate(left.tool_call_chunks):
        resume = None
        if position < len(known) and known[position][0] is chunk["args"]:
            resume = known[position][1]
        joined.append(_Joined(chunk, resume))
    for other in others:
        for piece in other.tool_call_chunks:
            target = _continued(joined, piece)
            if target is None:
                joined.append(_Joined(piece, None))
            else:
                target.join(piece)
    chunks: list[ToolCallChunk] = []
    scan_list: list[JsonPrefixScan | None] = []
    for entry in joined:
        chunk, scan = entry.result()
        chunks.append(chunk)
        scan_list.append(scan)
    return chunks, scan_list


def _continued(joined: list[_Joined], piece: ToolCallChunk) -> _Joined | None:
    """The last chunk with the piece's index and no contradicting id, if any."""
    index = piece["index"]
    if not isinstance(index, int):
        return None
    piece_id = piece["id"]
    for entry in reversed(joined):
        if entry.index == index and (not entry.id or not piece_id or entry.id == piece_id):
            return entry
    return None
