"""The one interception point around every chat-model call (DESIGN §3.1).

`intercept_model_calls(interceptor)` pushes a `ModelInterceptor` onto a context variable for
the ``with`` block; every chat-model call made inside it (`invoke`, `ainvoke`, `stream`,
`astream`, on any model class, in this thread or task or in the worker threads and tasks a run
starts from it) goes through the interceptor's hook of the same name. The hook gets the
`ModelCall` (what the model is asked) and ``proceed``, which runs the real call. This is how a
run counts usage for budgets and how `leanchain.testing` records and replays traffic; nothing
else patches model classes.

Rules:

- Unset, it costs one context-variable read per call.
- A call is seen once, by the hook of the method the caller used: a `stream` that falls back to
  `invoke` (the model cannot stream) is one `stream` call, and ``proceed`` yields the reply as
  one chunk.
- ``proceed()`` runs the real call *including* its callback run (``on_chat_model_start``,
  tokens, ``on_llm_end``). An interceptor that does not call it answers in the model's place;
  with `ModelCall.answer` (and its twins) the callbacks and events still see a chat-model run,
  the same one the model would have made, so a replayed `astream_events` equals the recorded
  one but for run ids and times. An interceptor that just returns a message makes no run.
- ``proceed()`` runs the call as `ModelCall` says when it is called: an interceptor may replace
  ``messages``, ``stop``, ``kwargs``, ``config`` or even ``model`` before calling it. It may be
  called more than once (a retry runs the call again).
- The interceptor pushed first is the outermost: it sees the call first and the reply last.
- Exceptions pass through both ways: one from the model reaches the interceptors (which may
  catch it), one from an interceptor reaches the caller.
- A hook that an interceptor class does not override is never called (read once per class).
"""

from __future__ import annotations

from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Sequence,
)
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from leanchain.callbacks.weak import WeakMemo
from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage

if TYPE_CHECKING:
    from leanchain.runnables.config import RunnableConfig

    from ._base import BaseChatModel

__all__ = [
    "INTERCEPTORS",
    "ModelCall",
    "ModelInterceptor",
    "intercept_model_calls",
    "run_ainvoke",
    "run_astream",
    "run_invoke",
    "run_stream",
]

Reply: TypeAlias = AIMessage | Sequence[AIMessageChunk]
"""What `ModelCall.answer` accepts: a whole reply, or the chunks of a streamed one."""

_Hook: TypeAlias = Literal["invoke", "ainvoke", "stream", "astream"]
_HOOKS: tuple[_Hook, ...] = ("invoke", "ainvoke", "stream", "astream")

INTERCEPTORS: ContextVar[tuple[ModelInterceptor, ...]] = ContextVar(
    "leanchain_model_interceptors", default=()
)
"""The interceptors of this context, outermost first (read by `BaseChatModel` on every call)."""


