"""Tool-call parsers: the tool calls of a model's reply as dicts, arguments or pydantic models.

They read ``AIMessage.tool_calls``, whose arguments the message has already read as JSON.
Streamed, the reply so far is an ``AIMessageChunk`` whose calls hold the arguments read as
far as they go (partial JSON, resumed chunk by chunk by the message itself), and a value is
yielded each time it changes. Calls whose arguments are not (yet) a JSON object are left out
while the reply streams; the finished reply (the stream's last chunk, marked
``chunk_position="last"``, or a whole ``AIMessage``) is read as `invoke` reads it, where they
raise `OutputParserException`: a stream ends with the value `invoke` gives, or raises what
`invoke` raises.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from leanchain.errors import OutputParserException
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    InvalidToolCall,
    ToolCall,
    message_chunk_to_message,
)
from leanchain.output_parsers._base import (
    _NOTHING,
    BaseCumulativeTransformOutputParser,
    as_generation,
    generation_message,
)
from leanchain.outputs import ChatGeneration, Generation

__all__ = ["JsonOutputKeyToolsParser", "JsonOutputToolsParser", "PydanticToolsParser"]


def _not_a_message(parser: JsonOutputToolsParser, output: Any) -> OutputParserException:
    if isinstance(output, Generation) and not isinstance(output, ChatGeneration):
        output = output.text  # what a text output is given to parse_result as
    text = output if isinstance(output, str) else None
    return OutputParserException(
        f"{parser.get_name()} reads the tool calls of a chat model's message (an AIMessage), "
        f"got {type(output).__name__}: use it after a chat model that supports tool calling",
        llm_output=text,
    )


ECHO_LIMIT = 1000
"""How much of a call's arguments an error repeats; the rest is counted (as the agents do)."""


def _clip(text: str | None) -> str:
    """`text` as an error quotes it: its repr, cut short past `ECHO_LIMIT` characters."""
    if text is None or len(text) <= ECHO_LIMIT:
        return repr(text)
    return f"{text[:ECHO_LIMIT]!r}... ({len(text)} characters)"


def _finished(message: BaseMessage) -> bool:
    """Whether `message` is a whole reply: not a chunk, or a stream's last chunk."""
    return not isinstance(message, AIMessageChunk) or message.chunk_position == "last"


def _invalid_calls(invalid: Sequence[InvalidToolCall]) -> OutputParserException:
    lines = []
    for bad in invalid:
        why = f" ({bad['error']})" if bad["error"] else ""
        lines.append(
            f"Tool call {bad['name']!r} (id {bad['id']!r}): expected its arguments to be a JSON "
            f"object, got {_clip(bad['args'])}{why}"
        )
    return OutputParserException(
        "\n".join(lines), llm_output="\n".join(bad["args"] or "" for bad in invalid)
    )


