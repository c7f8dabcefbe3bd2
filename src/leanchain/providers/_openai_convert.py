"""leanchain messages to OpenAI Chat Completions and back (provider-wire.md §5.1, §5.2, §5.5).

Outbound: one dict per message, in place; AI tool calls with JSON-string ``arguments`` and
``content: null`` when there is no text (never null without tool calls); one ``tool`` message
per result. Inbound: a ``ChatCompletion`` becomes an `AIMessage`, and the chunks of a stream
become `AIMessageChunk`s through `OpenAIStreamReader`, which numbers tool-call pieces by their
``index`` and sends each call's id and name once, however the server repeats them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolCallChunk,
    ToolMessage,
    UsageMetadata,
    invalid_tool_call,
    tool_call,
    tool_call_chunk,
)
from leanchain.tools import convert_to_openai_tool

from ._content import read_image, text_blocks

__all__ = [
    "OpenAIStreamReader",
    "message_from_openai",
    "openai_tool_choice",
    "openai_tools",
    "to_openai_messages",
    "usage_from_openai",
]

_CHOICE_WORDS: Final = {"auto": "auto", "none": "none", "required": "required", "any": "required"}


# -- outbound -------------------------------------------------------------------------------


def to_openai_messages(
    messages: Sequence[BaseMessage], *, tool_call_content: str | None = None
) -> list[dict[str, Any]]:
    """The ``messages`` parameter for `messages`.

    Args:
        messages: the conversation, oldest first.
        tool_call_content: the ``content`` of an AI message that has tool calls but no text:
            ``None`` (JSON null, the OpenAI spec) or ``""`` (for servers such as Ollama).

    Raises:
        TypeError: a message kind the Chat Completions API has no role for.
    """
    return [_message(message, tool_call_content) for message in messages]


def _message(message: BaseMessage, tool_call_content: str | None) -> dict[str, Any]:
    if isinstance(message, AIMessage):
        result = _assistant(message, tool_call_content)
    elif isinstance(message, ToolMessage):
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": _tool_content(message.content),
        }
    elif isinstance(message, HumanMessage):
        result = {"role": "user", "content": _user_content(message.content)}
    elif isinstance(message, SystemMessage):
        result = {"role": "system", "content": _text_content(message.content)}
    elif isinstance(message, ChatMessage):
        result = {"role": message.role, "content": _user_content(message.content)}
    elif isinstance(message, FunctionMessage):
        return {"role": "function", "name": message.name, "content": message.text}
    else:
        raise TypeError(f"ChatOpenAI cannot send a {type(message).__name__}: {message!r}")
    if message.name:
        result["name"] = message.name
    return result


def _assistant(message: AIMessage, tool_call_content: str | None) -> dict[str, Any]:
    calls: list[dict[str, Any]] = [
        {
            "id": call["id"],
            "type": "function",
            "function": {
                "name": call["name"],
                "arguments": json.dumps(call["args"], ensure_ascii=False),
            },
        }
        for call in message.tool_calls
    ]
    calls += [
        {
            "id": bad["id"],
            "type": "function",
            "function": {"name": bad["name"], "arguments": bad["args"] or ""},
        }
        for bad in message.invalid_tool_calls
    ]
    text = "".join(text_blocks(message.content))
    if not calls:
        return {"role": "assistant", "content": text}
    content: str | None = text or tool_call_content
    return {"role": "assistant", "content": content, "tool_calls": calls}


def _text_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    return [{"type": "text", "text": text} for text in text_blocks(content)]


def _user_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str):
            parts.append({"type": "text", "text": block})
        elif block.get("type") == "text":
            parts.append({"type": "text", "text": block.get("text", "")})
        else:
            image = read_image(block)
            if image is None:
                parts.append(dict(block))  # input_audio, file, ...: the API's own forms
            else:
                url: dict[str, Any] = {"url": image.data_url}
                detail = block.get("detail") or (block.get("image_url") or {}).get("detail")
                if detail:
                    url["detail"] = detail
                parts.append({"type": "image_url", "image_url": url})
    return parts


def _tool_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str):
            parts.append({"type": "text", "text": block})
        elif block.get("type") == "text":
            parts.append({"type": "text", "text": block.get("text", "")})
        else:
            # A tool message takes text only: other blocks go as their JSON.
            parts.append({"type": "text", "text": json.dumps(block, ensure_ascii=False)})
    return parts


def openai_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """Tool definitions in OpenAI's form; definitions already in it pass unchanged."""
    return [
        tool
        if isinstance(tool, dict) and tool.get("type") == "function" and "function" in tool
        else convert_to_openai_tool(tool)
        for tool in tools
    ]


