"""The model's messages: ``AIMessage`` and the streamed ``AIMessageChunk``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, Self

from pydantic import Field, PrivateAttr, model_validator

from leanchain._partial_json import JsonPrefixScan

from ._base import MISSING, BaseMessage, BaseMessageChunk
from ._encodable import display_text
from ._merge import Content
from ._tool import (
    InvalidToolCall,
    ToolCall,
    ToolCallChunk,
    default_tool_chunk_parser,
    default_tool_parser,
    tool_call_chunk,
)
from ._tool_chunks import calls_from_chunks, merge_tool_call_chunks, scan_args
from ._usage import UsageMetadata, add_usage

if TYPE_CHECKING:
    from ._block_types import ContentBlock

__all__ = ["AIMessage", "AIMessageChunk"]


class AIMessage(BaseMessage):
    """A reply from the model: text, tool calls, or both.

    ``tool_calls`` given as plain dicts get their ``"type": "tool_call"`` key added. A message
    built with no tool calls but OpenAI-style raw calls in ``additional_kwargs["tool_calls"]``
    gets them parsed into ``tool_calls``/``invalid_tool_calls``.
    """

    type: Literal["ai"] = "ai"
    """Always "ai"."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """The tools the model asked to call, with parsed arguments."""
    invalid_tool_calls: list[InvalidToolCall] = Field(default_factory=list)
    """Tool calls whose arguments were not a JSON object."""
    usage_metadata: UsageMetadata | None = None
    """Token counts for the call that produced this message, if the provider reported them."""

    def __init__(
        self,
        content: Content = MISSING,
        /,
        *,
        content_blocks: Sequence[ContentBlock] | None = None,
        **kwargs: Any,
    ) -> None:
        if content_blocks is not None and "tool_calls" not in kwargs:
            # As LangChain: the tool_call blocks are the message's calls unless it is given some
            # (a block's index and extras are the content's, not the call's).
            blocks: Sequence[Mapping[str, Any]] = content_blocks
            calls = [
                {key: block[key] for key in ("name", "args", "id") if key in block}
                for block in blocks
                if isinstance(block, Mapping) and block.get("type") == "tool_call"
            ]
            if calls:
                kwargs["tool_calls"] = calls
        super().__init__(content, content_blocks=content_blocks, **kwargs)

    @model_validator(mode="before")
    @classmethod
    def _normalise_tool_calls(cls, data: Any) -> Any:
        return cls._prepare(data) if isinstance(data, dict) else data

    @classmethod
    def _prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        calls, invalid = data.get("tool_calls"), data.get("invalid_tool_calls")
        if not calls and not invalid:
            raw = _raw_tool_calls(data)
            if raw is None:
                return data
            data = dict(data)
            data["tool_calls"], data["invalid_tool_calls"] = default_tool_parser(raw)
            return data
        data = dict(data)
        if calls:
            data["tool_calls"] = _with_type(calls, {"id": None}, "tool_call")
        if invalid:
            data["invalid_tool_calls"] = _with_type(invalid, _INVALID_DEFAULTS, "invalid_tool_call")
        return data

    def pretty_repr(self, html: bool = False) -> str:
        """The base rendering followed by the tool calls and invalid tool calls, if any."""
        lines: list[str] = []
        if self.tool_calls:
            lines.append("Tool Calls:")
            for call in self.tool_calls:
                lines.extend(_call_lines(call))
        if self.invalid_tool_calls:
            lines.append("Invalid Tool Calls:")
            for bad in self.invalid_tool_calls:
                lines.extend(_call_lines(bad))
        return (super().pretty_repr(html=html).strip() + "\n" + "\n".join(lines)).strip()


class AIMessageChunk(AIMessage, BaseMessageChunk):
    """A piece of a streamed model reply; pieces combine with ``+``.

    ``tool_calls`` and ``invalid_tool_calls`` are derived from ``tool_call_chunks``.

    While a stream runs, each chunk's arguments are read with the partial-JSON parser (a call's
    arguments grow as they arrive): a JSON object (or no arguments at all) gives a
    ``ToolCall``, anything else an ``InvalidToolCall`` with ``error`` ``None``.

    A chunk marked ``chunk_position="last"`` is a finished reply, and its arguments must be
    complete JSON (:func:`parse_tool_call_args`): arguments the stream cut off, malformed or
    not an object give an ``InvalidToolCall`` whose ``error`` says which ("the arguments were
    cut off before their JSON was complete: ..."). That holds however the chunk came to be
    last: built so, summed with ``+`` with a last piece, or copied with
    ``model_copy(update={"chunk_position": "last"})``. So truncated arguments never reach a
    tool as a valid-looking ``ToolCall``; :func:`message_chunk_to_message` applies the same
    rule to any chunk.

    Built with ``tool_calls`` and no chunks, the chunks are made from the calls (arguments as
    JSON text, ``index`` ``None``).

    ``+`` follows ``langchain-behaviour.md`` §2.4: tool-call chunks join by ``index`` (never
    two different ids), usage adds up, the first provider id wins over ``lc_`` ids, and
    ``chunk_position`` is "last" if any piece is last. Each piece's arguments are scanned
    once however many pieces follow, so a stream of n pieces costs O(n) scanning.
    """

    type: Literal["AIMessageChunk"] = "AIMessageChunk"  # type: ignore[assignment]
    """Always "AIMessageChunk"."""
    tool_call_chunks: list[ToolCallChunk] = Field(default_factory=list)
    """The streamed pieces of tool calls."""
    chunk_position: Literal["last"] | None = None
    """ "last" on the final piece of a stream."""

    # Each chunk's args with their partial-JSON scan, so that the next piece resumes it. A
    # scan is used only while the chunk still holds that very string (model_copy may not).
    _arg_scans: tuple[tuple[str | None, JsonPrefixScan | None], ...] | None = PrivateAttr(
        default=None
    )

    def __init__(
        self,
        content: Content = MISSING,
        /,
        *,
        content_blocks: Sequence[ContentBlock] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(content, content_blocks=content_blocks, **kwargs)

    @classmethod
    def _prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        chunks = data.get("tool_call_chunks")
        if not chunks:
            if data.get("tool_calls") or data.get("invalid_tool_calls"):
                return _chunks_from_calls(super()._prepare(data))
            raw = _raw_tool_calls(data)
            if raw is None:
                return data
            chunks = default_tool_chunk_parser(raw)
        data = dict(data)
        chunks = [_normalise_chunk(c) if isinstance(c, Mapping) else c for c in chunks]
        data["tool_call_chunks"] = chunks
        if all(isinstance(c, dict) and isinstance(c["args"], (str, type(None))) for c in chunks):
            final = data.get("chunk_position") == "last"
            scans = [None if final else scan_args(c["args"], None) for c in chunks]
            calls, invalid = calls_from_chunks(chunks, scans, final=final)
            data["tool_calls"], data["invalid_tool_calls"] = calls, invalid
        return data

    @staticmethod
    def _of_text(text: str, message_id: str | None) -> AIMessageChunk:
        """``AIMessageChunk(content=text, id=message_id)``: a streamed piece of reply text.

        Internal API, for the text leanchain streams itself (providers, the fake models):
        built without validation (`_construct`), as a stream makes one per token and
        validation would be most of its cost.
        """
        return AIMessageChunk._construct(
            {
                "content": text,
                "additional_kwargs": {},
                "response_metadata": {},
                "type": "AIMessageChunk",
                "name": None,
                "id": message_id,
                "tool_calls": [],
                "invalid_tool_calls": [],
                "usage_metadata": None,
                "tool_call_chunks": [],
                "chunk_position": None,
            }
        )

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with ``update`` applied without validation, as pydantic's ``model_copy``.

        A copy that the update marks ``chunk_position="last"`` (and that is not given its own
        ``tool_calls``/``invalid_tool_calls``) has its calls read again as a finished reply's
        (see the class docstring): a stream's last chunk is often made this way.
        """
        copied = super().model_copy(update=update, deep=deep)
        if (
            update
            and copied.chunk_position == "last"
            and self.chunk_position != "last"
            and copied.tool_call_chunks
            and "tool_calls" not in update
            and "invalid_tool_calls" not in update
        ):
            fields = copied.__dict__
            fields["tool_calls"], fields["invalid_tool_calls"] = copied._final_tool_calls()
        return copied

    def _final_tool_calls(self) -> tuple[list[ToolCall], list[InvalidToolCall]]:
        """This chunk's calls read as a finished reply's: arguments must be complete JSON."""
        chunks = self.tool_call_chunks
        return calls_from_chunks(chunks, [None] * len(chunks), final=True)

    def _merge(self, others: Sequence[BaseMessageChunk]) -> Self:
        ai = [o for o in others if isinstance(o, AIMessageChunk)]
        fields = self._merge_common(others)
        fields["id"] = _preferred_id([self.id, *(o.id for o in others)])
        last = self.chunk_position == "last" or any(o.chunk_position == "last" for o in ai)
        scans: tuple[tuple[str | None, JsonPrefixScan | None], ...] | None = None
        if self.tool_call_chunks or any(o.tool_call_chunks for o in ai):
            chunks, scan_list = merge_tool_call_chunks(self, ai)
            fields["tool_calls"], fields["invalid_tool_calls"] = calls_from_chunks(
                chunks, scan_list, final=last
            )
            scans = tuple((c["args"], scan) for c, scan in zip(chunks, scan_list, strict=True))
        else:
            chunks = []
            fields["tool_calls"], fields["invalid_tool_calls"] = [], []
        usages = [u for u in (self.usage_metadata, *(o.usage_metadata for o in ai)) if u]
        usage = usages[0] if usages else None
        for more in usages[1:]:
            usage = add_usage(usage, more)
        fields["usage_metadata"] = usage
        fields["tool_call_chunks"] = chunks
        fields["chunk_position"] = "last" if last else None
        return self._construct(fields, {"_arg_scans": scans})


_INVALID_DEFAULTS: Final[dict[str, Any]] = {"name": None, "args": None, "id": None, "error": None}


def _with_type(entries: Any, defaults: dict[str, Any], tag: str) -> Any:
    """Dict entries with missing keys defaulted and ``type`` set; others left to validation."""
    if not isinstance(entries, list):
        return entries
    return [{**defaults, **e, "type": tag} if isinstance(e, Mapping) else e for e in entries]


def _raw_tool_calls(data: dict[str, Any]) -> list[Any] | None:
    extra = data.get("additional_kwargs")
    raw = extra.get("tool_calls") if isinstance(extra, Mapping) else None
    return raw if isinstance(raw, list) and raw else None


def _normalise_chunk(chunk: Mapping[str, Any]) -> ToolCallChunk:
    return tool_call_chunk(
        name=chunk.get("name"), args=chunk.get("args"), id=chunk.get("id"), index=chunk.get("index")
    )


def _chunks_from_calls(data: dict[str, Any]) -> dict[str, Any]:
    """Tool-call chunks made from given calls: JSON text arguments, no index."""
    chunks: list[Any] = []
    for call in data.get("tool_calls") or ():
        if not (isinstance(call, Mapping) and isinstance(call.get("args"), dict)):
            return data  # leave the malformed call to validation
        chunks.append(
            tool_call_chunk(name=call.get("name"), args=json.dumps(call["args"]), id=call.get("id"))
        )
    for bad in data.get("invalid_tool_calls") or ():
        if not isinstance(bad, Mapping):
            return data
        chunks.append(tool_call_chunk(name=bad.get("name"), args=bad.get("args"), id=bad.get("id")))
    data["tool_call_chunks"] = chunks
    return data


def _preferred_id(ids: Sequence[str | None]) -> str | None:
    """A provider's id first, then a run id (``lc_run-``), then any other ``lc_`` id."""
    for candidate in ids:
        if candidate and not candidate.startswith("lc_"):
            return candidate
    for candidate in ids:
        if candidate and candidate.startswith("lc_run-"):
            return candidate
    return next((candidate for candidate in ids if candidate), None)


def _call_lines(call: ToolCall | InvalidToolCall) -> list[str]:
    lines = [f"  {call.get('name', 'Tool')} ({call.get('id')})", f" Call ID: {call.get('id')}"]
    error = call.get("error")
    if error:
        lines.append(f"  Error: {error}")
    lines.append("  Args:")
    args = call.get("args")
    if isinstance(args, str):
        lines.append(f"    {args}")
    elif isinstance(args, dict):
        lines.extend(f"    {key}: {display_text(value)}" for key, value in args.items())
    return lines
