"""RayRunner on a local 2-CPU Ray instance: agent runs, failures, retries, limits, config."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from distributed_support import (
    CountingFactory,
    FlakyError,
    QuotaError,
    always_flaky,
    build_agent,
    crowd,
    echo_config,
    flaky_once,
    mark_start,
    question,
    stall_once,
)

from leanchain.callbacks import BaseCallbackHandler
from leanchain.distributed import DistributedItemError, RayRunner
from leanchain.runnables import RunnableConfig, RunnableLambda

pytestmark = pytest.mark.usefixtures("ray_cluster")

QUESTIONS = [question(a, b) for a in range(10) for b in range(10)]


def test_a_hundred_agent_runs_match_a_local_batch_in_order() -> None:
    runner = RayRunner(build_agent)

    remote = runner.batch(QUESTIONS)

    assert remote == build_agent().batch(QUESTIONS)
    assert remote[0] == {"input": "0 x 0", "output": "0 x 0 = 0"}
    assert remote[99] == {"input": "9 x 9", "output": "9 x 9 = 81"}


@pytest.mark.parametrize("items_per_task", [7, 100])
def test_agent_runs_in_groups_match_a_local_batch(items_per_task: int) -> None:
    runner = RayRunner(build_agent, items_per_task=items_per_task)

    assert runner.batch(QUESTIONS) == build_agent().batch(QUESTIONS)


def test_a_failing_item_in_a_group_fails_alone() -> None:
    inputs = [question(1, 2), {"input": "over quota"}, question(3, 4)]

    results = RayRunner(build_agent, items_per_task=3).batch(inputs, return_exceptions=True)

    assert results[0::2] == [
        {"input": "1 x 2", "output": "1 x 2 = 2"},
        {"input": "3 x 4", "output": "3 x 4 = 12"},
    ]
    assert (type(results[1]), str(results[1])) == (QuotaError, "quota exceeded for 'over quota'")


def test_a_shipped_runnable_runs_on_the_workers() -> None:
    pipeline = RunnableLambda(lambda x: x * 3) | RunnableLambda(lambda x: [x, os.getpid()])

    results = RayRunner(pipeline).batch([1, 2, 3])

    assert [r[0] for r in results] == [3, 6, 9]
    assert os.getpid() not in {r[1] for r in results}


def test_a_runnable_that_cannot_be_shipped_asks_for_a_factory() -> None:
    # The scripted model holds a lock: it can only be built on the worker.
    runner = RayRunner(build_agent())

    with pytest.raises(TypeError) as caught:
        runner.batch(QUESTIONS[:2])

    assert str(caught.value) == (
        "RayRunner could not serialize the AgentExecutor for the workers (TypeError, details "
        "above); pass a zero-argument factory that builds it on each worker instead"
    )


def test_as_completed_yields_every_index_once_with_its_output() -> None:
    runner = RayRunner(build_agent)

    items = list(runner.batch_as_completed(QUESTIONS[:20]))

    assert sorted(i for i, _ in items) == list(range(20))
    assert dict(items) == dict(enumerate(build_agent().batch(QUESTIONS[:20])))


def test_closing_as_completed_early_submits_nothing_more(tmp_path: Path) -> None:
    items = RayRunner(mark_start(tmp_path), max_concurrency=1).batch_as_completed(range(6))

    assert next(items) == (0, 0)
    items.close()
    time.sleep(0.5)

    assert {p.name for p in tmp_path.iterdir()} <= {"0", "1"}


async def test_closing_abatch_as_completed_early_submits_nothing_more(tmp_path: Path) -> None:
    runner = RayRunner(mark_start(tmp_path), max_concurrency=1)
    items = runner.abatch_as_completed(range(6))

    assert await anext(items) == (0, 0)
    await items.aclose()
    await asyncio.sleep(0.5)

    assert set(os.listdir(tmp_path)) <= {"0", "1"}


async def test_abatch_and_abatch_as_completed() -> None:
    runner = RayRunner(build_agent)
    expected = build_agent().batch(QUESTIONS[:12])

    assert await runner.abatch(QUESTIONS[:12]) == expected
    items = [item async for item in runner.abatch_as_completed(QUESTIONS[:12])]
    assert sorted(i for i, _ in items) == list(range(12))
    assert dict(items) == dict(enumerate(expected))


def test_a_failing_item_is_isolated_and_comes_back_as_its_own_class() -> None:
    inputs = [question(1, 2), {"input": "over quota"}, question(3, 4)]

    results = RayRunner(build_agent).batch(inputs, return_exceptions=True)

    assert results[0] == {"input": "1 x 2", "output": "1 x 2 = 2"}
    assert results[2] == {"input": "3 x 4", "output": "3 x 4 = 12"}
    error = results[1]
    assert type(error) is QuotaError
    assert str(error) == "quota exceeded for 'over quota'"
    assert error.retry_in == 30
    local = build_agent().batch(inputs, return_exceptions=True)[1]
    assert isinstance(local, QuotaError)
    assert str(local) == str(error)
    # The agent's own note (iteration, model) comes first; the runner's is added last.
    assert error.__notes__[0].startswith("AgentExecutor iteration 1: the agent failed")
    note = error.__notes__[-1]
    assert note.startswith("Raised by item 1 on a Ray worker (pid ")
    assert "QuotaError: quota exceeded for 'over quota'" in note


async def test_without_return_exceptions_the_failure_is_raised() -> None:
    inputs = [question(1, 2), {"input": "over quota"}]
    runner = RayRunner(build_agent)

    with pytest.raises(QuotaError) as caught:
        runner.batch(inputs)
    assert str(caught.value) == "quota exceeded for 'over quota'"
    with pytest.raises(QuotaError) as caught:
        await runner.abatch(inputs)
    assert str(caught.value) == "quota exceeded for 'over quota'"


def test_an_exception_class_unknown_here_becomes_a_distributed_item_error() -> None:
    def fail(x: int) -> int:
        class LocalError(Exception):
            pass

        raise LocalError(f"no luck with {x}")

    [error] = RayRunner(RunnableLambda(fail)).batch([7], return_exceptions=True)

    assert type(error) is DistributedItemError
    assert error.error_type == (
        "test_ray_runner.test_an_exception_class_unknown_here_becomes_a_distributed_item_error"
        ".<locals>.fail.<locals>.LocalError"
    )
    assert str(error) == f"{error.error_type}: no luck with 7"
    assert error.error_message == "no luck with 7"
    assert 'raise LocalError(f"no luck with {x}")' in error.remote_traceback


class Killer(threading.Thread):
    """Waits for the stalled item's marker file, then SIGKILLs the worker pid written there."""

    def __init__(self, marker: Path) -> None:
        super().__init__()
        self.marker = marker
        self.killed: list[int] = []

    def run(self) -> None:
        deadline = time.monotonic() + 30
        while not self.marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        pid = int(self.marker.read_text())
        os.kill(pid, signal.SIGKILL)
        self.killed.append(pid)