def openai_tool_choice(choice: Any, tools: Sequence[Mapping[str, Any]]) -> str | dict[str, Any]:
    """OpenAI's ``tool_choice`` for any leanchain form of it.

    A bound tool's name, ``"auto"``, ``"none"``, ``"required"`` or ``"any"`` (= required),
    ``True`` (= required), ``False`` (= none), or a dict passed as is.

    Raises:
        ValueError: a name, or a dict's function name, that no tool in `tools` has.
        TypeError: anything else.
    """
    if choice is True:
        return "required"
    if choice is False:
        return "none"
    if isinstance(choice, str):
        names = _names(tools)
        if choice in names:
            return {"type": "function", "function": {"name": choice}}
        word = _CHOICE_WORDS.get(choice)
        if word is not None:
            return word
        raise ValueError(
            f"tool_choice {choice!r} is neither 'auto', 'none', 'required', 'any' nor the "
            f"name of a bound tool; the tools are {names}"
        )
    if isinstance(choice, Mapping):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if choice.get("type") == "function" and name not in _names(tools):
            raise ValueError(
                f"tool_choice names the tool {name!r}, but the tools are {_names(tools)}"
            )
        return dict(choice)
    raise TypeError(f"tool_choice must be a str, bool or dict, got {choice!r}")


