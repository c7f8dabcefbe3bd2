"""Chat models for tests: `ScriptedChatModel` (a queue of replies) and `FunctionChatModel`.

Both record every request (`ChatRequest`), support `bind_tools` and stop sequences (a text
reply is cut at the first stop sequence, as a provider would), and stream their replies in
pieces, tool calls as tool-call chunks. Unlike LangChain's list fakes they never cycle: a
`ScriptedChatModel` whose script has run out raises `ScriptExhaustedError`.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import threading
import time
from collections import deque
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from leanchain.callbacks.manager import RunManager
from leanchain.errors import ScriptExhaustedError
from leanchain.messages import AIMessage, BaseMessage, ToolCall, UsageMetadata, tool_call
from leanchain.runnables.concurrency import run_in_executor

from ._base import BaseChatModel, LanguageModelInput, ToolChoice
from ._chunking import Chunking, splitter, stream_chunks
from ._direct import BoundModelCall, direct_call
from ._fakes import SequentialBatchMixin
from ._recorded import ChatRequest, RecordedCall, new_request
from ._results import ChatGeneration, ChatGenerationChunk, ChatResult
from ._stop import cut_message
from ._streaming import as_message

if TYPE_CHECKING:
    from leanchain.runnables.base import Runnable
    from leanchain.tools import ToolLike

__all__ = [
    "ChatRequest",
    "FunctionChatModel",
    "Reply",
    "ScriptItem",
    "ScriptedChatModel",
]

Reply: TypeAlias = str | AIMessage | Mapping[str, Any]
"""A reply: its text, a whole `AIMessage` (tool calls included), or `AIMessage` fields."""

ScriptItem: TypeAlias = Reply | BaseException
"""One entry of a script: a reply, or an exception the model raises at that turn."""


def _with_ids(message: AIMessage, ids: Iterator[int]) -> AIMessage:
    """`message` with every tool call that has no id given ``call_<n>``."""
    if all(call["id"] is not None for call in message.tool_calls):
        return message
    calls = [
        call if call["id"] is not None else {**call, "id": f"call_{next(ids)}"}
        for call in message.tool_calls
    ]
    return message.model_copy(update={"tool_calls": calls})


def _as_message(reply: Reply, ids: Iterator[int], who: str) -> AIMessage:
    if isinstance(reply, str):
        return AIMessage(content=reply)
    if isinstance(reply, AIMessage):
        return _with_ids(reply, ids)
    if isinstance(reply, Mapping):
        return _with_ids(AIMessage(**reply), ids)
    raise TypeError(
        f"{who} replies must be a str, an AIMessage or a dict of AIMessage fields, "
        f"got {type(reply).__name__}: {reply!r}"
    )


class _RecordingChatModel(SequentialBatchMixin, BaseChatModel):
    """What the scripted and function models share: requests, stop, tools and streaming."""

    __slots__ = ("_ids", "_lock", "_split", "chunk_delay", "delay", "requests")

    def __init__(
        self,
        *,
        chunking: Chunking = "words",
        chunk_delay: float | None = None,
        delay: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self._split = splitter(chunking)
        self.chunk_delay = chunk_delay
        self.delay = delay
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    @staticmethod
    def reply(
        text: str,
        *,
        usage: UsageMetadata | None = None,
        response_metadata: Mapping[str, Any] | None = None,
        id: str | None = None,
    ) -> AIMessage:
        """A text reply, optionally with usage and response metadata."""
        return AIMessage(
            content=text,
            usage_metadata=usage,
            response_metadata=dict(response_metadata or {}),
            id=id,
        )

    @staticmethod
    def tool_call(
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        id: str | None = None,
        content: str = "",
        usage: UsageMetadata | None = None,
    ) -> AIMessage:
        """A reply that calls one tool; without `id` the model numbers it ``call_<n>``."""
        return AIMessage(
            content=content,
            tool_calls=[tool_call(name=name, args=dict(args or {}), id=id)],
            usage_metadata=usage,
        )

    @staticmethod
    def tool_calls(
        *calls: tuple[str, Mapping[str, Any]] | ToolCall,
        content: str = "",
        usage: UsageMetadata | None = None,
    ) -> AIMessage:
        """A reply that calls several tools at once: ``("name", {args})`` pairs or ToolCalls."""
        made = [
            tool_call(name=c[0], args=dict(c[1]), id=None) if isinstance(c, tuple) else c
            for c in calls
        ]
        return AIMessage(content=content, tool_calls=made, usage_metadata=usage)

    @property
    def last_request(self) -> ChatRequest | None:
        """The most recent request, or ``None`` before the first."""
        return self.requests[-1] if self.requests else None

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """This model with the tools' OpenAI schemas bound; requests record them."""
        return self._bind_openai_tools(tools, tool_choice, kwargs)

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Mapping[str, Any]
    ) -> ChatRequest:
        rest = dict(kwargs)
        tools = rest.pop("tools", None)
        tool_choice = rest.pop("tool_choice", None)
        return new_request(
            messages, list(tools or ()), tool_choice, None if stop is None else list(stop), rest
        )

    def _take(self, request: ChatRequest) -> AIMessage:
        """Record `request` and produce the reply to it (before stop sequences apply)."""
        raise NotImplementedError

    async def _atake(self, request: ChatRequest) -> AIMessage:
        return self._take(request)

    def _recorded_reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Mapping[str, Any]
    ) -> AIMessage:
        """The call recorded and its reply, cut at `stop`, after the delay.

        Every call (invoke or stream) is cut here, before streaming, as a server that honours
        stop does: a stream then ends with its own last chunk, usage and tool calls included.
        """
        return self._answer(self._request(messages, stop, kwargs), stop)

    def _answer(self, request: ChatRequest, stop: list[str] | None) -> AIMessage:
        """`request` recorded and its reply, cut at `stop`, after the delay."""
        reply = self._take(request)
        if stop:
            reply = cut_message(reply, stop)
        if self.delay:
            time.sleep(self.delay)
        return reply

    async def _arecorded_reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Mapping[str, Any]
    ) -> AIMessage:
        """Async `_recorded_reply`."""
        return await self._aanswer(self._request(messages, stop, kwargs), stop)

    async def _aanswer(self, request: ChatRequest, stop: list[str] | None) -> AIMessage:
        """Async `_answer`."""
        reply = await self._atake(request)
        if stop:
            reply = cut_message(reply, stop)
        if self.delay:
            await asyncio.sleep(self.delay)
        return reply

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._recorded_reply(messages, stop, kwargs)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = await self._arecorded_reply(messages, stop, kwargs)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _skips_result(self, kwargs: Mapping[str, Any]) -> bool:
        """Whether `_recorded_reply` is what `_generate` and `_agenerate` reply, unwrapped.

        Not when a subclass makes its own results, nor for keywords that `_generate` takes
        as its own parameters (they are not the request's then, or they clash).
        """
        cls = type(self)
        return (
            cls._generate is _RecordingChatModel._generate
            and cls._agenerate is _RecordingChatModel._agenerate
            and cls._cut_at_stop is BaseChatModel._cut_at_stop
            and "run_manager" not in kwargs
            and "messages" not in kwargs
        )

    def _unwrapped(self, reply: AIMessage, stop: list[str] | None) -> AIMessage:
        """`reply` as `_cut_at_stop` and `reply_of` make it of the result that would hold it."""
        if self.client_side_stop:
            markers = self._client_stop(stop)
            if markers:
                reply = cut_message(reply, markers)
        return reply if type(reply) is AIMessage else as_message(reply)

    def _unwatched_reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Mapping[str, Any]
    ) -> AIMessage:
        # Nobody reads the ChatResult of a call without handlers: answer without one.
        if not self._skips_result(kwargs):
            return super()._unwatched_reply(messages, stop, kwargs)
        return self._unwrapped(self._recorded_reply(messages, stop, kwargs), stop)

    async def _aunwatched_reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Mapping[str, Any]
    ) -> AIMessage:
        if not self._skips_result(kwargs):
            return await super()._aunwatched_reply(messages, stop, kwargs)
        return self._unwrapped(await self._arecorded_reply(messages, stop, kwargs), stop)

    def _direct_call(self, kwargs: Mapping[str, Any]) -> BoundModelCall | None:
        """A binding's calls, the request's parts split from the bound `kwargs` once."""
        return direct_call(self, kwargs, RecordedCall)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._recorded_reply(messages, stop, kwargs)
        for chunk in stream_chunks(reply, self._split):
            if self.chunk_delay:
                time.sleep(self.chunk_delay)
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        reply = await self._arecorded_reply(messages, stop, kwargs)
        for chunk in stream_chunks(reply, self._split):
            if self.chunk_delay:
                await asyncio.sleep(self.chunk_delay)
            yield ChatGenerationChunk(message=chunk)


