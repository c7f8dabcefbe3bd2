"""Callbacks: the run tree (ids, parents, tags), events, handler errors, and the fast path."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import pytest
from runnables_support import AsyncRecorder, Recorder

from leanchain.callbacks import BaseCallbackHandler, CallbackManager
from leanchain.callbacks import manager as manager_module
from leanchain.callbacks._runs import make_run
from leanchain.runnables import (
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)


def add_one(x: int) -> int:
    return x + 1


def double(x: int) -> int:
    return x * 2


def test_run_tree_tags_follow_langchain() -> None:
    recorder = Recorder()
    seq = RunnableLambda(add_one) | {"a": RunnableLambda(double)}
    assert seq.invoke(1, {"callbacks": [recorder], "tags": ["root"]}) == {"a": 4}
    assert recorder.starts() == [
        ("RunnableSequence", ["root"]),
        ("add_one", ["seq:step:1", "root"]),
        ("RunnableParallel<a>", ["seq:step:2", "root"]),
        ("double", ["map:key:a", "root"]),
    ]


def test_run_tree_parents_and_ends() -> None:
    recorder = Recorder()
    seq = RunnableLambda(add_one) | {"a": RunnableLambda(double)}
    seq.invoke(1, {"callbacks": [recorder]})
    assert recorder.kinds() == [
        ("start", "RunnableSequence"),
        ("start", "add_one"),
        ("end", "add_one"),
        ("start", "RunnableParallel<a>"),
        ("start", "double"),
        ("end", "double"),
        ("end", "RunnableParallel<a>"),
        ("end", "RunnableSequence"),
    ]
    assert recorder.parent_of("RunnableSequence") is None
    assert recorder.parent_of("add_one") == "RunnableSequence"
    assert recorder.parent_of("RunnableParallel<a>") == "RunnableSequence"
    assert recorder.parent_of("double") == "RunnableParallel<a>"
    ends = {e.name: e.payload for e in recorder.events if e.kind == "end"}
    assert ends == {
        "add_one": 2,
        "double": 4,
        "RunnableParallel<a>": {"a": 4},
        "RunnableSequence": {"a": 4},
    }
    starts = {e.name: e.payload for e in recorder.events if e.kind == "start"}
    assert starts["RunnableSequence"] == 1
    assert starts["double"] == 2
    assert all(isinstance(e.run_id, UUID) and e.run_id.version == 4 for e in recorder.events)
    assert len({e.run_id for e in recorder.events}) == 4


async def test_run_tree_async() -> None:
    recorder = Recorder()

    async def adouble(x: int) -> int:
        return x * 2

    seq = RunnableLambda(add_one) | {"a": RunnableLambda(adouble)}
    assert await seq.ainvoke(1, {"callbacks": [recorder], "tags": ["root"]}) == {"a": 4}
    assert recorder.starts() == [
        ("RunnableSequence", ["root"]),
        ("add_one", ["seq:step:1", "root"]),
        ("RunnableParallel<a>", ["seq:step:2", "root"]),
        ("adouble", ["map:key:a", "root"]),
    ]
    assert recorder.parent_of("adouble") == "RunnableParallel<a>"


def test_a_runnable_called_inside_a_lambda_is_its_child() -> None:
    recorder = Recorder()
    inner = RunnableLambda(double)

    def outer(x: int) -> int:
        return inner.invoke(x)

    RunnableLambda(outer).invoke(1, {"callbacks": [recorder], "tags": ["t"]})
    assert recorder.starts() == [("outer", ["t"]), ("double", ["t"])]
    assert recorder.parent_of("double") == "outer"


def test_the_function_receives_a_child_config() -> None:
    recorder = Recorder()
    seen: list[Any] = []

    def peek(x: int, config: RunnableConfig) -> int:
        seen.append(config.get("callbacks"))
        return x

    RunnableLambda(peek).invoke(1, {"callbacks": [recorder]})
    (callbacks,) = seen
    assert isinstance(callbacks, CallbackManager)
    assert callbacks.parent_run_id == recorder.events[0].run_id
    assert callbacks.handlers == (recorder,)


def test_errors_are_reported_up_the_tree() -> None:
    recorder = Recorder()

    def fail(x: int) -> int:
        raise ValueError("bad")

    seq = RunnableLambda(add_one) | fail
    with pytest.raises(ValueError, match="bad"):
        seq.invoke(1, {"callbacks": [recorder]})
    assert recorder.kinds() == [
        ("start", "RunnableSequence"),
        ("start", "add_one"),
        ("end", "add_one"),
        ("start", "fail"),
        ("error", "fail"),
        ("error", "RunnableSequence"),
    ]
    errors = [e.payload for e in recorder.events if e.kind == "error"]
    assert errors[0] is errors[1]


def test_run_name_and_run_id_name_the_root_run_only() -> None:
    recorder = Recorder()
    run_id = uuid4()
    seq = RunnableLambda(add_one) | double
    seq.invoke(1, {"callbacks": [recorder], "run_name": "mine", "run_id": run_id})
    assert [name for name, _ in recorder.starts()] == ["mine", "add_one", "double"]
    assert recorder.events[0].run_id == run_id
    assert len({e.run_id for e in recorder.events if e.kind == "start"}) == 3


def test_metadata_is_passed_to_every_run() -> None:
    recorder = Recorder()
    (RunnableLambda(add_one) | double).invoke(1, {"callbacks": [recorder], "metadata": {"k": 1}})
    assert [e.metadata for e in recorder.events if e.kind == "start"] == [{"k": 1}] * 3


def test_streaming_reports_chunks_and_the_summed_output() -> None:
    recorder = Recorder()

    def letters(chunks: Iterator[str]) -> Iterator[str]:
        for text in chunks:
            yield from text

    seq = RunnablePassthrough() | RunnableGenerator(letters)
    assert list(seq.stream("ab", {"callbacks": [recorder]})) == ["a", "b"]
    streamed = [(e.name, e.payload) for e in recorder.events if e.kind == "stream"]
    assert ("RunnableSequence", "a") in streamed
    assert ("letters", "b") in streamed
    ends = {e.name: e.payload for e in recorder.events if e.kind == "end"}
    assert ends == {"RunnablePassthrough": "ab", "letters": "ab", "RunnableSequence": "ab"}
    assert recorder.parent_of("letters") == "RunnableSequence"


def test_async_handler_under_a_sync_run() -> None:
    recorder = AsyncRecorder()
    (RunnableLambda(add_one) | double).invoke(1, {"callbacks": [recorder]})
    assert recorder.events == [
        ("start", "RunnableSequence"),
        ("start", "add_one"),
        ("end", 2),
        ("start", "double"),
        ("end", 4),
        ("end", 4),
    ]


async def test_async_handler_under_an_async_run() -> None:
    recorder = AsyncRecorder()
    await (RunnableLambda(add_one) | double).ainvoke(1, {"callbacks": [recorder]})
    assert recorder.events == [
        ("start", "RunnableSequence"),
        ("start", "add_one"),
        ("end", 2),
        ("start", "double"),
        ("end", 4),
        ("end", 4),
    ]


async def test_async_handler_under_a_sync_run_inside_a_loop() -> None:
    recorder = AsyncRecorder()
    RunnableLambda(add_one).invoke(1, {"callbacks": [recorder]})
    assert recorder.events == [("start", "add_one"), ("end", 2)]


class Broken(BaseCallbackHandler):
    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("handler broke")


def test_a_failing_handler_is_logged_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    recorder = Recorder()
    with caplog.at_level(logging.WARNING, logger="leanchain.callbacks"):
        assert RunnableLambda(add_one).invoke(1, {"callbacks": [Broken(), recorder]}) == 2
    assert recorder.kinds() == [("start", "add_one"), ("end", "add_one")]
    assert caplog.messages == [
        "Error in Broken.on_chain_start callback: RuntimeError('handler broke')"
    ]


def test_a_handler_with_raise_error_stops_the_run() -> None:
    class Strict(Broken):
        raise_error = True

    with pytest.raises(RuntimeError, match="handler broke"):
        RunnableLambda(add_one).invoke(1, {"callbacks": [Strict()]})


def test_ignore_chain_skips_chain_events() -> None:
    class Ignoring(Recorder):
        ignore_chain = True

    recorder = Ignoring()
    RunnableLambda(add_one).invoke(1, {"callbacks": [recorder]})
    assert recorder.events == []


def test_handlers_on_a_binding_join_the_callers() -> None:
    outer, bound = Recorder(), Recorder()
    runnable = RunnableLambda(add_one).with_config(callbacks=[bound])
    runnable.invoke(1, {"callbacks": [outer]})
    assert outer.kinds() == bound.kinds() == [("start", "add_one"), ("end", "add_one")]


def test_parallel_batch_items_each_get_a_root_run() -> None:
    recorder = Recorder()
    RunnableLambda(add_one).batch([1, 2, 3], {"callbacks": [recorder]})
    starts = [e for e in recorder.events if e.kind == "start"]
    assert sorted(e.payload for e in starts) == [1, 2, 3]
    assert all(e.parent_run_id is None for e in starts)


def test_no_handler_means_no_run_ids_and_no_managers(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the fast path made tracing objects")

    # Every run made from a config goes through `make_run`; every table through `build_table`.
    monkeypatch.setattr(manager_module, "make_run", forbidden)
    monkeypatch.setattr(manager_module, "build_table", forbidden)
    monkeypatch.setattr(manager_module, "new_run_id", forbidden)
    monkeypatch.setattr(manager_module.RunManager, "__init__", forbidden)
    monkeypatch.setattr(manager_module.CallbackManager, "__init__", forbidden)
    seq = (
        RunnableLambda(add_one)
        | RunnableParallel(a=double, b=add_one)
        | RunnablePassthrough.assign(c=lambda d: d["a"])
        | RunnableLambda(lambda d: d["c"]).with_retry().with_fallbacks([RunnableLambda(add_one)])
    )
    assert seq.invoke(1, {"tags": ["t"], "metadata": {"m": 1}}) == 4
    assert seq.batch([1, 2]) == [4, 6]
    assert list(seq.stream(1)) == [4]
    assert seq.invoke(1, {"callbacks": []}) == 4


def test_the_fast_path_guard_sees_a_traced_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # The guard of the test above is live: with a handler, a run is made through `make_run`.
    made: list[str] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        made.append(args[7])
        return make_run(*args, **kwargs)

    monkeypatch.setattr(manager_module, "make_run", spy)
    RunnableLambda(add_one).invoke(1, {"callbacks": [Recorder()]})
    assert made == ["add_one"]
