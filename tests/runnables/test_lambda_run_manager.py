"""A lambda whose function declares ``run_manager`` receives its run's manager (LangChain's
``CallbackManagerForChainRun``): to hang nested runs under it with ``get_child()``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from runnables_support import Recorder

from leanchain.callbacks.manager import CallbackManager, RunManager
from leanchain.runnables import RunnableConfig, RunnableLambda

inner = RunnableLambda(lambda x: x + 1, name="inner")


def outer(x: int, run_manager: RunManager) -> int:
    return inner.invoke(x, {"callbacks": run_manager.get_child()}) * 10


def test_the_function_gets_its_runs_manager_and_hangs_children_under_it() -> None:
    recorder = Recorder()
    seen: list[RunManager] = []

    def outer_seen(x: int, run_manager: RunManager) -> int:
        seen.append(run_manager)
        return outer(x, run_manager)

    chain = RunnableLambda(outer_seen, name="outer")
    assert chain.invoke(1, {"callbacks": [recorder], "tags": ["t"]}) == 20
    assert recorder.kinds() == [
        ("start", "outer"),
        ("start", "inner"),
        ("end", "inner"),
        ("end", "outer"),
    ]
    (manager,) = seen
    assert manager.run_id == recorder.events[0].run_id
    assert (manager.name, manager.tags) == ("outer", ["t"])
    assert recorder.parent_of("inner") == "outer"


def test_without_handlers_it_gets_a_manager_that_tells_no_one() -> None:
    seen: list[RunManager] = []

    def record(x: int, run_manager: RunManager) -> int:
        seen.append(run_manager)
        return outer(x, run_manager)

    assert RunnableLambda(record, name="quiet").invoke(1, {"tags": ["t"]}) == 20
    (manager,) = seen
    assert (manager.handlers, manager.name, manager.tags) == ((), "quiet", ["t"])
    child = manager.get_child("step")
    assert type(child) is CallbackManager
    assert (child.handlers, child.parent_run_id, child.tags) == ((), manager.run_id, ("step",))


def test_config_and_run_manager_and_call_keywords_together() -> None:
    recorder = Recorder()

    def both(x: int, config: RunnableConfig, run_manager: RunManager, *, extra: int) -> Any:
        return (x + extra, config.get("tags"), run_manager.name)

    chain = RunnableLambda(both, name="both")
    output = chain.invoke(1, {"callbacks": [recorder], "tags": ["t"]}, extra=2)
    assert output == (3, ["t"], "both")


def test_a_streamed_generator_function_gets_it_too() -> None:
    recorder = Recorder()

    def chunks(x: str, run_manager: RunManager) -> Iterator[str]:
        yield x
        yield inner.invoke(1, {"callbacks": run_manager.get_child()}).__str__()

    chain = RunnableLambda(chunks, name="chunks")
    assert list(chain.stream("a", {"callbacks": [recorder]})) == ["a", "2"]
    assert recorder.parent_of("inner") == "chunks"
    assert list(chain.stream("a")) == ["a", "2"]


def test_a_batch_gives_each_item_its_own_run() -> None:
    recorder = Recorder()
    ids: list[Any] = []

    def record(x: int, run_manager: RunManager) -> int:
        ids.append(run_manager.run_id)
        return x

    assert RunnableLambda(record).batch([1, 2], {"callbacks": [recorder]}) == [1, 2]
    starts = {e.run_id for e in recorder.events if e.kind == "start"}
    assert len(starts) == 2
    assert set(ids) == starts


async def test_an_async_function_gets_it_under_ainvoke_and_astream() -> None:
    recorder = Recorder()

    async def aouter(x: int, run_manager: RunManager) -> int:
        return await inner.ainvoke(x, {"callbacks": run_manager.get_child()}) * 10

    chain = RunnableLambda(aouter, name="aouter")
    assert await chain.ainvoke(1, {"callbacks": [recorder]}) == 20
    assert recorder.parent_of("inner") == "aouter"
    assert [chunk async for chunk in chain.astream(2)] == [30]

    async def agen(x: int, run_manager: RunManager) -> AsyncIterator[str]:
        yield run_manager.name

    assert [c async for c in RunnableLambda(agen, name="agen").astream(0)] == ["agen"]


async def test_a_sync_function_under_ainvoke_gets_it_in_its_worker_thread() -> None:
    recorder = Recorder()
    assert await RunnableLambda(outer, name="outer").ainvoke(1, {"callbacks": [recorder]}) == 20
    assert recorder.parent_of("inner") == "outer"
