"""`with_retry` (`RunnableRetry`): attempts, exception filters, batches and streams."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from runnables_support import Recorder

from leanchain.runnables import RunnableLambda, RunnableRetry


class Flaky:
    """Fails with `error` the first `failures` times it is called for each input."""

    def __init__(self, failures: int, error: type[Exception] = ValueError) -> None:
        self.failures = failures
        self.error = error
        self.calls: Counter[Any] = Counter()

    def __call__(self, x: Any, **kwargs: Any) -> Any:
        self.calls[x] += 1
        if self.calls[x] <= self.failures:
            raise self.error("flaky")
        return x


def no_wait(flaky: Flaky, **kwargs: Any) -> RunnableRetry[Any, Any]:
    return RunnableLambda(flaky).with_retry(wait_exponential_jitter=False, **kwargs)


def test_with_retry_builds_a_retry_with_defaults() -> None:
    retry = RunnableLambda(lambda x: x).with_retry()
    assert isinstance(retry, RunnableRetry)
    assert retry.max_attempt_number == 3
    assert retry.retry_exception_types == (Exception,)
    assert retry.wait_exponential_jitter is True
    assert retry.get_name() == "RunnableLambda"


def test_succeeds_on_a_later_attempt() -> None:
    flaky = Flaky(failures=2)
    assert no_wait(flaky).invoke(1) == 1
    assert flaky.calls[1] == 3


def test_exhausted_attempts_raise_the_original_exception() -> None:
    flaky = Flaky(failures=5)
    with pytest.raises(ValueError) as error:
        no_wait(flaky, stop_after_attempt=2).invoke(1)
    assert type(error.value) is ValueError
    assert str(error.value) == "flaky"
    assert flaky.calls[1] == 2


def test_non_matching_exceptions_are_not_retried() -> None:
    flaky = Flaky(failures=5, error=KeyError)
    with pytest.raises(KeyError):
        no_wait(flaky, retry_if_exception_type=(ValueError,)).invoke(1)
    assert flaky.calls[1] == 1


def test_matching_subclasses_are_retried() -> None:
    class Transient(ValueError):
        pass

    flaky = Flaky(failures=1, error=Transient)
    assert no_wait(flaky, retry_if_exception_type=(ValueError,)).invoke(1) == 1
    assert flaky.calls[1] == 2


def test_call_kwargs_reach_every_attempt() -> None:
    seen: list[dict[str, Any]] = []

    def flaky(x: int, **kwargs: Any) -> int:
        seen.append(kwargs)
        if len(seen) < 2:
            raise ValueError("again")
        return x

    assert RunnableLambda(flaky).with_retry(wait_exponential_jitter=False).invoke(1, k=2) == 1
    assert seen == [{"k": 2}, {"k": 2}]


def test_backoff_waits_use_the_jitter_params() -> None:
    flaky = Flaky(failures=2)
    retry = RunnableLambda(flaky).with_retry(
        exponential_jitter_params={"initial": 0.001, "max": 0.002, "jitter": 0.0}
    )
    assert retry.invoke(1) == 1
    assert flaky.calls[1] == 3
    assert [retry._wait(n) for n in (1, 2, 3)] == [0.001, 0.002, 0.002]


NO_SLEEP = {"max": 0.0, "jitter": 0.0}
"""Backoff on, but capped at nothing: the waits are computed as usual and sleep 0 s."""


@pytest.mark.parametrize("mode", ["invoke", "batch"])
def test_past_1025_attempts_the_original_error_is_raised_not_an_overflow(mode: str) -> None:
    flaky = Flaky(failures=10_000)
    retry = RunnableLambda(flaky).with_retry(
        stop_after_attempt=1100, exponential_jitter_params=NO_SLEEP
    )
    run = (lambda: retry.invoke(1)) if mode == "invoke" else (lambda: retry.batch([1]))
    with pytest.raises(ValueError) as error:
        run()
    assert type(error.value) is ValueError
    assert str(error.value) == "flaky"
    assert error.value.__context__ is None
    assert flaky.calls[1] == 1100


async def test_past_1025_async_attempts_the_original_error_is_raised() -> None:
    flaky = Flaky(failures=10_000)
    retry = RunnableLambda(flaky).with_retry(
        stop_after_attempt=1100, exponential_jitter_params=NO_SLEEP
    )
    with pytest.raises(ValueError, match=r"^flaky$"):
        await retry.ainvoke(1)
    assert flaky.calls[1] == 1100


def test_the_backoff_is_capped_before_it_is_computed() -> None:
    retry = RunnableLambda(lambda x: x).with_retry(exponential_jitter_params={"jitter": 0.0})
    assert [retry._wait(n) for n in (1, 2, 6, 7, 1025, 10**9)] == [1.0, 2.0, 32.0, 60.0, 60.0, 60.0]
    shrinking = RunnableLambda(lambda x: x).with_retry(
        exponential_jitter_params={"exp_base": 0.5, "jitter": 0.0}
    )
    assert [shrinking._wait(n) for n in (1, 2, 5000)] == [1.0, 0.5, 0.0]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"maximum": 5},
            "Unknown exponential_jitter_params key 'maximum': expected some of "
            "['initial', 'max', 'exp_base', 'jitter']",
        ),
        (
            {"max": float("inf")},
            "exponential_jitter_params['max'] must be a finite number >= 0, got inf",
        ),
        (
            {"initial": -1},
            "exponential_jitter_params['initial'] must be a finite number >= 0, got -1",
        ),
        (
            {"jitter": "1"},
            "exponential_jitter_params['jitter'] must be a finite number >= 0, got '1'",
        ),
    ],
)
def test_bad_jitter_params_fail_when_the_retry_is_built(
    params: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError) as error:
        RunnableLambda(lambda x: x).with_retry(exponential_jitter_params=params)
    assert str(error.value) == message


def test_stop_after_attempt_must_be_positive() -> None:
    with pytest.raises(ValueError, match="stop_after_attempt must be at least 1, got 0"):
        RunnableLambda(lambda x: x).with_retry(stop_after_attempt=0)


async def test_ainvoke_retries() -> None:
    flaky = Flaky(failures=2)
    assert await no_wait(flaky).ainvoke(1) == 1
    assert flaky.calls[1] == 3
    exhausted = Flaky(failures=9)
    with pytest.raises(ValueError, match="flaky"):
        await no_wait(exhausted, stop_after_attempt=2).ainvoke(1)
    assert exhausted.calls[1] == 2


async def test_async_function_retries() -> None:
    calls = 0

    async def flaky(x: int) -> int:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise ValueError("again")
        return x * 2

    retry = RunnableLambda(flaky).with_retry(wait_exponential_jitter=False)
    assert await retry.ainvoke(4) == 8
    assert calls == 3


def test_batch_retries_only_the_failing_items() -> None:
    flaky = Flaky(failures=0)
    flaky_two = Flaky(failures=2)

    def mixed(x: int) -> Any:
        return flaky_two(x) if x == 2 else flaky(x)

    retry = RunnableLambda(mixed).with_retry(wait_exponential_jitter=False)
    assert retry.batch([1, 2, 3]) == [1, 2, 3]
    assert flaky.calls == Counter({1: 1, 3: 1})
    assert flaky_two.calls == Counter({2: 3})


def test_batch_return_exceptions_keeps_what_still_fails() -> None:
    flaky = Flaky(failures=9)

    def mixed(x: int) -> int:
        return flaky(x) if x == 2 else x

    retry = RunnableLambda(mixed).with_retry(stop_after_attempt=2, wait_exponential_jitter=False)
    results = retry.batch([1, 2, 3], return_exceptions=True)
    assert results[0] == 1
    assert results[2] == 3
    assert isinstance(results[1], ValueError)
    assert flaky.calls[2] == 2
    with pytest.raises(ValueError, match="flaky"):
        retry.batch([1, 2, 3])


async def test_abatch_retries_only_the_failing_items() -> None:
    flaky = Flaky(failures=1)

    def mixed(x: int) -> int:
        return flaky(x) if x % 2 else x

    retry = RunnableLambda(mixed).with_retry(wait_exponential_jitter=False)
    assert await retry.abatch([1, 2, 3, 4]) == [1, 2, 3, 4]
    assert flaky.calls == Counter({1: 2, 3: 2})


def test_streams_are_not_retried() -> None:
    calls = 0

    def once(x: str) -> Iterator[str]:
        nonlocal calls
        calls += 1
        yield "a"
        raise ValueError("mid-stream")

    retry = RunnableLambda(once).with_retry(wait_exponential_jitter=False)
    got: list[str] = []
    stream = retry.stream("x")
    with pytest.raises(ValueError, match="mid-stream"):
        got.extend(stream)
    assert (got, calls) == (["a"], 1)


async def test_async_streams_are_not_retried() -> None:
    flaky = Flaky(failures=1)
    retry = RunnableLambda(flaky).with_retry(wait_exponential_jitter=False)
    with pytest.raises(ValueError, match="flaky"):
        _ = [c async for c in retry.astream(1)]
    assert flaky.calls[1] == 1


def test_later_attempts_are_tagged_for_callbacks() -> None:
    recorder = Recorder()
    flaky = Flaky(failures=2)
    retry = RunnableLambda(flaky, name="flaky").with_retry(wait_exponential_jitter=False)
    assert retry.invoke(1, {"callbacks": [recorder], "tags": ["r"]}) == 1
    assert recorder.starts() == [
        ("flaky", ["r"]),
        ("flaky", ["r"]),
        ("flaky", ["retry:attempt:2", "r"]),
        ("flaky", ["retry:attempt:3", "r"]),
    ]
    assert [e.kind for e in recorder.events].count("retry") == 2
    assert [e.kind for e in recorder.events].count("error") == 2