@pytest.mark.parametrize("items_per_task", [1, 3])
def test_a_killed_worker_is_retried_and_the_batch_completes(
    tmp_path: Path, items_per_task: int
) -> None:
    marker = tmp_path / "stalled.pid"
    killer = Killer(marker)
    killer.start()
    runner = RayRunner(stall_once(marker), max_retries=2, items_per_task=items_per_task)

    results = runner.batch(list(range(6)))
    killer.join()

    assert results == [100, 101, 102, 103, 104, 105]
    assert killer.killed == [int(marker.read_text())]
    with pytest.raises(ProcessLookupError):
        os.kill(killer.killed[0], 0)


@pytest.mark.parametrize(
    ("items_per_task", "crashed", "note"),
    [
        (1, [2], "Raised by item 2 of a RayRunner batch."),
        (2, [2, 3], "Raised by items 2 to 3 of a RayRunner batch."),
    ],
)
def test_without_retries_a_killed_worker_fails_only_its_task(
    tmp_path: Path, ray_cluster: Any, items_per_task: int, crashed: list[int], note: str
) -> None:
    marker = tmp_path / "stalled.pid"
    killer = Killer(marker)
    killer.start()
    runner = RayRunner(stall_once(marker), max_retries=0, items_per_task=items_per_task)

    results = runner.batch(list(range(6)), return_exceptions=True)
    killer.join()

    assert [r for i, r in enumerate(results) if i not in crashed] == [
        100 + i for i in range(6) if i not in crashed
    ]
    for index in crashed:
        error = results[index]
        assert isinstance(error, Exception)
        assert type(error) is ray_cluster.exceptions.WorkerCrashedError
        assert error.__notes__ == [note]


