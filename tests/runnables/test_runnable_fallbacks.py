"""`with_fallbacks` (`RunnableWithFallbacks`): order, exception filters, `exception_key`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from leanchain.runnables import (
    Runnable,
    RunnableConfig,
    RunnableLambda,
    RunnableWithFallbacks,
)


class Counted:
    """A function that records its calls and fails with `error` when one is given."""

    def __init__(self, result: Any = None, error: Exception | None = None) -> None:
        self.result = result
        self.error = error
        self.calls: list[Any] = []

    def __call__(self, x: Any, **kwargs: Any) -> Any:
        self.calls.append(x)
        if self.error is not None:
            raise self.error
        return self.result if self.result is not None else x


def fallbacks(*parts: Counted, **kwargs: Any) -> RunnableWithFallbacks[Any, Any]:
    first, *rest = (RunnableLambda(p) for p in parts)
    return first.with_fallbacks(rest, **kwargs)


def test_primary_success_skips_the_fallbacks() -> None:
    primary, backup = Counted("p"), Counted("b")
    assert fallbacks(primary, backup).invoke(1) == "p"
    assert (primary.calls, backup.calls) == ([1], [])


def test_fallbacks_are_tried_in_order_until_one_succeeds() -> None:
    primary = Counted(error=ValueError("primary failed"))
    second = Counted(error=ValueError("second"))
    third = Counted("third")
    fourth = Counted("fourth")
    runnable = fallbacks(primary, second, third, fourth)
    assert isinstance(runnable, RunnableWithFallbacks)
    assert runnable.invoke(1) == "third"
    assert [len(p.calls) for p in (primary, second, third, fourth)] == [1, 1, 1, 0]


def test_when_all_fail_invoke_raises_the_primary_error() -> None:
    runnable = fallbacks(Counted(error=ValueError("primary failed")), Counted(error=KeyError("2")))
    with pytest.raises(ValueError) as error:
        runnable.invoke(1)
    assert str(error.value) == "primary failed"


def test_unhandled_exceptions_propagate_at_once() -> None:
    backup = Counted("b")
    runnable = fallbacks(Counted(error=KeyError("k")), backup, exceptions_to_handle=(ValueError,))
    with pytest.raises(KeyError):
        runnable.invoke(1)
    assert backup.calls == []


def test_call_kwargs_reach_each_runnable() -> None:
    primary = Counted(error=ValueError("x"))
    seen: list[dict[str, Any]] = []

    def backup(x: int, **kwargs: Any) -> int:
        seen.append(kwargs)
        return x

    assert RunnableLambda(primary).with_fallbacks([RunnableLambda(backup)]).invoke(1, k=3) == 1
    assert seen == [{"k": 3}]


def test_exception_key_passes_the_previous_error_in_the_input() -> None:
    seen: list[Any] = []

    def backup(d: dict[str, Any]) -> str:
        seen.append(d["error"])
        return "ok"

    primary = Counted(error=ValueError("primary failed"))
    source: dict[str, Any] = {"q": 1}
    runnable = RunnableLambda(primary).with_fallbacks(
        [RunnableLambda(backup)], exception_key="error"
    )
    assert runnable.invoke(source) == "ok"
    assert [repr(e) for e in seen] == ["ValueError('primary failed')"]
    # LangChain writes the key into the caller's dict, and so does leanchain.
    assert repr(source["error"]) == "ValueError('primary failed')"


def test_exception_key_requires_a_dict_input() -> None:
    runnable = RunnableLambda(Counted()).with_fallbacks([], exception_key="error")
    message = (
        "If 'exception_key' is specified then input must be a dictionary."
        "However found a type of <class 'int'> for input"
    )
    with pytest.raises(ValueError) as error:
        runnable.invoke(1)
    assert str(error.value) == message
    with pytest.raises(ValueError) as batch_error:
        runnable.batch([1])
    assert str(batch_error.value) == message
    with pytest.raises(ValueError) as stream_error:
        list(runnable.stream(1))
    assert str(stream_error.value) == message


async def test_ainvoke_falls_back() -> None:
    async def primary(x: int) -> Any:
        raise ValueError("primary failed")

    backup = Counted("b")
    runnable = RunnableLambda(primary).with_fallbacks([RunnableLambda(backup)])
    assert await runnable.ainvoke(1) == "b"
    everything_fails = RunnableLambda(primary).with_fallbacks(
        [RunnableLambda(Counted(error=KeyError("k")))]
    )
    with pytest.raises(ValueError, match="primary failed"):
        await everything_fails.ainvoke(1)


def test_batch_runs_fallbacks_only_on_failed_items() -> None:
    def primary(x: int) -> int:
        if x % 2:
            raise ValueError("odd")
        return x

    backup = Counted(-1)
    runnable = RunnableLambda(primary).with_fallbacks([RunnableLambda(backup)])
    assert runnable.batch([1, 2, 3, 4]) == [-1, 2, -1, 4]
    assert backup.calls == [1, 3]


def test_batch_keeps_the_last_error_of_each_item() -> None:
    runnable = fallbacks(Counted(error=ValueError("primary")), Counted(error=ValueError("second")))
    results = runnable.batch([1, 2], return_exceptions=True)
    assert [repr(r) for r in results] == ["ValueError('second')", "ValueError('second')"]
    with pytest.raises(ValueError) as error:
        runnable.batch([1])
    assert str(error.value) == "second"


async def test_abatch_keeps_the_last_error_of_each_item() -> None:
    runnable = fallbacks(Counted(error=ValueError("primary")), Counted(error=ValueError("second")))
    results = await runnable.abatch([1, 2], return_exceptions=True)
    assert [repr(r) for r in results] == ["ValueError('second')", "ValueError('second')"]
    with pytest.raises(ValueError, match="second"):
        await runnable.abatch([1])


def test_batch_unhandled_error_aborts_without_return_exceptions() -> None:
    backup = Counted("b")
    runnable = fallbacks(Counted(error=KeyError("k")), backup, exceptions_to_handle=(ValueError,))
    with pytest.raises(KeyError):
        runnable.batch([1, 2])
    results = runnable.batch([1], return_exceptions=True)
    assert [repr(r) for r in results] == ["KeyError('k')"]
    assert backup.calls == []


def test_batch_exception_key() -> None:
    def backup(d: dict[str, Any]) -> str:
        return repr(d["error"])

    runnable = RunnableLambda(Counted(error=ValueError("p"))).with_fallbacks(
        [RunnableLambda(backup)], exception_key="error"
    )
    assert runnable.batch([{"a": 1}, {"a": 2}]) == ["ValueError('p')", "ValueError('p')"]


def test_stream_falls_back_before_the_first_chunk() -> None:
    def broken(x: str) -> Iterator[str]:
        raise ValueError("no chunks")
        yield x

    def letters(x: str) -> Iterator[str]:
        yield from x

    runnable = RunnableLambda(broken).with_fallbacks([RunnableLambda(letters)])
    assert list(runnable.stream("ab")) == ["a", "b"]


def test_stream_error_after_the_first_chunk_propagates() -> None:
    def half(x: str) -> Iterator[str]:
        yield "a"
        raise ValueError("mid-stream")

    backup = Counted("b")
    runnable = RunnableLambda(half).with_fallbacks([RunnableLambda(backup)])
    got: list[str] = []
    stream = runnable.stream("x")
    with pytest.raises(ValueError, match="mid-stream"):
        got.extend(stream)
    assert (got, backup.calls) == (["a"], [])


def test_stream_falls_back_when_the_stream_cannot_even_start() -> None:
    async def async_only(x: str) -> str:
        return x

    runnable = RunnableLambda(async_only).with_fallbacks([RunnableLambda(lambda x: x + "!")])
    assert list(runnable.stream("a")) == ["a!"]


def test_stream_all_failing_raises_the_primary_error() -> None:
    runnable = fallbacks(Counted(error=ValueError("primary failed")), Counted(error=KeyError("k")))
    with pytest.raises(ValueError, match="primary failed"):
        list(runnable.stream(1))


async def test_astream_falls_back_before_the_first_chunk() -> None:
    async def broken(x: str) -> AsyncIterator[str]:
        raise ValueError("no chunks")
        yield x

    async def letters(x: str) -> AsyncIterator[str]:
        for ch in x:
            yield ch

    runnable = RunnableLambda(broken).with_fallbacks([RunnableLambda(letters)])
    assert [c async for c in runnable.astream("ab")] == ["a", "b"]


class Greeter(Runnable[str, str]):
    """A runnable with a method that makes a new runnable (like `bind_tools`)."""

    def __init__(self, greeting: str) -> None:
        self.greeting = greeting

    def with_greeting(self, greeting: str) -> Greeter:
        return Greeter(greeting)

    def invoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        if self.greeting == "fail":
            raise ValueError("fail")
        return f"{self.greeting} {input}"


def test_getattr_applies_runnable_returning_methods_to_every_runnable() -> None:
    runnable = Greeter("fail").with_fallbacks([Greeter("hello")])
    assert runnable.greeting == "fail"
    changed = runnable.with_greeting("hi")
    assert isinstance(changed, RunnableWithFallbacks)
    assert [r.greeting for r in changed.runnables if isinstance(r, Greeter)] == ["hi", "hi"]
    assert changed.invoke("you") == "hi you"
    assert runnable.invoke("you") == "hello you"
