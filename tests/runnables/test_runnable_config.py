"""`RunnableConfig`: `ensure_config`, `patch_config`, `merge_configs`, and how a config travels."""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast
from uuid import uuid4

import pytest

from leanchain.runnables import (
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    ensure_config,
    get_config,
    patch_config,
)
from leanchain.runnables.config import get_config_list, merge_configs


def tags_seen(x: Any = None) -> list[str]:
    return list(get_config().get("tags", []))


def test_ensure_config_without_anything_is_empty() -> None:
    assert ensure_config() == {}
    assert ensure_config(None) == {}


def test_ensure_config_moves_unknown_keys_into_configurable() -> None:
    config = ensure_config(cast(RunnableConfig, {"foo": 1, "tags": ["a"]}))
    assert config == {"tags": ["a"], "configurable": {"foo": 1}}


def test_ensure_config_keeps_explicit_configurable_over_moved_keys() -> None:
    config = ensure_config(cast(RunnableConfig, {"foo": 1, "configurable": {"foo": 2}}))
    assert config == {"configurable": {"foo": 2}}


def test_ensure_config_lays_the_given_config_over_the_inherited_one() -> None:
    def inner(x: int) -> RunnableConfig:
        return ensure_config({"tags": ["child"]})

    config = RunnableLambda(inner).invoke(1, {"tags": ["parent"], "metadata": {"m": 1}})
    assert config == {"tags": ["child"], "metadata": {"m": 1}}


def test_a_runnable_called_inside_a_lambda_inherits_the_config() -> None:
    def outer(x: int) -> list[str]:
        return RunnableLambda(tags_seen).invoke(x)

    assert RunnableLambda(outer).invoke(1, {"tags": ["parent"]}) == ["parent"]


def test_an_explicit_child_config_replaces_inherited_keys() -> None:
    def outer(x: int) -> list[str]:
        return RunnableLambda(tags_seen).invoke(x, {"tags": ["child"]})

    assert RunnableLambda(outer).invoke(1, {"tags": ["parent"]}) == ["child"]


def test_inheritance_reaches_nested_sequences_in_lambdas() -> None:
    def outer(x: int) -> Any:
        return (RunnableLambda(lambda y: y) | tags_seen).invoke(x)

    seq = RunnableLambda(lambda x: x) | outer
    assert seq.invoke(1, {"tags": ["deep"]}) == ["deep"]


async def test_a_runnable_awaited_inside_an_async_lambda_inherits_the_config() -> None:
    async def atags(x: int) -> list[str]:
        return list(get_config().get("tags", []))

    async def outer(x: int) -> list[str]:
        return await RunnableLambda(atags).ainvoke(x)

    assert await RunnableLambda(outer).ainvoke(1, {"tags": ["parent"]}) == ["parent"]


async def test_config_reaches_sync_code_run_in_a_worker_thread() -> None:
    def outer(x: int) -> tuple[list[str], bool]:
        on_loop_thread = threading.current_thread() is threading.main_thread()
        return RunnableLambda(tags_seen).invoke(x), on_loop_thread

    assert await RunnableLambda(outer).ainvoke(1, {"tags": ["t"]}) == (["t"], False)


def test_config_reaches_parallel_branches_in_other_threads() -> None:
    def branch(x: int) -> list[str]:
        return RunnableLambda(tags_seen).invoke(x)

    parallel = RunnableParallel(a=branch, b=branch, c=branch)
    assert parallel.invoke(1, {"tags": ["p"]}) == {"a": ["p"], "b": ["p"], "c": ["p"]}


def test_config_reaches_batch_items_in_other_threads() -> None:
    def item(x: int) -> list[str]:
        return RunnableLambda(tags_seen).invoke(x)

    assert RunnableLambda(item).batch([1, 2, 3], {"tags": ["b"]}) == [["b"]] * 3


def test_config_reaches_generators_while_they_run() -> None:
    def gen(chunks: Iterator[int]) -> Iterator[list[str]]:
        for _ in chunks:
            yield RunnableLambda(tags_seen).invoke(None)

    def gen_fn(x: int) -> Iterator[list[str]]:
        yield RunnableLambda(tags_seen).invoke(None)

    assert list(RunnableGenerator(gen).stream(1, {"tags": ["g"]})) == [["g"]]
    assert list(RunnableLambda(gen_fn).stream(1, {"tags": ["f"]})) == [["f"]]
    assert get_config() == {}


async def test_config_reaches_async_generators_while_they_run() -> None:
    async def agen(chunks: AsyncIterator[int]) -> AsyncIterator[list[str]]:
        async for _ in chunks:
            yield list(get_config().get("tags", []))

    assert [c async for c in RunnableGenerator(agen).astream(1, {"tags": ["a"]})] == [["a"]]


def test_each_step_of_a_sequence_sees_the_config() -> None:
    seq = RunnableLambda(tags_seen) | (lambda prev: [*prev, *tags_seen()])
    assert seq.invoke(None, {"tags": ["s"]}) == ["s", "s"]


def test_the_callers_config_is_never_mutated() -> None:
    config: RunnableConfig = {
        "tags": ["t"],
        "metadata": {"m": 1},
        "configurable": {"c": 1},
        "run_name": "root",
        "recursion_limit": 5,
    }
    before = copy.deepcopy(config)

    def inner(x: int) -> Any:
        return RunnableLambda(lambda y: y).invoke(x, {"tags": ["other"]})

    seq = RunnableLambda(inner) | {"a": inner} | RunnableLambda(lambda d: d)
    seq.invoke(1, config)
    seq.batch([1, 2], config)
    list(seq.stream(1, config))
    assert config == before


