"""Running a runnable's work as a run of the callback tree: the helpers behind every runnable
that reports itself (`Runnable._call_with_config` and its kin are these functions).

Without handlers they cost a dict lookup and call the work directly. With handlers, the run
starts (for a stream: at the first input chunk), the work gets a child config naming the run
as parent, and the run ends with the output (a stream's: the sum of its chunks, and the sum
of its input chunks as ``inputs``) or the error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from leanchain.callbacks.manager import RunManager, RunType, astart_run, start_run
from leanchain.runnables._chunks import aclose, add, close
from leanchain.runnables._inputs import AsyncInputSum, InputSum
from leanchain.runnables.config import RunnableConfig, _current, ensure_config

if TYPE_CHECKING:
    from leanchain.runnables.base import Runnable

__all__ = [
    "acall_with_config",
    "atransform_with_config",
    "call_with_config",
    "invoke_child",
    "transform_child",
    "transform_with_config",
]

Out = TypeVar("Out")


def call_with_config(
    self: Runnable[Any, Any],
    func: Callable[[Any, RunnableConfig, RunManager | None], Out],
    input: Any,
    config: RunnableConfig | None,
    run_type: RunType = "chain",
) -> Out:
    """Run ``func(input, config, run)`` as a run of `self`, telling the callbacks.

    With handlers attached, `config` is already a child config of the run (children that
    need tags of their own use ``run.child_config``); without, `run` is ``None``.
    """
    config = ensure_config(config)
    if not config.get("callbacks"):
        return func(input, config, None)
    run = start_run(config, run_type, self.get_name(), input)
    if run is None:
        return func(input, config, None)
    try:
        output = func(input, run.child_config(config), run)
    except BaseException as exc:
        run.on_error(exc)
        raise
    run.on_end(output)
    return output


async def acall_with_config(
    self: Runnable[Any, Any],
    func: Callable[[Any, RunnableConfig, RunManager | None], Awaitable[Out]],
    input: Any,
    config: RunnableConfig | None,
    run_type: RunType = "chain",
) -> Out:
    """Async twin of `call_with_config`."""
    config = ensure_config(config)
    if not config.get("callbacks"):
        return await func(input, config, None)
    run = await astart_run(config, run_type, self.get_name(), input)
    if run is None:
        return await func(input, config, None)
    try:
        output = await func(input, run.child_config(config), run)
    except BaseException as exc:
        await run.aon_error(exc)
        raise
    await run.aon_end(output)
    return output


def transform_with_config(
    self: Runnable[Any, Any],
    input: Iterator[Any],
    func: Callable[[Iterator[Any], RunnableConfig, RunManager | None], Iterator[Out]],
    config: RunnableConfig | None,
    run_type: RunType = "chain",
) -> Iterator[Out]:
    """Stream ``func(input, config, run)`` as a run of `self`.

    The run starts when the first input chunk is available (its input is reported as the
    sum of all input chunks at the end) and ends with the sum of the output chunks.
    """
    config = ensure_config(config)
    if not config.get("callbacks"):
        yield from func(input, config, None)
        return
    inputs = InputSum(input)
    inputs.pull_first()
    run = start_run(config, run_type, self.get_name(), "")
    if run is None:
        yield from func(inputs, config, None)
        return
    got, total = False, None
    chunks: Iterator[Out] | None = None
    try:
        chunks = func(inputs, run.child_config(config), run)
        for chunk in chunks:
            # Told before it is passed on, so that a chunk's events go inner to outer.
            run.on_stream(chunk)
            total = chunk if not got else add(total, chunk)
            got = True
            yield chunk
    except GeneratorExit:
        # The consumer stopped reading: the run ends with what it was given (as LangChain's
        # streams end), after the runs inside it and the stream it read from end.
        try:
            if chunks is not None:
                close(chunks)
            close(input)
        finally:
            run.on_end(total, inputs=inputs.total)
        raise
    except BaseException as exc:
        run.on_error(exc)
        raise
    run.on_end(total, inputs=inputs.total)


async def atransform_with_config(
    self: Runnable[Any, Any],
    input: AsyncIterator[Any],
    func: Callable[[AsyncIterator[Any], RunnableConfig, RunManager | None], AsyncIterator[Out]],
    config: RunnableConfig | None,
    run_type: RunType = "chain",
) -> AsyncIterator[Out]:
    """Async twin of `transform_with_config`."""
    config = ensure_config(config)
    # Each inner stream is closed as soon as this one is left early: a consumer that stops
    # stops the work under it now (`aclose`). Only then: a stream read to its end is closed.
    if not config.get("callbacks"):
        chunks = func(input, config, None)
        try:
            async for chunk in chunks:
                yield chunk
        except BaseException:
            await aclose(chunks)
            raise
        return
    inputs = AsyncInputSum(input)
    await inputs.pull_first()
    run = await astart_run(config, run_type, self.get_name(), "")
    if run is None:
        chunks = func(inputs, config, None)
        try:
            async for chunk in chunks:
                yield chunk
        except BaseException:
            await aclose(chunks)
            raise
        return
    got, total = False, None
    chunks = func(inputs, run.child_config(config), run)
    try:
        async for chunk in chunks:
            await run.aemit("on_chain_stream", chunk)
            total = chunk if not got else add(total, chunk)
            got = True
            yield chunk
    except GeneratorExit:
        # Closed by its consumer (``aclose``): an end with what it was given, not a failure,
        # after the runs inside it and the stream it read from (no garbage collector closes
        # an abandoned async stream at once) end.
        try:
            await aclose(chunks)
            await aclose(input)
        finally:
            await run.aon_end(total, inputs=inputs.total)
        raise
    except BaseException as exc:
        try:
            await aclose(chunks)
        finally:
            await run.aon_error(exc)
        raise
    await run.aon_end(total, inputs=inputs.total)


def invoke_child(
    self: Runnable[Any, Out],
    input: Any,
    config: RunnableConfig,
    run: RunManager,
    tag: str | None,
    kwargs: dict[str, Any],
) -> Out:
    """`invoke` as a child run of `run`, whose config is `config` (`tag` labels the child).

    What a traced parent calls for each child it runs: the child's config is made here and
    published while the child runs. A runnable that starts a run of its own may override
    this to start it from `run` directly (`RunManager.start_child`), skipping that config.
    """
    child = run.child_config(config, tag)
    token = _current.set(child)
    try:
        return self.invoke(input, child, **kwargs)
    finally:
        _current.reset(token)


def transform_child(
    self: Runnable[Any, Out],
    input: Iterator[Any],
    config: RunnableConfig,
    run: RunManager,
    tag: str | None,
    kwargs: dict[str, Any],
) -> Iterator[Out]:
    """`transform` as a child run of `run`: the streaming twin of `invoke_child`."""
    return self.transform(input, run.child_config(config, tag), **kwargs)