class ModelCall:
    """What one chat-model call is asked: the model, its converted input, stop and arguments.

    The fields may be replaced by an interceptor before it calls ``proceed``, which runs the
    call as they say then.
    """

    __slots__ = ("config", "kwargs", "messages", "model", "stop")

    model: BaseChatModel
    """The model called."""
    messages: list[BaseMessage]
    """The input, converted to messages."""
    stop: list[str] | None
    """The stop sequences the caller passed (``None``: the model's own default)."""
    kwargs: dict[str, Any]
    """What the call passes on to the model: bound ``tools``, ``tool_choice``, ..."""
    config: RunnableConfig
    """The call's config (callbacks, tags, metadata, ...), inherited keys included."""

    def __init__(
        self,
        model: BaseChatModel,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        config: RunnableConfig,
    ) -> None:
        self.model = model
        self.messages = messages
        self.stop = stop
        self.kwargs = kwargs
        self.config = config

    def __repr__(self) -> str:
        return (
            f"ModelCall(model={self.model.get_name()!r}, messages={len(self.messages)}, "
            f"stop={self.stop!r}, kwargs={sorted(self.kwargs)!r})"
        )

    # -- answering in the model's place -----------------------------------------------------

    def answer(self, reply: Reply) -> AIMessage:
        """Answer this call with `reply` instead of running the model.

        Callbacks and events see the chat-model run the model would have made: its name and
        invocation parameters, its tokens when a handler wants them (the chunks of `reply`, or
        the whole reply as one chunk), its end with the reply.
        """
        from ._answer import stand_in

        model = stand_in(self.model, reply)
        return model._invoke_call(self)

    async def aanswer(self, reply: Reply) -> AIMessage:
        """Async `answer`."""
        from ._answer import stand_in

        model = stand_in(self.model, reply)
        return await model._ainvoke_call(self)

    def answer_stream(self, reply: Reply) -> Iterator[AIMessageChunk]:
        """`answer` for a `stream` call: the chunks of `reply` (a whole reply: one chunk)."""
        from ._answer import stand_in

        model = stand_in(self.model, reply)
        return model._stream_call(self)

    def aanswer_stream(self, reply: Reply) -> AsyncIterator[AIMessageChunk]:
        """`answer_stream` for an `astream` call."""
        from ._answer import stand_in

        model = stand_in(self.model, reply)
        return model._astream_call(self)


class ModelInterceptor:
    """Wraps chat-model calls; subclass it and override the hooks you need.

    Every hook is optional and, by default, proceeds with the call. A hook that a class does
    not override is never called. One interceptor may see calls from several threads and tasks
    at once: keep what one run remembers out of the object, or guard it.
    """

    __slots__ = ()

    def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
        """Around `BaseChatModel.invoke` (and `batch`): return the reply."""
        return proceed()

    async def ainvoke(
        self, call: ModelCall, proceed: Callable[[], Awaitable[AIMessage]]
    ) -> AIMessage:
        """Around `BaseChatModel.ainvoke` (and `abatch`): return the reply."""
        return await proceed()

    def stream(
        self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
    ) -> Iterator[AIMessageChunk]:
        """Around `BaseChatModel.stream`: yield the reply's chunks, the last marked last."""
        return proceed()

    def astream(
        self, call: ModelCall, proceed: Callable[[], AsyncIterator[AIMessageChunk]]
    ) -> AsyncIterator[AIMessageChunk]:
        """Around `BaseChatModel.astream`: yield the reply's chunks, the last marked last."""
        return proceed()


class intercept_model_calls:  # lower case: to its callers it reads as a function
    """Send every chat-model call made inside the ``with`` block through `interceptor`.

    Blocks nest: the interceptor of the outer block wraps the one of the inner block. Worker
    threads and tasks started inside the block (by a run, or by `asyncio.create_task`) see it;
    other threads and tasks do not. (A small class rather than a generator-based context
    manager: a run's usage counter enters one per planning call, and this costs a fifth.)

    Raises:
        TypeError: `interceptor` is not a `ModelInterceptor`.
    """

    __slots__ = ("_interceptor", "_token")

    def __init__(self, interceptor: ModelInterceptor) -> None:
        if not isinstance(interceptor, ModelInterceptor):
            raise TypeError(
                "intercept_model_calls expects a ModelInterceptor, got "
                f"{type(interceptor).__name__}"
            )
        self._interceptor = interceptor
        self._token: Token[tuple[ModelInterceptor, ...]] | None = None

    def __enter__(self) -> None:
        self._token = INTERCEPTORS.set((*INTERCEPTORS.get(), self._interceptor))

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            INTERCEPTORS.reset(self._token)
            self._token = None


_overridden: WeakMemo[frozenset[_Hook]] = WeakMemo()
"""Each interceptor class's overridden hooks, held weakly (a class is not kept alive by it)."""