class JsonOutputToolsParser(BaseCumulativeTransformOutputParser[Any]):
    """The tool calls of a model's reply: ``[{"args": {...}, "type": "search"}, ...]``.

    Each call is a dict with its arguments under ``"args"`` and the tool's name under
    ``"type"`` (LangChain's shape), and its ``"id"`` with `return_id`.

    Args:
        strict: accepted for LangChain compatibility; it has no effect, because the message
            has already read the arguments (as LangChain does whenever ``tool_calls`` is set).
        return_id: add each call's ``"id"``.
        first_tool_only: return only the first call, or ``None`` when there is none.

    Raises:
        OutputParserException: (when parsing) the output is not a message, or a call's
            arguments in the finished reply are not a JSON object.
    """

    __slots__ = ("first_tool_only", "return_id", "strict")

    def __init__(
        self, *, strict: bool = False, return_id: bool = False, first_tool_only: bool = False
    ) -> None:
        self.strict = strict
        """Accepted for LangChain compatibility; no effect."""
        self.return_id = return_id
        """Whether each call carries its ``"id"``."""
        self.first_tool_only = first_tool_only
        """Whether to return the first call (or ``None``) instead of the list."""

    def _tool_calls(self, output: Any, partial: bool) -> tuple[list[ToolCall], bool]:
        """The calls of `output` with JSON-object arguments, and whether it is still partial.

        A stream's last chunk is a finished reply: it is read as one even when `partial`.
        """
        message = generation_message(output)
        if message is None:
            raise _not_a_message(self, output)
        if not isinstance(message, AIMessage):
            return [], partial  # a human or tool message calls no tools (LangChain: [] too)
        if partial and not _finished(message):
            return message.tool_calls, True  # calls still being written are not among them
        if (
            isinstance(message, AIMessageChunk)
            and message.tool_call_chunks
            and message.chunk_position != "last"
        ):
            # A chunk reads its arguments as partial JSON; a finished reply's must be whole.
            finished = message_chunk_to_message(message)
            if isinstance(finished, AIMessage):
                message = finished
        if message.invalid_tool_calls:
            raise _invalid_calls(message.invalid_tool_calls)
        return message.tool_calls, False

    def _shape(self, call: ToolCall) -> dict[str, Any]:
        if self.return_id:
            return {"args": call["args"], "id": call["id"], "type": call["name"]}
        return {"args": call["args"], "type": call["name"]}

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The calls in the first output: a list of dicts, or the first one (or ``None``).

        Args:
            result: model outputs; the first is read (a message, or a generation with one).
            partial: the reply may still be streaming: leave out calls whose arguments are
                not a JSON object yet instead of raising (unless the reply is finished: a
                whole message, or a chunk marked ``chunk_position="last"``).

        Raises:
            OutputParserException: as the class says.
        """
        calls, _ = self._tool_calls(result[0], partial)
        if self.first_tool_only:
            return self._shape(calls[0]) if calls else None
        return [self._shape(call) for call in calls]

    def parse(self, text: str) -> Any:
        """Text holds no tool calls: always raises.

        Raises:
            OutputParserException: this parser needs a chat model's message.
        """
        raise _not_a_message(self, text)

    def _final(self, total: Any, parsed: Any, last: Any) -> Any:
        """The finished reply's value (or its error), when it is not the last one yielded."""
        if isinstance(total, BaseMessage) and _finished(total):
            return _NOTHING  # the last chunk was read as a finished reply already
        final = self.parse_result([as_generation(total, chunk=True)])
        return _NOTHING if final is None or final == last else final

    def _settings(self) -> list[str]:
        defaults = {"strict": False, "return_id": False, "first_tool_only": False}
        return [
            f"{name}={getattr(self, name)!r}"
            for name, default in defaults.items()
            if getattr(self, name) != default
        ]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._settings())})"