class ScriptedChatModel(_RecordingChatModel):
    """A chat model that plays a script of replies, one per call, and records every call.

    Example::

        model = ScriptedChatModel([
            ScriptedChatModel.tool_call("search", {"query": "weather in Paris"}),
            "It is sunny in Paris.",
        ])

    Args:
        script: the replies in order: a str (the reply's text), an `AIMessage` (with
            ``tool_calls`` for tool calls; calls without an id are numbered ``call_1``,
            ``call_2``, ... in script order), a dict of `AIMessage` fields, or an exception
            instance, raised when its turn comes.
        chunking: how streamed text and tool-call arguments are cut (default: at whitespace).
        chunk_delay: seconds to wait before each streamed chunk (``asyncio.sleep`` when async).
        delay: seconds to wait before each reply.
        name: the name shown in callbacks and events.

    Raises:
        ScriptExhaustedError: (when called) the script has no replies left.
    """

    __slots__ = ("_script", "_served")

    def __init__(
        self,
        script: Iterable[ScriptItem],
        *,
        chunking: Chunking = "words",
        chunk_delay: float | None = None,
        delay: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(chunking=chunking, chunk_delay=chunk_delay, delay=delay, name=name)
        if isinstance(script, (str, Mapping, AIMessage)):
            raise TypeError(
                f"ScriptedChatModel takes a list of replies, got a single {type(script).__name__}"
            )
        self._script: deque[AIMessage | BaseException] = deque(
            item if isinstance(item, BaseException) else _as_message(item, self._ids, "Script")
            for item in script
        )
        self._served = 0

    def __repr__(self) -> str:
        return f"ScriptedChatModel(remaining={len(self._script)}, served={self._served})"

    @property
    def _llm_type(self) -> str:
        return "scripted-chat-model"

    @property
    def remaining(self) -> int:
        """How many script entries have not been played yet."""
        return len(self._script)

    def _take(self, request: ChatRequest) -> AIMessage:
        with self._lock:
            self.requests.append(request)
            if not self._script:
                raise ScriptExhaustedError(
                    f"ScriptedChatModel script exhausted after {self._served} replies; "
                    "add more replies to the script"
                )
            item = self._script.popleft()
            self._served += 1
        if isinstance(item, BaseException):
            raise item
        return item


ReplyFunction: TypeAlias = Callable[[list[BaseMessage], ChatRequest], Reply | Awaitable[Reply]]


class FunctionChatModel(_RecordingChatModel):
    """A chat model whose replies come from a function of the messages and the request.

    Example::

        def answer(messages, request):
            if not any(m.type == "tool" for m in messages):
                return FunctionChatModel.tool_call(request.tool_names[0], {"query": "x"})
            return "done: " + messages[-1].text

        model = FunctionChatModel(answer)

    Args:
        func: ``func(messages, request) -> reply`` where the reply is a str, an `AIMessage`
            or a dict of its fields; ``request`` is the `ChatRequest` (tools, tool_choice,
            stop, kwargs). An ``async def`` function works with the async methods only.
        chunking: how streamed text and tool-call arguments are cut (default: at whitespace).
        chunk_delay: seconds to wait before each streamed chunk (``asyncio.sleep`` when async).
        delay: seconds to wait before each reply.
        name: the name shown in callbacks and events.
    """

    __slots__ = ("_is_async", "func")

    def __init__(
        self,
        func: ReplyFunction,
        *,
        chunking: Chunking = "words",
        chunk_delay: float | None = None,
        delay: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(chunking=chunking, chunk_delay=chunk_delay, delay=delay, name=name)
        if not callable(func):
            raise TypeError(f"FunctionChatModel needs a callable, got {func!r}")
        self.func = func
        self._is_async = inspect.iscoroutinefunction(func)

    def __repr__(self) -> str:
        return f"FunctionChatModel({getattr(self.func, '__name__', self.func)!r})"

    @property
    def _llm_type(self) -> str:
        return "function-chat-model"

    def _record(self, request: ChatRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _take(self, request: ChatRequest) -> AIMessage:
        if self._is_async:
            raise TypeError("FunctionChatModel's function is async: use ainvoke, astream or abatch")
        self._record(request)
        reply = cast(Reply, self.func(list(request.messages), request))
        return _as_message(reply, self._ids, "FunctionChatModel")

    async def _atake(self, request: ChatRequest) -> AIMessage:
        if not self._is_async:
            return await run_in_executor(self._take, request)
        self._record(request)
        reply = await cast(Awaitable[Reply], self.func(list(request.messages), request))
        return _as_message(reply, self._ids, "FunctionChatModel")
