"""The one request flow of the provider adapters: invoke, stream, sync and async.

`ProviderFlow` holds what every call does, once: build the request, call the SDK with its
failures turned into typed errors (content JSON cannot carry included), ask once more without
a parameter the model rejects, read the reply or the stream, close the stream, and fail on a
stream that ended early. A provider class supplies only the hooks: its request (`_params`,
`_stream_params`), its SDK endpoint (`_endpoint`), its reply reader (`_message`), its stream
reader (`_reader`) and a few names.

Client-side stop sequences (``client_side_stop``) cut a whole reply in the chat-model base; a
stream is cut here, where the reader is: after the marker the rest of the server's stream is
read without passing its text on, so that the reply still ends with what the server said at
its end — finish reason, model, usage — as ``invoke`` with the same stop has it. (A server
that honours ``stop`` ends the stream at the marker itself: there is nothing more to read.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from leanchain.errors import BadRequestError, ProviderError, UnencodableContentError
from leanchain.language_models import ChatGeneration, ChatGenerationChunk, ChatResult
from leanchain.language_models.adapters import StopScanner, stopped_metadata

from ._common import ProviderChatModel
from ._encoding import unencodable
from ._errors import incomplete_stream, map_provider_error
from ._tool_calls import result_from_chunks

if TYPE_CHECKING:
    from leanchain.callbacks.manager import RunManager
    from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage

__all__ = ["ProviderFlow", "StreamReader"]

T = TypeVar("T")
Params = dict[str, Any]


class Endpoint(Protocol):
    """From an SDK client, the method that creates a reply."""

    def __call__(self, client: Any, /) -> Callable[..., Any]: ...


class ReplyReader(Protocol):
    """The `AIMessage` of an SDK's whole answer."""

    def __call__(self, reply: Any, /) -> AIMessage: ...


class StreamReader(Protocol):
    """Turns the events of one provider stream into `AIMessageChunk`s."""

    def read(self, event: Any) -> AIMessageChunk | None:
        """The chunk for one stream event, or ``None``."""

    def finish(self) -> AIMessageChunk:
        """The closing chunk, marked ``chunk_position="last"``."""

    @property
    def complete(self) -> bool:
        """Whether the event that ends a whole answer arrived."""


