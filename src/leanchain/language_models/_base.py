"""`BaseChatModel`: the runnable every chat model (provider or fake) is built on.

A subclass implements `_generate` (and, when it can, `_stream`, `_agenerate`, `_astream`);
this class turns those into `invoke`/`ainvoke`/`stream`/`astream`/`batch`, converts the input,
passes ``stop`` and bound keyword arguments through, and tells the callbacks about the run.
With no callbacks attached, a call is the conversion of its input and one `_unwatched_reply`
(the reply of `_generate`); a binding of the model (``bind``, ``bind_tools``) calls it so
through `_direct`, its bound arguments read once.
A model class that sets ``client_side_stop`` also has its replies cut at the first stop
sequence here (`_stop`), whether or not its server honoured ``stop``. What it makes out of
`_stream` (the default `_astream`, a reply built by streaming) lives in `_from_stream`.
Each of the four entry points first hands the call to the interceptors of `_intercept` when
there are any (one context-variable read when there are none); the ``_*_call`` methods are
the calls themselves, given the `ModelCall` (what an interceptor's ``proceed`` runs).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias

from leanchain._fields import fields_repr, init_fields
from leanchain.callbacks.manager import RunManager, astart_run, start_run
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    MessageLikeRepresentation,
    convert_to_messages,
)
from leanchain.prompts import PromptValue
from leanchain.runnables.base import Runnable
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import RunnableConfig, ensure_config, merge_configs

from ._direct import BoundModelCall, direct_call
from ._from_stream import agenerate_from_stream, astream_in_thread, generate_from_stream
from ._intercept import (
    INTERCEPTORS,
    ModelCall,
    ModelInterceptor,
    run_ainvoke,
    run_astream,
    run_invoke,
    run_stream,
)
from ._results import ChatGenerationChunk, ChatResult, LLMResult
from ._stop import acut_stream, cut_result, cut_stream
from ._streaming import aemitting, as_chunk, emitting, merge_chunks, reply_of

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.tools import ToolLike

__all__ = ["BaseChatModel", "LanguageModelInput", "ToolChoice"]

LanguageModelInput: TypeAlias = PromptValue | str | Sequence[MessageLikeRepresentation]
"""What a chat model accepts: a prompt value, a string, or a list of message-likes."""

ToolChoice: TypeAlias = str | bool | dict[str, Any]
"""A tool name, ``"auto"``, ``"any"``, ``"none"``, ``True``, or a provider-specific dict."""

_OWN_KEYWORDS = ("disable_streaming", "metadata", "name", "tags")


class BaseChatModel(Runnable[LanguageModelInput, AIMessage]):
    """The base class of chat models: messages in, an `AIMessage` out.

    Subclasses implement `_generate`, and optionally `_stream` (token streaming), `_agenerate`
    and `_astream` (native async). They must not emit ``on_llm_new_token`` themselves: the
    base class does it for every chunk `_stream` yields.

    A subclass may declare its settings the LangChain way, as annotated class fields with
    defaults (or ``Field(...)``); they are keyword arguments of the constructor (`_fields`).

    Args:
        name: the name shown in callbacks and events (defaults to the class name).
        disable_streaming: ``True`` makes `stream` yield the whole reply as one chunk;
            ``"tool_calling"`` does so only for calls that pass ``tools``.
        tags: tags added to every run of this model.
        metadata: metadata added to every run of this model.
        **fields: a subclass's declared fields.

    Raises:
        TypeError: a keyword that is neither one of these nor a declared field.
    """

    __slots__ = ("disable_streaming", "metadata", "name", "tags")

    client_side_stop: ClassVar[bool] = False
    """Whether the base class cuts replies at the first stop sequence itself (a class setting).

    The provider models set it: a server may ignore or reject ``stop``. `invoke` then returns
    the text up to the first marker, and `stream` holds back a tail that could start one and
    ends at the marker. Off by default, as in LangChain, where stop is the model's own job.
    """

    def __init__(
        self,
        *,
        name: str | None = None,
        disable_streaming: bool | Literal["tool_calling"] = False,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        self.name = name
        self.disable_streaming = disable_streaming
        self.tags = tags
        self.metadata = metadata
        init_fields(self, fields, BaseChatModel, _OWN_KEYWORDS)

    def __repr__(self) -> str:
        return fields_repr(self, BaseChatModel)

    def _own_config(self, config: RunnableConfig) -> RunnableConfig:
        """`config` plus this model's tags and metadata (read only when a run is reported)."""
        if not (self.tags or self.metadata):
            return config
        own: RunnableConfig = {}
        if self.tags:
            own["tags"] = self.tags
        if self.metadata:
            own["metadata"] = self.metadata
        return merge_configs(config, own)

    # -- what subclasses provide ------------------------------------------------------------

    @property
    def _llm_type(self) -> str:
        """A short tag for the kind of model, reported in invocation params."""
        return type(self).__name__

    @property
    def _identifying_params(self) -> Mapping[str, Any]:
        """The settings that identify this model (model name, temperature, ...)."""
        return {}

    def _client_stop(self, stop: list[str] | None) -> list[str] | None:
        """The stop sequences a call's reply is cut at: `stop`, else the model's default ones."""
        return stop

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Produce the reply to `messages` (the one method every chat model implements)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _generate")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Async `_generate`; by default runs `_generate` in a worker thread."""
        return await run_in_executor(
            self._generate, messages, stop=stop, run_manager=run_manager, **kwargs
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Yield the reply in pieces; mark the final one ``chunk_position="last"``."""
        raise NotImplementedError
        yield  # pragma: no cover  (makes this a generator function)

    # The default `_astream` pulls `_stream` through a worker thread (`_from_stream`).
    _astream = astream_in_thread

    # -- tools and structured output --------------------------------------------------------

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """This model with `tools` offered on every call.

        Args:
            tools: tools or tool schemas (anything `convert_to_openai_tool` accepts).
            tool_choice: which tool the model must call: a name, ``"auto"``, ``"any"``,
                ``"none"`` or ``True``; ``None`` leaves it to the provider's default.
            **kwargs: more arguments bound for every call.

        Raises:
            NotImplementedError: this model cannot call tools.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not support tool calling: it does not implement "
            "bind_tools. Use a model that does, such as ScriptedChatModel or a provider model."
        )

    def _bind_openai_tools(
        self,
        tools: Sequence[ToolLike],
        tool_choice: ToolChoice | None,
        kwargs: dict[str, Any],
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """`bind_tools` for models that take OpenAI-style tool schemas as ``tools=``."""
        from leanchain.tools import convert_to_openai_tool

        formatted = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice is not None:
            kwargs = {**kwargs, "tool_choice": tool_choice}
        return self.bind(tools=formatted, **kwargs)

    def with_structured_output(
        self,
        schema: type[BaseModel] | type[Any] | Mapping[str, Any],
        *,
        include_raw: bool = False,
        method: str = "function_calling",
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, Any]:
        """This model answering with an instance of `schema`, through a forced tool call.

        Args:
            schema: a pydantic model (the result is an instance of it), a TypedDict (a
                validated dict) or a JSON schema / tool schema dict (the arguments dict).
            include_raw: return ``{"raw": message, "parsed": value, "parsing_error": error}``
                instead of raising when the reply cannot be parsed.
            method: how to ask for the structure; the base class supports
                ``"function_calling"``.

        Raises:
            ValueError: unknown keyword arguments or an unsupported `method`.
            NotImplementedError: this model cannot call tools.
        """
        from ._structured import structured_output

        return structured_output(self, schema, include_raw=include_raw, method=method, **kwargs)

    # -- running ----------------------------------------------------------------------------

    def _convert_input(self, input: LanguageModelInput) -> list[BaseMessage]:
        if isinstance(input, str):
            return [HumanMessage(input)]
        to_messages = getattr(input, "to_messages", None)
        if to_messages is not None:
            messages: list[BaseMessage] = to_messages()  # (no `cast`: it is a call too)
            return messages
        if isinstance(input, Sequence):
            return convert_to_messages(input)
        raise ValueError(
            f"Invalid input type {type(input)}. "
            "Must be a PromptValue, str, or list of BaseMessages."
        )

    def _chat_run(self, call: ModelCall) -> RunManager | None:
        """Start `call`'s chat-model run (``None``, and no work, when no handler listens)."""
        if not call.config.get("callbacks"):
            return None
        config, name, inputs, extra = self._chat_run_args(call)
        return start_run(config, "chat_model", name, inputs, **extra)

    async def _achat_run(self, call: ModelCall) -> RunManager | None:
        """Async `_chat_run`."""
        if not call.config.get("callbacks"):
            return None
        config, name, inputs, extra = self._chat_run_args(call)
        return await astart_run(config, "chat_model", name, inputs, **extra)

    def _chat_run_args(
        self, call: ModelCall
    ) -> tuple[RunnableConfig, str, list[list[BaseMessage]], dict[str, Any]]:
        """The config, name, inputs and start-event keywords of `call`'s run."""
        stop = call.stop
        params = {"_type": self._llm_type, **self._identifying_params, "stop": stop, **call.kwargs}
        extra = {"invocation_params": params, "options": {"stop": stop}, "batch_size": 1}
        return self._own_config(call.config), self.get_name(), [call.messages], extra

    def _cut_at_stop(self, result: ChatResult, stop: list[str] | None) -> ChatResult:
        """`result` cut at the client-side stop sequences (unchanged without them)."""
        if not self.client_side_stop:
            return result
        return cut_result(result, self._client_stop(stop))

    def _unwatched_reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Mapping[str, Any]
    ) -> AIMessage:
        """The reply to a call that no handler watches: `_generate`'s, cut at `stop`.

        A model that can answer without building the `ChatResult` may override it (the
        scripted ones do); `kwargs` is read, never changed.
        """
        return reply_of(self._cut_at_stop(self._generate(messages, stop=stop, **kwargs), stop))

    async def _aunwatched_reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Mapping[str, Any]
    ) -> AIMessage:
        """Async `_unwatched_reply`: `_agenerate`'s reply."""
        result = await self._agenerate(messages, stop=stop, **kwargs)
        return reply_of(self._cut_at_stop(result, stop))

    def _direct_call(self, kwargs: Mapping[str, Any]) -> BoundModelCall | None:
        """This model's `invoke`/`ainvoke` for a binding of `kwargs` (``runnables.DirectCall``)."""
        return direct_call(self, kwargs)

    def _can_stream(self, kwargs: Mapping[str, Any]) -> bool:
        cls = type(self)
        if cls._stream is BaseChatModel._stream and cls._astream is BaseChatModel._astream:
            return False
        disabled = self.disable_streaming
        return not (disabled is True or (disabled == "tool_calling" and kwargs.get("tools")))

    def _streams_for(self, run: RunManager, kwargs: Mapping[str, Any]) -> bool:
        """Whether `invoke` should stream so that a handler sees the tokens.

        A handler asks for that by setting ``wants_tokens = True`` (the event stream does).
        """
        return (
            any(getattr(h, "wants_tokens", False) for h in run.handlers)
            and type(self)._stream is not BaseChatModel._stream
            and self._can_stream(kwargs)
        )

    # How `invoke` streams when `_streams_for` says so (`_from_stream`).
    _generate_from_stream = generate_from_stream
    _agenerate_from_stream = agenerate_from_stream

    def _as_call(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None,
        stop: list[str] | None,
        kwargs: dict[str, Any],
    ) -> tuple[ModelCall, tuple[ModelInterceptor, ...]]:
        """What a `stream` call asks, and the interceptors it goes through."""
        call = ModelCall(self, self._convert_input(input), stop, kwargs, ensure_config(config))
        return call, INTERCEPTORS.get()

    def invoke(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AIMessage:
        """The model's reply to `input`.

        Args:
            input: a prompt value, a string (a human message) or a list of message-likes.
            config: tags, metadata, callbacks and limits for this call.
            stop: stop sequences, passed to the model.
            **kwargs: passed to `_generate` (bound ``tools``, ``tool_choice``, ...).
        """
        config = ensure_config(config)
        messages = self._convert_input(input)
        interceptors = INTERCEPTORS.get()
        if interceptors:
            return run_invoke(interceptors, ModelCall(self, messages, stop, kwargs, config))
        if config.get("callbacks"):
            return self._invoke_call(ModelCall(self, messages, stop, kwargs, config))
        return self._unwatched_reply(messages, stop, kwargs)

    def _invoke_call(self, call: ModelCall) -> AIMessage:
        """`invoke` past its input conversion and the interceptors (what ``proceed`` runs)."""
        messages, stop, kwargs = call.messages, call.stop, call.kwargs
        run = self._chat_run(call)
        if run is None:
            return self._unwatched_reply(messages, stop, kwargs)
        try:
            if self._streams_for(run, kwargs):
                result = self._generate_from_stream(messages, stop, run, kwargs)
            else:
                result = self._generate(messages, stop=stop, run_manager=run, **kwargs)
                result = self._cut_at_stop(result, stop)
        except BaseException as exc:
            run.on_error(exc)
            raise
        run.on_end(LLMResult(generations=[result.generations], llm_output=result.llm_output))
        return reply_of(result)

    async def ainvoke(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AIMessage:
        """Async `invoke`: `_agenerate`, which runs `_generate` in a thread unless overridden."""
        config = ensure_config(config)
        messages = self._convert_input(input)
        interceptors = INTERCEPTORS.get()
        if interceptors:
            return await run_ainvoke(interceptors, ModelCall(self, messages, stop, kwargs, config))
        if config.get("callbacks"):
            return await self._ainvoke_call(ModelCall(self, messages, stop, kwargs, config))
        return await self._aunwatched_reply(messages, stop, kwargs)

    async def _ainvoke_call(self, call: ModelCall) -> AIMessage:
        """Async `_invoke_call`."""
        messages, stop, kwargs = call.messages, call.stop, call.kwargs
        run = await self._achat_run(call)
        if run is None:
            return await self._aunwatched_reply(messages, stop, kwargs)
        try:
            if self._streams_for(run, kwargs):
                result = await self._agenerate_from_stream(messages, stop, run, kwargs)
            else:
                result = await self._agenerate(messages, stop=stop, run_manager=run, **kwargs)
                result = self._cut_at_stop(result, stop)
        except BaseException as exc:
            await run.aon_error(exc)
            raise
        await run.aon_end(LLMResult(generations=[result.generations], llm_output=result.llm_output))
        return reply_of(result)

    def _markers(self, stop: list[str] | None) -> list[str] | None:
        """The stop sequences to cut a reply at client-side (``None``: it is not cut)."""
        return self._client_stop(stop) if self.client_side_stop else None

    def stream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[AIMessageChunk]:
        """The reply as `AIMessageChunk`s, the last one marked ``chunk_position="last"``.

        A model without `_stream` (or with streaming disabled) yields its whole reply as one
        chunk. The chunks add up (``+``) to the reply.
        """
        call, interceptors = self._as_call(input, config, stop, kwargs)
        yield from run_stream(interceptors, call) if interceptors else self._stream_call(call)

    def _stream_call(self, call: ModelCall) -> Iterator[AIMessageChunk]:
        """`stream` past its input conversion and the interceptors (what ``proceed`` runs)."""
        if not self._can_stream(call.kwargs) or type(self)._stream is BaseChatModel._stream:
            yield as_chunk(self._invoke_call(call))
            return
        run = self._chat_run(call)
        stream = self._stream(call.messages, call.stop, run, **call.kwargs)
        chunks = emitting(cut_stream(stream, self._markers(call.stop)), run)
        if run is None:
            for chunk in chunks:
                yield chunk.message
            return
        seen: list[ChatGenerationChunk] = []
        try:
            for chunk in chunks:
                seen.append(chunk)
                yield chunk.message
        except BaseException as exc:
            run.on_error(exc)
            raise
        run.on_end(LLMResult(generations=[[merge_chunks(seen)]]))

    async def astream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        """Async `stream`: `_astream`, which iterates `_stream` in a thread unless overridden."""
        call, interceptors = self._as_call(input, config, stop, kwargs)
        chunks = run_astream(interceptors, call) if interceptors else self._astream_call(call)
        try:
            async for chunk in chunks:
                yield chunk
        finally:
            await chunks.aclose()

    async def _astream_call(self, call: ModelCall) -> AsyncGenerator[AIMessageChunk, None]:
        """Async `_stream_call`."""
        if not self._can_stream(call.kwargs):
            yield as_chunk(await self._ainvoke_call(call))
            return
        run = await self._achat_run(call)
        stream = self._astream(call.messages, call.stop, run, **call.kwargs)
        chunks = aemitting(acut_stream(stream, self._markers(call.stop)), run)
        if run is None:
            async for chunk in chunks:
                yield chunk.message
            return
        seen: list[ChatGenerationChunk] = []
        try:
            async for chunk in chunks:
                seen.append(chunk)
                yield chunk.message
        except BaseException as exc:
            await run.aon_error(exc)
            raise
        await run.aon_end(LLMResult(generations=[[merge_chunks(seen)]]))
