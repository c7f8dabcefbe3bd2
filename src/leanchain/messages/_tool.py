"""Tool calls as the model asks for them, and tool results as messages.

``ToolCall``/``ToolCallChunk``/``InvalidToolCall`` are plain dicts (TypedDicts), as in
LangChain: cheap to build, compare and serialise. The factories always add the ``type`` key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, NotRequired, Self
from uuid import UUID

from pydantic import model_validator
from typing_extensions import TypedDict

from leanchain._partial_json import parse_complete_json, parse_partial_json
from leanchain.errors import ContentEncodingError

from ._base import MISSING, BaseMessage, BaseMessageChunk
from ._encodable import why_unencodable
from ._merge import Content, merge_obj

if TYPE_CHECKING:
    from ._block_types import ContentBlock

__all__ = [
    "InvalidToolCall",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "ToolMessageChunk",
    "default_tool_chunk_parser",
    "default_tool_parser",
    "invalid_tool_call",
    "parse_tool_call_args",
    "tool_call",
    "tool_call_chunk",
]


class ToolCall(TypedDict):
    """A request from the model to call a tool with parsed arguments."""

    name: str
    """The tool's name."""
    args: dict[str, Any]
    """The arguments, parsed from the model's JSON."""
    id: str | None
    """The call's id; a ``ToolMessage`` answering it carries the same ``tool_call_id``."""
    type: NotRequired[Literal["tool_call"]]
    """Always "tool_call" when built by :func:`tool_call`."""


class ToolCallChunk(TypedDict):
    """A piece of a streamed tool call; pieces with the same ``index`` join up."""

    name: str | None
    """The tool's name, usually only in the first piece."""
    args: str | None
    """A piece of the arguments' JSON text."""
    id: str | None
    """The call's id, usually only in the first piece."""
    index: int | None
    """Which call of the message this piece belongs to; ``None`` never joins another piece."""
    type: NotRequired[Literal["tool_call_chunk"]]
    """Always "tool_call_chunk" when built by :func:`tool_call_chunk`."""


class InvalidToolCall(TypedDict):
    """A tool call whose arguments are not a JSON object."""

    name: str | None
    """The tool's name, if the model gave one."""
    args: str | None
    """The arguments' raw text."""
    id: str | None
    """The call's id, if the model gave one."""
    error: str | None
    """What was wrong, if known."""
    type: Literal["invalid_tool_call"]
    """Always "invalid_tool_call"."""
    index: NotRequired[int | str]
    """The call's position in a stream, when the provider numbers them."""
    extras: NotRequired[dict[str, Any]]
    """Provider-specific data."""


def tool_call(*, name: str, args: dict[str, Any], id: str | None) -> ToolCall:
    """A :class:`ToolCall` with its ``type`` set."""
    return ToolCall(name=name, args=args, id=id, type="tool_call")


def tool_call_chunk(
    *,
    name: str | None = None,
    args: str | None = None,
    id: str | None = None,
    index: int | None = None,
) -> ToolCallChunk:
    """A :class:`ToolCallChunk` with its ``type`` set."""
    return ToolCallChunk(name=name, args=args, id=id, index=index, type="tool_call_chunk")


def invalid_tool_call(
    *,
    name: str | None = None,
    args: str | None = None,
    id: str | None = None,
    error: str | None = None,
) -> InvalidToolCall:
    """An :class:`InvalidToolCall` with its ``type`` set."""
    return InvalidToolCall(name=name, args=args, id=id, error=error, type="invalid_tool_call")


CUT_OFF: Final = "the arguments were cut off before their JSON was complete"
"""How :func:`parse_tool_call_args` begins the error for arguments that are a mere prefix of
JSON (a stream that ended inside them); the JSON decoder's message follows."""