class JsonOutputKeyToolsParser(JsonOutputToolsParser):
    """The arguments of each call of one tool: ``[{"query": "a"}, ...]``.

    With `return_id` each call is ``{"args", "id", "type"}`` instead; calls of other tools
    are left out.

    Args:
        key_name: the tool whose calls to return.
        strict: accepted for LangChain compatibility; no effect.
        return_id: return ``{"args", "id", "type"}`` dicts instead of the arguments.
        first_tool_only: return only the first call of the tool, or ``None``.

    Raises:
        TypeError: `key_name` is not a string.
    """

    __slots__ = ("key_name",)

    def __init__(
        self,
        key_name: str,
        *,
        strict: bool = False,
        return_id: bool = False,
        first_tool_only: bool = False,
    ) -> None:
        if not isinstance(key_name, str):
            raise TypeError(f"key_name must be a tool name (a str), got {key_name!r}")
        super().__init__(strict=strict, return_id=return_id, first_tool_only=first_tool_only)
        self.key_name = key_name
        """The tool whose calls are returned."""

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The arguments (or dicts) of the tool's calls in the first output, or the first one.

        Raises:
            OutputParserException: as `JsonOutputToolsParser.parse_result`.
        """
        key = self.key_name
        calls = [call for call in self._tool_calls(result[0], partial)[0] if call["name"] == key]
        if self.first_tool_only:
            if not calls:
                return None
            return self._shape(calls[0]) if self.return_id else calls[0]["args"]
        if self.return_id:
            return [self._shape(call) for call in calls]
        return [call["args"] for call in calls]

    def _settings(self) -> list[str]:
        return [f"key_name={self.key_name!r}", *super()._settings()]


def _tool_name(model: type[BaseModel]) -> str:
    """The name a model is offered to the model under (LangChain: title, else class name)."""
    title = model.model_config.get("title")
    return title if isinstance(title, str) and title else model.__name__


class PydanticToolsParser(JsonOutputToolsParser):
    """The tool calls of a model's reply as instances of the tools' pydantic models.

    Each call's tool name picks the model (its ``model_config`` title, else its class name,
    as ``bind_tools`` names it), and its arguments are validated into an instance. Streamed,
    an instance is yielded whenever the arguments so far validate to a different one.

    Args:
        tools: the pydantic models (v2 ``BaseModel`` classes) bound as tools.
        strict: accepted for LangChain compatibility; no effect.
        return_id: accepted for LangChain compatibility; instances carry no id.
        first_tool_only: return only the first call's instance, or ``None``.

    Raises:
        TypeError: `tools` holds something that is not a pydantic model class.
    """

    __slots__ = ("_models", "tools")

    def __init__(
        self,
        tools: Sequence[type[BaseModel]],
        *,
        strict: bool = False,
        return_id: bool = False,
        first_tool_only: bool = False,
    ) -> None:
        if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
            raise TypeError(f"tools must be a list of pydantic model classes, got {tools!r}")
        for tool in tools:
            if not (isinstance(tool, type) and issubclass(tool, BaseModel)):
                raise TypeError(
                    f"tools must be pydantic BaseModel subclasses, got {tool!r} in {tools!r}"
                )
        super().__init__(strict=strict, return_id=return_id, first_tool_only=first_tool_only)
        self.tools = list(tools)
        """The pydantic models, in the order given."""
        self._models = {_tool_name(tool): tool for tool in self.tools}

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """Instances for the calls in the first output, or for the first one (or ``None``).

        While `partial`, calls of unknown tools and arguments that do not validate (yet) are
        left out.

        Raises:
            OutputParserException: as `JsonOutputToolsParser.parse_result`; also a call of a
                tool not in `tools` (``"Unknown tool type: 'x'. Available tools: A, B"``), and
                arguments that do not validate (``"Failed to parse {Model} from tool call
                {name!r} with arguments {json}. Got: {error}"``).
        """
        calls, partial = self._tool_calls(result[0], partial)
        if self.first_tool_only:
            calls = calls[:1]
        instances = []
        for call in calls:
            model = self._models.get(call["name"])
            if model is None:
                if partial:
                    continue  # the name may still be growing; the finished reply decides
                available = ", ".join(self._models) or "<no tools>"
                raise OutputParserException(
                    f"Unknown tool type: {call['name']!r}. Available tools: {available}"
                )
            try:
                instances.append(model.model_validate(call["args"]))
            except ValidationError as exc:
                if partial:
                    continue
                arguments = json.dumps(call["args"], ensure_ascii=False)
                shown = arguments if len(arguments) <= ECHO_LIMIT else _clip(arguments)
                raise OutputParserException(
                    f"Failed to parse {model.__name__} from tool call {call['name']!r} with "
                    f"arguments {shown}. Got: {exc}",
                    llm_output=arguments,
                ) from exc
        if self.first_tool_only:
            return instances[0] if instances else None
        return instances

    def _settings(self) -> list[str]:
        names = ", ".join(tool.__name__ for tool in self.tools)
        return [f"tools=[{names}]", *super()._settings()]