def test_context_is_restored_after_a_run() -> None:
    RunnableLambda(tags_seen).invoke(1, {"tags": ["x"]})
    (RunnableLambda(tags_seen) | tags_seen).invoke(1, {"tags": ["x"]})
    assert get_config() == {}


def test_failed_run_restores_the_context() -> None:
    def fail(x: int) -> int:
        raise ValueError("x")

    with pytest.raises(ValueError, match="x"):
        (RunnableLambda(tags_seen) | fail).invoke(1, {"tags": ["x"]})
    assert get_config() == {}


def test_recursion_limit_travels_to_nested_runnables() -> None:
    def limit(x: int) -> int | None:
        return get_config().get("recursion_limit")

    def outer(x: int) -> int | None:
        return RunnableLambda(limit).invoke(x)

    assert RunnableLambda(outer).invoke(1, {"recursion_limit": 7}) == 7


def test_run_name_applies_to_the_named_run_only() -> None:
    def inner(x: int) -> str | None:
        return get_config().get("run_name")

    assert (RunnableLambda(lambda x: x) | inner).invoke(1, {"run_name": "root"}) is None


def test_patch_config_replacing_callbacks_drops_run_name_and_id() -> None:
    run_id = uuid4()
    patched = patch_config({"run_name": "a", "run_id": run_id, "tags": ["t"]}, callbacks=[])
    assert patched == {"tags": ["t"], "callbacks": []}
    kept = patch_config({"run_name": "a", "run_id": run_id}, recursion_limit=3)
    assert kept == {"run_name": "a", "run_id": run_id, "recursion_limit": 3}


def test_patch_config_merges_configurable_and_sets_limits() -> None:
    original: RunnableConfig = {"configurable": {"a": 1, "b": 1}}
    patched = patch_config(
        original, configurable={"b": 2}, max_concurrency=4, run_name="n", recursion_limit=9
    )
    assert patched == {
        "configurable": {"a": 1, "b": 2},
        "max_concurrency": 4,
        "run_name": "n",
        "recursion_limit": 9,
    }
    assert original == {"configurable": {"a": 1, "b": 1}}


def test_merge_configs_rules() -> None:
    first: RunnableConfig = {
        "tags": ["b", "a"],
        "metadata": {"x": 1, "y": 1},
        "configurable": {"k": 1},
        "recursion_limit": 10,
        "run_name": "first",
        "max_concurrency": 2,
    }
    second: RunnableConfig = {
        "tags": ["c", "a"],
        "metadata": {"y": 2},
        "configurable": {"j": 2},
        "recursion_limit": 25,
        "run_name": "second",
    }
    assert merge_configs(first, None, second) == {
        "tags": ["a", "b", "c"],
        "metadata": {"x": 1, "y": 2},
        "configurable": {"k": 1, "j": 2},
        "recursion_limit": 10,
        "run_name": "second",
        "max_concurrency": 2,
    }


def test_merge_configs_concatenates_callback_lists() -> None:
    from runnables_support import Recorder

    a, b = Recorder(), Recorder()
    assert merge_configs({"callbacks": [a]}, {"callbacks": [b]}) == {"callbacks": [a, b]}


def test_config_list_for_a_batch() -> None:
    assert get_config_list({"tags": ["t"]}, 2) == [{"tags": ["t"]}, {"tags": ["t"]}]
    assert get_config_list([{"tags": ["a"]}, {"tags": ["b"]}], 2) == [
        {"tags": ["a"]},
        {"tags": ["b"]},
    ]
    with pytest.raises(ValueError) as error:
        get_config_list([{}, {}], 3)
    assert str(error.value) == (
        "config must be a list of the same length as inputs, but got 2 configs for 3 inputs"
    )


def test_run_id_goes_to_the_first_batch_item_only() -> None:
    run_id = uuid4()
    with pytest.warns(RuntimeWarning, match="Provided run_id be used only for the first element"):
        configs = get_config_list({"run_id": run_id, "tags": ["t"]}, 3)
    assert configs == [{"run_id": run_id, "tags": ["t"]}, {"tags": ["t"]}, {"tags": ["t"]}]


async def test_concurrent_tasks_keep_their_own_configs() -> None:
    async def slow_tags(x: int) -> list[str]:
        await asyncio.sleep(0.01)
        return list(get_config().get("tags", []))

    lam = RunnableLambda(slow_tags)
    results = await asyncio.gather(*(lam.ainvoke(i, {"tags": [str(i)]}) for i in range(5)))
    assert results == [["0"], ["1"], ["2"], ["3"], ["4"]]


def test_model_and_checkpoint_ns_configurables_are_copied_into_metadata() -> None:
    config = ensure_config({"configurable": {"model": "m1", "checkpoint_ns": "ns", "other": 1}})
    assert config == {
        "configurable": {"model": "m1", "checkpoint_ns": "ns", "other": 1},
        "metadata": {"model": "m1", "checkpoint_ns": "ns"},
    }
    kept = ensure_config({"configurable": {"model": "m1"}, "metadata": {"model": "mine"}})
    assert kept["metadata"] == {"model": "mine"}
    not_text = ensure_config({"configurable": {"model": 3}})
    assert "metadata" not in not_text
    moved = ensure_config(cast(RunnableConfig, {"model": "m2"}))
    assert moved == {"configurable": {"model": "m2"}, "metadata": {"model": "m2"}}