class ProviderFlow(ProviderChatModel):
    """A provider adapter's `_generate`/`_agenerate`/`_stream`/`_astream`, over hooks.

    Subclasses implement `_params` and set ``_endpoint``, ``_message``, ``_reader``,
    ``_reason_key``, ``_stream_end`` and ``_request_id_header``; `_stream_params` and
    `_must_stream` have defaults. ``_droppable`` (`ProviderChatModel`) names the parameters
    sent once more without when the model rejects them.
    """

    __slots__ = ()

    _reason_key: ClassVar[str] = ""
    """The ``response_metadata`` key copied into ``generation_info`` (why the model stopped)."""
    _stream_end: ClassVar[str] = ""
    """What a stream that ended early lacks, named in its error."""
    _request_id_header: ClassVar[str] = ""
    _args_as_text: ClassVar[bool] = False
    """Whether tool-call arguments go as JSON text (OpenAI's ``arguments``), NaN written out."""
    # The hooks that are plain functions are class attributes, called without a frame of
    # their own: they run on every call.
    _endpoint: ClassVar[Endpoint]
    """From an SDK client, its ``create`` method (an ``operator.attrgetter``)."""
    _message: ClassVar[ReplyReader]
    """The `AIMessage` of the SDK's whole answer (a ``staticmethod``)."""
    _reader: ClassVar[type[StreamReader]]
    """The reader class, one made per stream."""

    # -- hooks ----------------------------------------------------------------------------

    def _params(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Params
    ) -> Params:
        """The SDK ``create()`` arguments for a whole answer (`kwargs` is the call's own dict)."""
        raise NotImplementedError

    def _stream_params(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Params
    ) -> Params:
        """The ``create()`` arguments for a streamed answer."""
        return _streaming(self._params(messages, stop, kwargs))

    def _must_stream(self, params: Params) -> bool:
        """Whether a whole answer must be asked for as a stream (the SDK refuses otherwise)."""
        return False

    # -- the BaseChatModel methods --------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        params = self._build(partial(self._params, messages, stop, kwargs), messages)
        if self._must_stream(params):
            chunks = self._chunks(partial(_streaming, params), messages, None)
            return result_from_chunks(list(chunks))
        return self._result(self._message(self._create(params, messages)))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        params = self._build(partial(self._params, messages, stop, kwargs), messages)
        if self._must_stream(params):
            chunks = self._achunks(partial(_streaming, params), messages, None)
            return result_from_chunks([chunk async for chunk in chunks])
        return self._result(self._message(await self._acreate(params, messages)))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        request = partial(self._stream_params, messages, stop, kwargs)
        return self._chunks(request, messages, self._own_markers(stop))

    def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        request = partial(self._stream_params, messages, stop, kwargs)
        return self._achunks(request, messages, self._own_markers(stop))

    def _markers(self, stop: list[str] | None) -> list[str] | None:
        return None  # the base class leaves the stream alone: `_chunks` cuts it

    def _own_markers(self, stop: list[str] | None) -> list[str] | None:
        return self._client_stop(stop) if self.client_side_stop else None

    # -- the flow -------------------------------------------------------------------------

    def _chunks(
        self,
        request: Callable[[], Params],
        messages: Sequence[BaseMessage],
        markers: list[str] | None,
    ) -> Iterator[ChatGenerationChunk]:
        """The streamed answer to ``request()``, cut at the first of `markers`.

        The request is built on the first step, inside the stream, so that a bad one fails
        where the run's callbacks see it.
        """
        stream = self._create(self._build(request, messages), messages)
        reader = self._reader()
        scanner = StopScanner(markers) if markers else None
        cut: ChatGenerationChunk | None = None
        with stream:
            events = self._guard(stream, self._request_id(stream))
            for event in events:
                chunk = reader.read(event)
                if chunk is None:
                    continue
                out: ChatGenerationChunk | None = ChatGenerationChunk(message=chunk)
                if scanner is not None:
                    out = scanner.step(out)  # type: ignore[arg-type]
                    if scanner.marker is not None:
                        cut = out
                        break
                if out is not None:
                    yield out
            if scanner is not None and scanner.marker is not None:
                with _past_the_marker():
                    for event in events:
                        reader.read(event)
        yield self._end(reader, stream, scanner, cut)

    async def _achunks(
        self,
        request: Callable[[], Params],
        messages: Sequence[BaseMessage],
        markers: list[str] | None,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """Async `_chunks`."""
        stream = await self._acreate(self._build(request, messages), messages)
        reader = self._reader()
        scanner = StopScanner(markers) if markers else None
        cut: ChatGenerationChunk | None = None
        async with stream:
            events = self._aguard(stream, self._request_id(stream))
            async for event in events:
                chunk = reader.read(event)
                if chunk is None:
                    continue
                out: ChatGenerationChunk | None = ChatGenerationChunk(message=chunk)
                if scanner is not None:
                    out = scanner.step(out)  # type: ignore[arg-type]
                    if scanner.marker is not None:
                        cut = out
                        break
                if out is not None:
                    yield out
            if scanner is not None and scanner.marker is not None:
                with _past_the_marker():
                    async for event in events:
                        reader.read(event)
        yield self._end(reader, stream, scanner, cut)

    def _build(self, request: Callable[[], Params], messages: Sequence[BaseMessage]) -> Params:
        """``request()``, with content JSON cannot carry turned into a typed error."""
        try:
            return request()
        except (ValueError, RecursionError) as exc:
            error = self._unencodable(exc, messages, None)
            if error is None:
                raise
        raise error from None  # the encoder's error holds the whole body: it says no more

    def _create(self, params: Params, messages: Sequence[BaseMessage]) -> Any:
        """The SDK's answer to `params`; once more without a parameter the model rejects."""
        create = self._endpoint(self._sync_client())
        rejected = self._rejected
        if rejected.by_model:  # nothing rejected yet (the usual case) costs no call
            params = rejected.known(params, self.base_url)
        try:
            return self._call(create, params, messages)
        except BadRequestError as error:
            retry = rejected.retry(params, error, self.base_url)
            if retry is None:
                raise
        return self._call(create, retry, messages)

    async def _acreate(self, params: Params, messages: Sequence[BaseMessage]) -> Any:
        """Async `_create`."""
        create = self._endpoint(self._async_client())
        rejected = self._rejected
        if rejected.by_model:  # nothing rejected yet (the usual case) costs no call
            params = rejected.known(params, self.base_url)
        try:
            return await self._acall(create, params, messages)
        except BadRequestError as error:
            retry = rejected.retry(params, error, self.base_url)
            if retry is None:
                raise
        return await self._acall(create, retry, messages)

    def _result(self, message: AIMessage) -> ChatResult:
        """The `ChatResult` of a whole answer, why the model stopped in ``generation_info``."""
        key = self._reason_key
        info = {key: message.response_metadata.get(key)}
        return ChatResult(generations=[ChatGeneration(message=message, generation_info=info)])

    def _end(
        self,
        reader: StreamReader,
        stream: Any,
        scanner: StopScanner | None,
        cut: ChatGenerationChunk | None,
    ) -> ChatGenerationChunk:
        """A stream's closing chunk; a `StreamError` if it ended early (and was not cut)."""
        marker = scanner.marker if scanner is not None else None
        if marker is None and not reader.complete:
            raise incomplete_stream(
                self._provider, self.server, self._stream_end, self._request_id(stream)
            )
        message = reader.finish()
        key = self._reason_key
        last = ChatGenerationChunk(
            message=message, generation_info={key: message.response_metadata.get(key)}
        )
        if scanner is None:
            return last
        if marker is None:
            return scanner.step(last) or last  # releases the held text (cut at a marker in it)
        merged = message if cut is None else cut.message + message
        # Said to have stopped at the marker even when the server's end never came (the
        # reading past the marker failed): the reply is whole.
        ends = {"finish_reason": None, key: None}
        metadata = stopped_metadata({**ends, **merged.response_metadata}, marker)
        info = stopped_metadata({key: None, **(last.generation_info or {})}, marker)
        return ChatGenerationChunk(
            message=merged.model_copy(update={"response_metadata": metadata}),
            generation_info=dict(info),
        )

    def _request_id(self, stream: Any) -> str | None:
        """The request id of a stream's response, if the server sent one."""
        response = getattr(stream, "response", None)
        return response.headers.get(self._request_id_header) if response is not None else None

    # -- errors ---------------------------------------------------------------------------

    def _error(
        self, exc: BaseException, *, mid_stream: bool = False, request_id: str | None = None
    ) -> ProviderError | None:
        """The typed error for an SDK failure, or ``None`` if `exc` is not one."""
        return map_provider_error(
            exc,
            sdk=self._sdk,
            provider=self._provider,
            secret=self.api_key.get_secret_value(),
            server=self.server,
            base_url=self.base_url,
            mid_stream=mid_stream,
            request_id=request_id,
        )

    def _unencodable(
        self, exc: BaseException, messages: Sequence[BaseMessage], params: Params | None
    ) -> UnencodableContentError | None:
        return unencodable(
            exc,
            provider=self._provider,
            owner=type(self).__name__,
            messages=messages,
            params=params,
            args_as_text=self._args_as_text,
        )

    def _call(self, create: Callable[..., T], params: Params, messages: Sequence[BaseMessage]) -> T:
        """``create(**params)`` with SDK failures turned into typed errors."""
        try:
            return create(**params)
        except Exception as exc:
            error = self._error(exc) or self._unencodable(exc, messages, params)
            if error is None:
                raise
            if isinstance(error, UnencodableContentError):
                raise error from None
            raise error from exc

    async def _acall(
        self,
        create: Callable[..., Awaitable[T]],
        params: Params,
        messages: Sequence[BaseMessage],
    ) -> T:
        """Async `_call`."""
        try:
            return await create(**params)
        except Exception as exc:
            error = self._error(exc) or self._unencodable(exc, messages, params)
            if error is None:
                raise
            if isinstance(error, UnencodableContentError):
                raise error from None
            raise error from exc

    def _guard(self, events: Iterator[T], request_id: str | None) -> Iterator[T]:
        """`events` with failures while iterating turned into typed errors."""
        try:
            yield from events
        except Exception as exc:
            error = self._error(exc, mid_stream=True, request_id=request_id)
            if error is None:
                raise
            raise error from exc

    async def _aguard(self, events: AsyncIterator[T], request_id: str | None) -> AsyncIterator[T]:
        """Async `_guard`."""
        try:
            async for event in events:
                yield event
        except Exception as exc:
            error = self._error(exc, mid_stream=True, request_id=request_id)
            if error is None:
                raise
            raise error from exc


class _past_the_marker:
    """Reading the rest of a stream cut at a stop marker: a failure there loses nothing the
    caller gets (its text is discarded), so it ends the reading, not the answer."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> bool:
        return isinstance(exc, ProviderError)


def _streaming(params: Params) -> Params:
    params["stream"] = True
    return params
