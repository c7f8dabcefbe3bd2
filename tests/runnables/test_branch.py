"""RunnableBranch: choice by condition, exact errors, streaming and callback tags."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any
from uuid import UUID

import pytest

from leanchain.callbacks import BaseCallbackHandler
from leanchain.runnables import (
    Runnable,
    RunnableBranch,
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
)


class Recorder(BaseCallbackHandler):
    """Records chain starts as ``(name, tags)``, and ends and errors by name."""

    def __init__(self) -> None:
        self.names: dict[UUID, str] = {}
        self.parents: dict[UUID, UUID | None] = {}
        self.events: list[tuple[str, str, Any]] = []

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.names[run_id] = kwargs["name"]
        self.parents[run_id] = parent_run_id
        self.events.append(("start", kwargs["name"], (inputs, tags)))

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.events.append(("end", self.names[run_id], outputs))

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.events.append(("error", self.names[run_id], repr(error)))

    def on_chain_stream(self, chunk: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.events.append(("stream", self.names[run_id], chunk))


def is_int(x: Any) -> bool:
    return isinstance(x, int)


def is_str(x: Any) -> bool:
    return isinstance(x, str)


def add_one(x: int) -> int:
    return x + 1


def upper(x: str) -> str:
    return x.upper()


def shout(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk.upper()


def letters(x: str) -> Iterator[str]:
    yield from x


def describe(x: Any) -> str:
    return f"other: {x!r}"


def branch() -> Runnable[Any, Any]:
    return RunnableBranch((is_int, add_one), (is_str, upper), describe)


# -- construction -----------------------------------------------------------------------------


def test_needs_at_least_two_arguments() -> None:
    with pytest.raises(ValueError) as info:
        RunnableBranch(describe)
    assert str(info.value) == "RunnableBranch requires at least two branches"


def test_default_must_be_runnable_callable_or_mapping() -> None:
    with pytest.raises(TypeError) as info:
        RunnableBranch((is_int, add_one), 5)
    assert str(info.value) == "RunnableBranch default must be Runnable, callable or mapping."


def test_branches_must_be_pairs() -> None:
    with pytest.raises(TypeError) as kind:
        RunnableBranch(1, describe)
    assert str(kind.value) == "RunnableBranch branches must be tuples or lists, not <class 'int'>"
    with pytest.raises(ValueError) as length:
        RunnableBranch((is_int, add_one, upper), describe)
    assert str(length.value) == "RunnableBranch branches must be tuples or lists of length 2, not 3"


def test_parts_are_coerced() -> None:
    made: Runnable[Any, Any] = RunnableBranch([is_int, {"n": add_one}], {"d": describe})
    assert isinstance(made, RunnableBranch)
    condition, chosen = made.branches[0]
    assert isinstance(condition, RunnableLambda)
    assert isinstance(chosen, RunnableParallel)
    assert isinstance(made.default, RunnableParallel)
    assert made.invoke(1) == {"n": 2}
    assert made.invoke("a") == {"d": "other: 'a'"}
    assert made.get_name() == "RunnableBranch"


# -- running ----------------------------------------------------------------------------------


def test_invoke_runs_the_first_true_condition_else_default() -> None:
    chooser = branch()
    assert chooser.invoke(1) == 2
    assert chooser.invoke("ab") == "AB"
    assert chooser.invoke(None) == "other: None"


def test_only_conditions_up_to_the_first_true_one_are_evaluated() -> None:
    seen: list[str] = []

    def first(x: int) -> bool:
        seen.append("first")
        return x > 0

    def second(x: int) -> bool:
        seen.append("second")
        return True

    chooser: Runnable[Any, Any] = RunnableBranch(
        (first, lambda x: "first"), (second, lambda x: "second"), describe
    )
    assert chooser.invoke(1) == "first"
    assert seen == ["first"]
    assert chooser.invoke(-1) == "second"
    assert seen == ["first", "first", "second"]


def test_call_kwargs_go_to_the_chosen_branch() -> None:
    def greet(x: str, punctuation: str = ".") -> str:
        return f"hi {x}{punctuation}"

    chooser: Runnable[Any, Any] = RunnableBranch((is_str, greet), describe)
    assert chooser.invoke("bo", punctuation="!") == "hi bo!"


async def test_ainvoke_awaits_async_conditions_and_branches() -> None:
    async def positive(x: int) -> bool:
        await asyncio.sleep(0)
        return x > 0

    async def negate(x: int) -> int:
        return -x

    chooser: Runnable[Any, Any] = RunnableBranch((positive, negate), describe)
    assert await chooser.ainvoke(3) == -3
    assert await chooser.ainvoke(-3) == "other: -3"
    assert await branch().ainvoke("x") == "X"


def test_batch_chooses_per_item() -> None:
    assert branch().batch([1, "a", None]) == [2, "A", "other: None"]


async def test_abatch_chooses_per_item() -> None:
    assert await branch().abatch([1, "a", None]) == [2, "A", "other: None"]


def test_errors_propagate() -> None:
    def boom(x: Any) -> bool:
        raise KeyError("bad condition")

    chooser: Runnable[Any, Any] = RunnableBranch((boom, add_one), describe)
    with pytest.raises(KeyError) as info:
        chooser.invoke(1)
    assert info.value.args == ("bad condition",)


def test_stream_streams_the_chosen_branch() -> None:
    chooser: Runnable[Any, Any] = RunnableBranch((is_str, RunnableGenerator(shout)), describe)
    assert list(chooser.stream("ab")) == ["AB"]
    spelled: Runnable[Any, Any] = RunnableBranch((is_int, add_one), RunnableLambda(letters))
    assert list(spelled.stream("abc")) == ["a", "b", "c"]
    assert list(spelled.stream(1)) == [2]
    assert list(spelled.transform(iter(["ab", "c"]))) == ["a", "b", "c"]


async def test_astream_streams_the_chosen_branch() -> None:
    async def aletters(x: str) -> AsyncIterator[str]:
        for ch in x:
            yield ch

    chooser: Runnable[Any, Any] = RunnableBranch((is_int, add_one), RunnableLambda(aletters))
    assert [c async for c in chooser.astream("xy")] == ["x", "y"]
    assert [c async for c in chooser.astream(4)] == [5]
    assert [c async for c in branch().astream("q")] == ["Q"]


def test_input_schema_comes_from_a_typed_part() -> None:
    chooser: Runnable[Any, Any] = RunnableBranch((is_str, upper), describe)
    assert chooser.get_input_jsonschema() == {"title": "upper_input", "type": "string"}


# -- callbacks --------------------------------------------------------------------------------


def test_invoke_tags_conditions_and_branches() -> None:
    recorder = Recorder()
    config: RunnableConfig = {"callbacks": [recorder], "tags": ["root"], "run_name": "pick"}
    assert branch().invoke("ab", config) == "AB"
    assert recorder.events == [
        ("start", "pick", ("ab", ["root"])),
        ("start", "is_int", ("ab", ["condition:1", "root"])),
        ("end", "is_int", False),
        ("start", "is_str", ("ab", ["condition:2", "root"])),
        ("end", "is_str", True),
        ("start", "upper", ("ab", ["branch:2", "root"])),
        ("end", "upper", "AB"),
        ("end", "pick", "AB"),
    ]
    root = next(run for run, name in recorder.names.items() if name == "pick")
    assert recorder.parents[root] is None
    assert {recorder.parents[r] for r, n in recorder.names.items() if n != "pick"} == {root}


def test_default_is_tagged_branch_default() -> None:
    recorder = Recorder()
    assert branch().invoke(None, {"callbacks": [recorder]}) == "other: None"
    assert [e for e in recorder.events if e[0] == "start"] == [
        ("start", "RunnableBranch", (None, [])),
        ("start", "is_int", (None, ["condition:1"])),
        ("start", "is_str", (None, ["condition:2"])),
        ("start", "describe", (None, ["branch:default"])),
    ]


def test_error_is_reported_on_the_branch_run() -> None:
    def fail(x: int) -> int:
        raise ValueError("nope")

    recorder = Recorder()
    failing: Runnable[Any, Any] = RunnableBranch((is_int, fail), describe)
    with pytest.raises(ValueError, match="nope"):
        failing.invoke(1, {"callbacks": [recorder]})
    assert recorder.events[-2:] == [
        ("error", "fail", "ValueError('nope')"),
        ("error", "RunnableBranch", "ValueError('nope')"),
    ]


async def test_ainvoke_tags_conditions_and_branches() -> None:
    recorder = Recorder()
    assert await branch().ainvoke(1, {"callbacks": [recorder]}) == 2
    assert recorder.events == [
        ("start", "RunnableBranch", (1, [])),
        ("start", "is_int", (1, ["condition:1"])),
        ("end", "is_int", True),
        ("start", "add_one", (1, ["branch:1"])),
        ("end", "add_one", 2),
        ("end", "RunnableBranch", 2),
    ]


def test_stream_reports_chunks_and_their_sum() -> None:
    recorder = Recorder()
    spelled: Runnable[Any, Any] = RunnableBranch((is_int, add_one), RunnableLambda(letters))
    assert list(spelled.stream("ab", {"callbacks": [recorder]})) == ["a", "b"]
    branch_events = [e for e in recorder.events if e[1] == "RunnableBranch"]
    assert branch_events == [
        ("start", "RunnableBranch", ("ab", [])),
        ("stream", "RunnableBranch", "a"),
        ("stream", "RunnableBranch", "b"),
        ("end", "RunnableBranch", "ab"),
    ]
    assert ("start", "letters", ("", ["branch:default"])) in recorder.events


async def test_astream_reports_chunks_and_their_sum() -> None:
    recorder = Recorder()
    spelled: Runnable[Any, Any] = RunnableBranch((is_int, add_one), RunnableLambda(letters))
    chunks = [c async for c in spelled.astream("ab", {"callbacks": [recorder]})]
    assert chunks == ["a", "b"]
    assert [e for e in recorder.events if e[1] == "RunnableBranch"] == [
        ("start", "RunnableBranch", ("ab", [])),
        ("stream", "RunnableBranch", "a"),
        ("stream", "RunnableBranch", "b"),
        ("end", "RunnableBranch", "ab"),
    ]


def test_stream_error_is_reported() -> None:
    def broken(x: str) -> Iterator[str]:
        yield "a"
        raise RuntimeError("mid-stream")

    recorder = Recorder()
    spelled: Runnable[Any, Any] = RunnableBranch((is_int, add_one), RunnableLambda(broken))
    stream = spelled.stream("x", {"callbacks": [recorder]})
    assert next(stream) == "a"
    with pytest.raises(RuntimeError, match="mid-stream"):
        next(stream)
    assert recorder.events[-1] == ("error", "RunnableBranch", "RuntimeError('mid-stream')")


def test_branch_sees_config_without_the_run_name() -> None:
    seen: list[RunnableConfig] = []

    def capture(x: Any, config: RunnableConfig) -> Any:
        seen.append(config)
        return x

    chooser: Runnable[Any, Any] = RunnableBranch((is_int, capture), describe)
    chooser.invoke(1, {"run_name": "outer", "tags": ["t"], "metadata": {"m": 1}})
    assert len(seen) == 1
    assert "run_name" not in seen[0]
    assert seen[0]["tags"] == ["t"]
    assert seen[0]["metadata"] == {"m": 1}
