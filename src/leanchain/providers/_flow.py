"""The one request flow of the provider adapters: invoke, stream, sync and async.

`ProviderFlow` holds what every call does, once: build the request, call the SDK with its
failures turned into typed errors, ask once more without a parameter the model rejects, read
the reply or the stream, close the stream, and fail on a stream that ended early. A provider
class supplies only the hooks: its request (`_params`, `_stream_params`), its SDK endpoint
(`_endpoint`), its reply reader (`_message`), its stream reader (`_reader`) and a few names.
Client-side stop sequences are the chat-model base's (``client_side_stop``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from leanchain.errors import BadRequestError, ProviderError
from leanchain.language_models import ChatGeneration, ChatGenerationChunk, ChatResult

from ._common import ProviderChatModel
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
        params = self._params(messages, stop, kwargs)
        if self._must_stream(params):
            return result_from_chunks(list(self._chunks(partial(_streaming, params))))
        return self._result(self._message(self._create(params)))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        params = self._params(messages, stop, kwargs)
        if self._must_stream(params):
            chunks = self._achunks(partial(_streaming, params))
            return result_from_chunks([chunk async for chunk in chunks])
        return self._result(self._message(await self._acreate(params)))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        return self._chunks(partial(self._stream_params, messages, stop, kwargs))

    def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        return self._achunks(partial(self._stream_params, messages, stop, kwargs))

    # -- the flow -------------------------------------------------------------------------

    def _chunks(self, request: Callable[[], Params]) -> Iterator[ChatGenerationChunk]:
        """The streamed answer to ``request()``.

        The request is built on the first step, inside the stream, so that a bad one fails
        where the run's callbacks see it.
        """
        stream = self._create(request())
        reader = self._reader()
        with stream:
            for event in self._guard(stream, self._request_id(stream)):
                chunk = reader.read(event)
                if chunk is not None:
                    yield ChatGenerationChunk(message=chunk)
        yield self._last(reader, stream)

    async def _achunks(self, request: Callable[[], Params]) -> AsyncIterator[ChatGenerationChunk]:
        """Async `_chunks`."""
        stream = await self._acreate(request())
        reader = self._reader()
        async with stream:
            async for event in self._aguard(stream, self._request_id(stream)):
                chunk = reader.read(event)
                if chunk is not None:
                    yield ChatGenerationChunk(message=chunk)
        yield self._last(reader, stream)

    def _create(self, params: Params) -> Any:
        """The SDK's answer to `params`; once more without a parameter the model rejects."""
        create = self._endpoint(self._sync_client())
        rejected = self._rejected
        if rejected.by_model:  # nothing rejected yet (the usual case) costs no call
            params = rejected.known(params)
        try:
            return self._call(create, params)
        except BadRequestError as error:
            retry = rejected.retry(params, error)
            if retry is None:
                raise
        return self._call(create, retry)

    async def _acreate(self, params: Params) -> Any:
        """Async `_create`."""
        create = self._endpoint(self._async_client())
        rejected = self._rejected
        if rejected.by_model:  # nothing rejected yet (the usual case) costs no call
            params = rejected.known(params)
        try:
            return await self._acall(create, params)
        except BadRequestError as error:
            retry = rejected.retry(params, error)
            if retry is None:
                raise
        return await self._acall(create, retry)

    def _result(self, message: AIMessage) -> ChatResult:
        """The `ChatResult` of a whole answer, why the model stopped in ``generation_info``."""
        key = self._reason_key
        info = {key: message.response_metadata.get(key)}
        return ChatResult(generations=[ChatGeneration(message=message, generation_info=info)])

    def _last(self, reader: StreamReader, stream: Any) -> ChatGenerationChunk:
        """A stream's closing chunk; a `StreamError` if the stream ended early."""
        if not reader.complete:
            raise incomplete_stream(self._provider, self._stream_end, self._request_id(stream))
        message = reader.finish()
        key = self._reason_key
        info = {key: message.response_metadata.get(key)}
        return ChatGenerationChunk(message=message, generation_info=info)

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
            mid_stream=mid_stream,
            request_id=request_id,
        )

    def _call(self, create: Callable[..., T], params: Params) -> T:
        """``create(**params)`` with SDK failures turned into typed errors."""
        try:
            return create(**params)
        except Exception as exc:
            error = self._error(exc)
            if error is None:
                raise
            raise error from exc

    async def _acall(self, create: Callable[..., Awaitable[T]], params: Params) -> T:
        """Async `_call`."""
        try:
            return await create(**params)
        except Exception as exc:
            error = self._error(exc)
            if error is None:
                raise
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


def _streaming(params: Params) -> Params:
    params["stream"] = True
    return params