def _names(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    names = []
    for tool in tools:
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        if isinstance(name, str):
            names.append(name)
    return names


# -- inbound --------------------------------------------------------------------------------


def usage_from_openai(usage: Any) -> UsageMetadata | None:
    """`UsageMetadata` from a ``CompletionUsage`` (cached tokens are part of the input)."""
    if usage is None:
        return None
    result = UsageMetadata(
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
    )
    details = usage.prompt_tokens_details
    if details is not None:
        inputs = {
            key: value
            for key, value in (
                ("audio", details.audio_tokens),
                ("cache_read", details.cached_tokens),
                ("cache_creation", getattr(details, "cache_write_tokens", None)),
            )
            if value is not None
        }
        if inputs:
            result["input_token_details"] = inputs  # type: ignore[typeddict-item]
    details = usage.completion_tokens_details
    if details is not None:
        outputs = {
            key: value
            for key, value in (
                ("audio", details.audio_tokens),
                ("reasoning", details.reasoning_tokens),
            )
            if value is not None
        }
        if outputs:
            result["output_token_details"] = outputs  # type: ignore[typeddict-item]
    return result


def response_metadata(
    model: str | None, finish_reason: str | None, fingerprint: str | None, tier: str | None
) -> dict[str, Any]:
    """The ``response_metadata`` of a reply, the same for a whole answer and a stream."""
    metadata: dict[str, Any] = {"model_provider": "openai"}
    for key, value in (
        ("model_name", model),
        ("finish_reason", finish_reason),
        ("system_fingerprint", fingerprint),
        ("service_tier", tier),
    ):
        if value is not None:
            metadata[key] = value
    return metadata


def _new_call_id() -> str:
    # Some compatible servers send no id; a result can only answer a call that has one.
    return f"call_{uuid.uuid4().hex[:24]}"


def _parse_call(raw: Any) -> ToolCall | InvalidToolCall:
    call_id = raw.id or _new_call_id()
    if raw.type != "function":  # a custom tool: its input is one string
        return tool_call(name=raw.custom.name, args={"__arg1": raw.custom.input}, id=call_id)
    name, arguments = raw.function.name, raw.function.arguments
    try:
        args = json.loads(arguments, strict=False) if arguments else {}
    except ValueError as exc:
        return invalid_tool_call(name=name, args=arguments, id=call_id, error=str(exc))
    if not isinstance(args, dict):
        error = f"expected a JSON object, got {type(args).__name__}"
        return invalid_tool_call(name=name, args=arguments, id=call_id, error=error)
    return tool_call(name=name, args=args, id=call_id)


def message_from_openai(completion: Any) -> AIMessage:
    """The `AIMessage` of a ``ChatCompletion`` (its first choice)."""
    choice = completion.choices[0]
    message = choice.message
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for raw in message.tool_calls or ():
        parsed = _parse_call(raw)
        if parsed.get("type") == "invalid_tool_call":
            invalid.append(parsed)  # type: ignore[arg-type]
        else:
            calls.append(parsed)  # type: ignore[arg-type]
    extra = {"refusal": message.refusal} if message.refusal else {}
    return AIMessage(
        content=message.content or "",
        additional_kwargs=extra,
        response_metadata=response_metadata(
            completion.model,
            choice.finish_reason,
            completion.system_fingerprint,
            completion.service_tier,
        ),
        id=completion.id,
        tool_calls=calls,
        invalid_tool_calls=invalid,
        usage_metadata=usage_from_openai(completion.usage),
    )


class OpenAIStreamReader:
    """Turns the ``ChatCompletionChunk``s of one stream into `AIMessageChunk`s.

    `read` gives the chunk for an event (``None`` when it carries no text or tool call);
    `finish` gives the closing chunk with the finish reason, metadata and usage.
    """

    __slots__ = ("_calls", "_ids", "finish_reason", "id", "last", "usage")

    def __init__(self) -> None:
        self.id: str | None = None
        self.finish_reason: str | None = None
        self.usage: UsageMetadata | None = None
        self.last: Any = None
        # index -> [id sent, name sent, id made up here]
        self._calls: dict[int, list[Any]] = {}
        self._ids: dict[str, int] = {}

    def read(self, event: Any) -> AIMessageChunk | None:
        """The chunk for one stream event, or ``None``."""
        self.last = event
        if self.id is None:
            self.id = event.id
        if event.usage is not None:
            self.usage = usage_from_openai(event.usage)
        choices = event.choices
        if not choices:  # the usage chunk, or a compatible server's filter results
            return None
        choice = choices[0]
        if choice.finish_reason is not None:
            self.finish_reason = choice.finish_reason
        delta = choice.delta
        content = delta.content
        if delta.tool_calls:
            chunks = self._tool_chunks(delta.tool_calls)
            return AIMessageChunk(content=content or "", tool_call_chunks=chunks, id=self.id)
        if content:
            return AIMessageChunk(content=content, id=self.id)
        return None

    def _tool_chunks(self, deltas: Sequence[Any]) -> list[ToolCallChunk]:
        chunks = []
        for position, delta in enumerate(deltas):
            function = delta.function
            name = function.name if function is not None else None
            args = function.arguments if function is not None else None
            call_id = delta.id
            index = delta.index
            if index is None:
                known = self._ids.get(call_id) if call_id else None
                index = known if known is not None else (len(self._calls) if call_id else position)
            seen = self._calls.get(index)
            if seen is None or (call_id and call_id != seen[0] and not seen[2]):
                made_up = call_id is None
                call_id = call_id or _new_call_id()
                self._calls[index] = [call_id, name, made_up]
                self._ids[call_id] = index
            else:
                # `+` concatenates what each piece repeats: send id and name once.
                call_id = None
                if name is not None:
                    name, seen[1] = (None, seen[1]) if name == seen[1] else (name, name)
            chunks.append(tool_call_chunk(name=name, args=args, id=call_id, index=index))
        return chunks

    def finish(self) -> AIMessageChunk:
        """The closing chunk: finish reason, model, usage; marked ``chunk_position="last"``."""
        last = self.last
        metadata = response_metadata(
            last.model if last is not None else None,
            self.finish_reason,
            getattr(last, "system_fingerprint", None),
            getattr(last, "service_tier", None),
        )
        return AIMessageChunk(
            content="",
            response_metadata=metadata,
            usage_metadata=self.usage,
            id=self.id,
            chunk_position="last",
        )