def test_retry_exceptions_retries_the_named_exception_types(tmp_path: Path) -> None:
    retried = RayRunner(flaky_once(tmp_path / "a"), retry_exceptions=[FlakyError])
    not_retried = RayRunner(flaky_once(tmp_path / "b"))

    assert retried.batch([0, 1, 2]) == [100, 101, 102]
    results = not_retried.batch([0, 1, 2], return_exceptions=True)
    assert results[0::2] == [100, 102]
    assert (type(results[1]), str(results[1])) == (FlakyError, "try again")


def test_an_item_that_keeps_failing_after_its_retries_reports_the_original_class() -> None:
    runner = RayRunner(RunnableLambda(always_flaky), retry_exceptions=True, max_retries=1)

    [error] = runner.batch([5], return_exceptions=True)

    assert isinstance(error, FlakyError)
    assert (type(error), str(error)) == (FlakyError, "still failing on 5")
    assert error.__notes__ == ["Raised by item 0 of a RayRunner batch."]


def test_the_factory_runs_once_per_worker_process(tmp_path: Path) -> None:
    factory = CountingFactory(tmp_path)
    runner = RayRunner(factory)

    first = runner.batch(QUESTIONS[:40])
    second = runner.batch(QUESTIONS[40:60])

    builds = factory.builds()
    assert Counter(builds).most_common(1)[0][1] == 1
    assert set(builds) == {r["pid"] for r in first + second}
    assert [r["output"] for r in first + second] == [
        r["output"] for r in build_agent().batch(QUESTIONS[:60])
    ]


@pytest.mark.parametrize(
    ("settings", "config"),
    [
        ({"max_concurrency": 1}, None),
        ({}, {"max_concurrency": 1}),
        ({"max_concurrency": 3, "num_cpus_per_item": 2}, None),
        ({"max_concurrency": 1, "items_per_task": 4}, None),
    ],
    ids=["runner-limit", "config-limit", "two-cpus-per-item", "limit-below-group"],
)
def test_at_most_one_item_runs_at_a_time_when_limited(
    tmp_path: Path, settings: dict[str, Any], config: RunnableConfig | None
) -> None:
    runner = RayRunner(crowd(tmp_path, 0.15), **settings)

    items = list(runner.batch_as_completed(list(range(6)), config))

    assert items == [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1)]


def test_a_group_runs_its_items_at_once_within_the_limit(tmp_path: Path) -> None:
    runner = RayRunner(crowd(tmp_path, 0.3), max_concurrency=3, items_per_task=3)

    items = list(runner.batch_as_completed(list(range(6))))

    assert [i for i, _ in items] == [0, 1, 2, 3, 4, 5]
    peaks = [peak for _, peak in items]
    assert all(isinstance(peak, int) and 1 <= peak <= 3 for peak in peaks), peaks
    assert 3 in peaks


def test_config_tags_metadata_and_configurable_travel_but_callbacks_do_not() -> None:
    config: RunnableConfig = {
        "tags": ["eval"],
        "metadata": {"run": 7},
        "configurable": {"temperature": 0.5},
        "callbacks": [BaseCallbackHandler()],
    }
    runner = RayRunner(RunnableLambda(echo_config))

    with pytest.warns(RuntimeWarning, match="^RayRunner does not run callbacks: "):
        [result] = runner.batch([1], config)

    assert result == {
        "value": 1,
        "tags": ["eval"],
        "metadata": {"run": 7},
        "configurable": {"temperature": 0.5},
        "callbacks": None,
        "pid_is_other": True,
    }


def test_a_config_per_item_travels_with_its_item() -> None:
    configs: list[RunnableConfig] = [{"tags": ["a"]}, {"metadata": {"k": "b"}}]

    results = RayRunner(RunnableLambda(echo_config)).batch(["x", "y"], configs)

    # User code always gets tags and metadata (empty when unset), as in LangChain.
    assert [(r["value"], r["tags"], r["metadata"]) for r in results] == [
        ("x", ["a"], {}),
        ("y", [], {"k": "b"}),
    ]


def test_show_progress_draws_the_final_state_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    RayRunner(build_agent, show_progress=True).batch(
        [*QUESTIONS[:4], {"input": "over quota"}], return_exceptions=True
    )

    err = capsys.readouterr().err
    assert err.startswith("\rRayRunner [" + "." * 30 + "] 0/5")
    assert err.endswith("\rRayRunner [" + "#" * 30 + "] 5/5 (1 failed)\n")