def _chain(interceptors: tuple[ModelInterceptor, ...], hook: _Hook) -> list[ModelInterceptor]:
    """The interceptors whose class overrides `hook`, outermost first."""
    chain = []
    for interceptor in interceptors:
        cls = type(interceptor)
        hooks = _overridden.get(cls)
        if hooks is None:
            hooks = frozenset(
                h for h in _HOOKS if getattr(cls, h) is not getattr(ModelInterceptor, h)
            )
            _overridden.put(cls, hooks)
        if hook in hooks:
            chain.append(interceptor)
    return chain


def _not_a(what: str, interceptor: ModelInterceptor, hook: str, got: object) -> TypeError:
    return TypeError(
        f"{type(interceptor).__name__}.{hook} returned {type(got).__name__}; expected {what}"
    )


def run_invoke(interceptors: tuple[ModelInterceptor, ...], call: ModelCall) -> AIMessage:
    """`call` as an `invoke` through the interceptors' `invoke` hooks."""
    chain = _chain(interceptors, "invoke")

    def step(index: int) -> AIMessage:
        if index == len(chain):
            return call.model._invoke_call(call)
        interceptor = chain[index]
        reply = interceptor.invoke(call, lambda: step(index + 1))
        if not isinstance(reply, AIMessage):
            raise _not_a("an AIMessage", interceptor, "invoke", reply)
        return reply

    return step(0)


async def run_ainvoke(interceptors: tuple[ModelInterceptor, ...], call: ModelCall) -> AIMessage:
    """`call` as an `ainvoke` through the interceptors' `ainvoke` hooks."""
    chain = _chain(interceptors, "ainvoke")

    async def step(index: int) -> AIMessage:
        if index == len(chain):
            return await call.model._ainvoke_call(call)
        interceptor = chain[index]
        reply = await interceptor.ainvoke(call, lambda: step(index + 1))
        if not isinstance(reply, AIMessage):
            raise _not_a("an AIMessage", interceptor, "ainvoke", reply)
        return reply

    return await step(0)


def run_stream(
    interceptors: tuple[ModelInterceptor, ...], call: ModelCall
) -> Iterator[AIMessageChunk]:
    """`call` as a `stream` through the interceptors' `stream` hooks."""
    chain = _chain(interceptors, "stream")

    def step(index: int) -> Iterator[AIMessageChunk]:
        if index == len(chain):
            return call.model._stream_call(call)
        interceptor = chain[index]
        return _checked(interceptor, interceptor.stream(call, lambda: step(index + 1)))

    return step(0)


def run_astream(
    interceptors: tuple[ModelInterceptor, ...], call: ModelCall
) -> AsyncGenerator[AIMessageChunk, None]:
    """`call` as an `astream` through the interceptors' `astream` hooks."""
    chain = _chain(interceptors, "astream")

    def step(index: int) -> AsyncGenerator[AIMessageChunk, None]:
        if index == len(chain):
            return call.model._astream_call(call)
        interceptor = chain[index]
        return _achecked(interceptor, interceptor.astream(call, lambda: step(index + 1)))

    return step(0)


def _checked(
    interceptor: ModelInterceptor, chunks: Iterator[AIMessageChunk]
) -> Iterator[AIMessageChunk]:
    if not hasattr(chunks, "__next__"):
        raise _not_a("an iterator of AIMessageChunk", interceptor, "stream", chunks)
    try:
        for chunk in chunks:
            if not isinstance(chunk, AIMessageChunk):
                raise _not_a("AIMessageChunks", interceptor, "stream (a chunk)", chunk)
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


async def _achecked(
    interceptor: ModelInterceptor, chunks: AsyncIterator[AIMessageChunk]
) -> AsyncGenerator[AIMessageChunk, None]:
    if not hasattr(chunks, "__anext__"):
        raise _not_a("an async iterator of AIMessageChunk", interceptor, "astream", chunks)
    try:
        async for chunk in chunks:
            if not isinstance(chunk, AIMessageChunk):
                raise _not_a("AIMessageChunks", interceptor, "astream (a chunk)", chunk)
            yield chunk
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()
