"""RayRunner's settings, its validation and its public face (no Ray cluster needed)."""

from __future__ import annotations

import types
from collections.abc import Generator
from typing import Any, assert_type

import pytest

import leanchain.distributed
from leanchain.distributed import RayRunner
from leanchain.runnables import RunnableLambda

DOUBLE = RunnableLambda(lambda x: 2 * x)


def test_all_lists_the_public_names() -> None:
    public = {
        name
        for name, value in vars(leanchain.distributed).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name != "annotations"
    }
    assert sorted(leanchain.distributed.__all__) == ["DistributedItemError", "RayRunner"]
    assert public == set(leanchain.distributed.__all__)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_cpus_per_item": -1}, "num_cpus_per_item must be >= 0, got -1"),
        ({"max_concurrency": 0}, "max_concurrency must be at least 1, got 0"),
        ({"max_retries": -2}, "max_retries must be -1 (forever) or more, got -2"),
        (
            {"retry_exceptions": [ValueError, "KeyError"]},
            "retry_exceptions must be a bool or exception types, got 'KeyError'",
        ),
    ],
)
def test_bad_settings_fail_when_the_runner_is_built(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        RayRunner(DOUBLE, **kwargs)
    assert str(caught.value) == message


def test_something_neither_runnable_nor_callable_is_refused() -> None:
    with pytest.raises(TypeError) as caught:
        RayRunner(42)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "RayRunner takes a Runnable or a zero-argument factory that returns one, got int: 42"
    )


def test_settings_are_kept() -> None:
    runner = RayRunner(
        DOUBLE,
        address="auto",
        num_cpus_per_item=0.5,
        max_concurrency=4,
        max_retries=-1,
        retry_exceptions=True,
        show_progress=True,
        init_kwargs={"num_cpus": 2},
    )

    assert (
        runner.address,
        runner.num_cpus_per_item,
        runner.max_concurrency,
        runner.max_retries,
        runner.show_progress,
        runner.init_kwargs,
    ) == ("auto", 0.5, 4, -1, True, {"num_cpus": 2})
    assert repr(runner) == (
        f"RayRunner(runnable={DOUBLE!r}, address='auto', num_cpus_per_item=0.5, "
        "max_concurrency=4, max_retries=-1, items_per_task=1)"
    )


async def test_an_empty_batch_returns_at_once_without_ray(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_ray(self: RayRunner[Any, Any]) -> None:
        raise AssertionError("an empty batch must not reach Ray")

    monkeypatch.setattr(RayRunner, "_connect", no_ray)
    runner = RayRunner(DOUBLE)

    assert runner.batch([]) == []
    assert list(runner.batch_as_completed([])) == []
    assert await runner.abatch([]) == []
    assert [item async for item in runner.abatch_as_completed([])] == []


def checked_types(runner: RayRunner[int, str]) -> None:
    """Not a test: mypy checks that the batch types follow ``return_exceptions``."""
    assert_type(runner.batch([1]), list[str])
    assert_type(runner.batch([1], return_exceptions=True), list[str | Exception])
    assert_type(runner.batch_as_completed([1]), Generator[tuple[int, str | Exception], None, None])


async def achecked_types(runner: RayRunner[int, str]) -> None:
    """Not a test: the async twins' types."""
    assert_type(await runner.abatch([1]), list[str])
    assert_type(await runner.abatch([1], return_exceptions=True), list[str | Exception])
