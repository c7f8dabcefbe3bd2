"""`|`, `pipe`, coercion of callables, generator functions and dicts, and `@chain`."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from leanchain.runnables import (
    Runnable,
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnableMap,
    RunnableParallel,
    RunnableSequence,
    chain,
    coerce_to_runnable,
)


def add_one(x: int) -> int:
    return x + 1


def double(x: int) -> int:
    return x * 2


def upper(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk.upper()


async def aupper(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
    async for chunk in chunks:
        yield chunk.upper()


def test_pipe_operator_builds_a_sequence_of_coerced_steps() -> None:
    seq = RunnableLambda(add_one) | double
    assert isinstance(seq, RunnableSequence)
    assert [type(s) for s in seq.steps] == [RunnableLambda, RunnableLambda]
    assert seq.invoke(1) == 4


def test_reflected_pipe_coerces_the_left_operand() -> None:
    seq = add_one | RunnableLambda(double)
    assert isinstance(seq, RunnableSequence)
    assert seq.invoke(1) == 4
    mapped = {"a": add_one, "b": double} | RunnableLambda(lambda d: d["a"] + d["b"])
    assert isinstance(mapped, RunnableSequence)
    assert isinstance(mapped.first, RunnableParallel)
    assert mapped.invoke(3) == 10


def test_generator_functions_become_runnable_generators() -> None:
    seq = RunnableLambda(str) | upper
    assert isinstance(seq, RunnableSequence)
    assert isinstance(seq.last, RunnableGenerator)
    assert seq.invoke("ab") == "AB"
    aseq = RunnableLambda(str) | aupper
    assert isinstance(aseq, RunnableSequence)
    assert isinstance(aseq.last, RunnableGenerator)


async def test_async_generator_function_in_a_pipe_streams() -> None:
    aseq = RunnableLambda(str) | aupper
    assert [c async for c in aseq.astream("ab")] == ["AB"]


def test_dicts_become_parallels_recursively() -> None:
    seq = RunnableLambda(add_one) | {"a": double, "inner": {"b": add_one}}
    assert isinstance(seq, RunnableSequence)
    parallel = seq.last
    assert isinstance(parallel, RunnableParallel)
    assert isinstance(parallel.steps__["inner"], RunnableParallel)
    assert seq.invoke(1) == {"a": 4, "inner": {"b": 3}}


@pytest.mark.parametrize("bad", [1, "text", 2.5, None])
def test_unsupported_operand_is_a_type_error_naming_the_type(bad: Any) -> None:
    message = f"Expected a Runnable, callable or dict.Instead got an unsupported type: {type(bad)}"
    with pytest.raises(TypeError) as right:
        RunnableLambda(add_one) | bad
    assert str(right.value) == message
    with pytest.raises(TypeError) as left:
        bad | RunnableLambda(add_one)
    assert str(left.value) == message
    with pytest.raises(TypeError) as direct:
        coerce_to_runnable(bad)
    assert str(direct.value) == message


def test_coerce_returns_runnables_unchanged() -> None:
    runnable = RunnableLambda(add_one)
    assert coerce_to_runnable(runnable) is runnable


def test_nested_sequences_are_flattened() -> None:
    a, b, c, d = (RunnableLambda(add_one) for _ in range(4))
    seq = (a | b) | (c | d)
    assert isinstance(seq, RunnableSequence)
    assert seq.steps == (a, b, c, d)
    assert seq.first is a
    assert seq.middle == [b, c]
    assert seq.last is d
    assert seq.invoke(0) == 4


def test_sequence_needs_two_steps() -> None:
    with pytest.raises(ValueError) as error:
        RunnableSequence(RunnableLambda(add_one))
    assert str(error.value) == "RunnableSequence must have at least 2 steps, got 1"
    with pytest.raises(ValueError) as empty:
        RunnableSequence()
    assert str(empty.value) == "RunnableSequence must have at least 2 steps, got 0"


def test_pipe_method_is_a_sequence_with_a_name() -> None:
    seq = RunnableLambda(add_one).pipe(double, add_one, name="math")
    assert isinstance(seq, RunnableSequence)
    assert len(seq.steps) == 3
    assert seq.get_name() == "math"
    assert seq.invoke(1) == 5
    assert (RunnableLambda(add_one) | double).get_name() == "RunnableSequence"


def test_chain_decorator_makes_a_runnable_lambda() -> None:
    @chain
    def shout(text: str) -> str:
        return text.upper() + "!"

    assert isinstance(shout, RunnableLambda)
    assert shout.get_name() == "shout"
    assert shout.invoke("hi") == "HI!"
    assert (shout | len).invoke("hey") == 4


def test_runnable_map_is_runnable_parallel() -> None:
    assert RunnableMap is RunnableParallel


def test_a_runnable_without_invoke_cannot_be_instantiated() -> None:
    class Incomplete(Runnable[int, int]):
        pass

    with pytest.raises(TypeError, match="abstract method invoke"):
        Incomplete()  # type: ignore[abstract]

    class Complete(Runnable[int, int]):
        def invoke(self, input: int, config: RunnableConfig | None = None, **kwargs: Any) -> int:
            return input * 3

    assert (Complete() | add_one).invoke(2) == 7


def test_abstract_methods_of_subclasses_are_enforced_like_abc() -> None:
    class Base(Runnable[int, int]):
        @abstractmethod
        def step(self, x: int) -> int: ...

        def invoke(self, input: int, config: RunnableConfig | None = None, **kwargs: Any) -> int:
            return self.step(input)

    class Still(Base):
        pass

    class Done(Base):
        def step(self, x: int) -> int:
            return -x

    for cls in (Base, Still):
        with pytest.raises(TypeError, match="abstract method step"):
            cls()  # type: ignore[abstract]
    assert Done().invoke(3) == -3


def test_sequence_repr_lists_the_steps() -> None:
    seq = RunnableLambda(add_one) | RunnableLambda(double)
    assert repr(seq) == "RunnableLambda(add_one)\n| RunnableLambda(double)"