def parse_tool_call_args(args: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Read a finished tool call's arguments: the one rule for every final reply.

    While a reply streams, arguments are read as partial JSON (they grow); once it is
    finished they must be one complete JSON object, or the call must not run.

    Returns:
        ``(arguments, None)`` for a JSON object (``{}`` for empty or missing arguments), or
        ``(None, error)``: ``"the arguments were cut off before their JSON was complete: "``
        and the decoder's message when the text is only a prefix of JSON, the decoder's
        message alone when it is not JSON, ``"expected a JSON object, got list"`` (say) for
        another JSON value. Raw control characters inside strings are allowed, as in the
        partial reading.
    """
    if not args:
        return {}, None
    try:
        value = parse_complete_json(args)
    except json.JSONDecodeError as exc:
        # Only on failure is it worth asking whether the text was a prefix of JSON.
        try:
            parse_partial_json(args)
        except json.JSONDecodeError:
            return None, str(exc)
        return None, f"{CUT_OFF}: {exc}"
    if isinstance(value, dict):
        return value, None
    return None, f"expected a JSON object, got {type(value).__name__}"


def default_tool_parser(
    raw_tool_calls: Sequence[Any],
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Split OpenAI-style raw tool calls (``{"id", "function": {"name", "arguments"}}``).

    Arguments that are a JSON object give a :class:`ToolCall` (empty arguments give ``{}``);
    anything else gives an :class:`InvalidToolCall`. Entries without a ``function`` are
    skipped.
    """
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for raw in raw_tool_calls:
        function = raw.get("function") if isinstance(raw, Mapping) else None
        if not isinstance(function, Mapping):
            continue
        name, arguments, call_id = function.get("name"), function.get("arguments"), raw.get("id")
        try:
            args = json.loads(arguments) if arguments else {}
        except (TypeError, ValueError, RecursionError):
            args = None
        if isinstance(args, dict):
            calls.append(tool_call(name=name or "", args=args, id=call_id))
        else:
            invalid.append(invalid_tool_call(name=name, args=arguments, id=call_id))
    return calls, invalid


def default_tool_chunk_parser(raw_tool_calls: Sequence[Any]) -> list[ToolCallChunk]:
    """OpenAI-style streamed raw tool calls as :class:`ToolCallChunk` pieces."""
    chunks: list[ToolCallChunk] = []
    for raw in raw_tool_calls:
        if not isinstance(raw, Mapping):
            continue
        function = raw.get("function")
        if not isinstance(function, Mapping):
            function = {}
        chunks.append(
            tool_call_chunk(
                name=function.get("name"),
                args=function.get("arguments"),
                id=raw.get("id"),
                index=raw.get("index"),
            )
        )
    return chunks


class ToolMessage(BaseMessage):
    """The result of a tool call, sent back to the model.

    Content that is not text or a list is turned into text (``123`` → ``"123"``, a dict → its
    ``str()``); list items that are not str or dict likewise. A UUID or number
    ``tool_call_id`` becomes a string.
    """

    type: Literal["tool"] = "tool"
    """Always "tool"."""
    tool_call_id: str
    """The id of the tool call this message answers."""
    artifact: Any = None
    """The tool's full output when ``content`` holds only what the model should see."""
    status: Literal["success", "error"] = "success"
    """Whether the tool succeeded; "error" tells the model the call failed."""

    def __init__(
        self,
        content: Content = MISSING,
        /,
        *,
        content_blocks: Sequence[ContentBlock] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(content, content_blocks=content_blocks, **kwargs)

    @model_validator(mode="before")
    @classmethod
    def _coerce_content_and_id(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        content = data.get("content", MISSING)
        call_id = data.get("tool_call_id")
        fix_content = content is not MISSING and not isinstance(content, str)
        fix_id = isinstance(call_id, (UUID, int, float)) and not isinstance(call_id, bool)
        if not (fix_content or fix_id):
            return data
        data = dict(data)
        if fix_content:
            try:
                if isinstance(content, (list, tuple)):
                    data["content"] = [c if isinstance(c, str | dict) else str(c) for c in content]
                else:
                    data["content"] = str(content)
            except (ValueError, RecursionError) as exc:
                why = why_unencodable(exc)
                if why is None:
                    raise
                # A ValueError: pydantic reports it as the content's validation error.
                raise ContentEncodingError(f"ToolMessage content cannot be text: {why}") from None
        if fix_id:
            data["tool_call_id"] = str(call_id)
        return data


class ToolMessageChunk(ToolMessage, BaseMessageChunk):
    """A piece of a streamed tool message; only pieces for the same tool call combine.

    Artifacts merge with :func:`merge_obj`; the status is "error" if any piece says so.
    """

    type: Literal["ToolMessageChunk"] = "ToolMessageChunk"  # type: ignore[assignment]
    """Always "ToolMessageChunk"."""

    def __init__(self, content: Content = MISSING, /, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)

    def _merge(self, others: Sequence[BaseMessageChunk]) -> Self:
        artifact = self.artifact
        status = self.status
        for other in others:
            if isinstance(other, ToolMessageChunk):
                if other.tool_call_id != self.tool_call_id:
                    raise ValueError("Cannot concatenate ToolMessageChunks with different names.")
                artifact = merge_obj(artifact, other.artifact)
                if other.status == "error":
                    status = "error"
        fields = self._merge_common(others)
        fields["tool_call_id"] = self.tool_call_id
        fields["artifact"] = artifact
        fields["status"] = status
        return self._construct(fields)
