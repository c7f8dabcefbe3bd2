"""Static types of composition, checked by ``mypy --strict`` (``make typecheck``).

Every ``assert_type`` line is a claim about what mypy infers; the functions also run under
pytest, so each expression is evaluated and its runtime value checked too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, assert_type

from leanchain.callbacks.manager import RunManager
from leanchain.runnables import (
    Runnable,
    RunnableAssign,
    RunnableBinding,
    RunnableConfig,
    RunnableEach,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    RunnablePick,
    RunnableRetry,
    RunnableSequence,
    RunnableWithFallbacks,
    chain,
)


def to_text(x: int) -> str:
    return str(x)


def length(text: str) -> int:
    return len(text)


def halve(n: int) -> float:
    return n / 2


async def ato_text(x: int) -> str:
    return str(x)


def letters(text: str) -> Iterator[str]:
    yield from text


async def aletters(text: str) -> AsyncIterator[str]:
    for ch in text:
        yield ch


def shout(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk.upper()


async def ashout(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
    async for chunk in chunks:
        yield chunk.upper()


def tagged(x: int, config: RunnableConfig) -> list[str]:
    return [*config.get("tags", []), str(x)]


async def atagged(x: int, config: RunnableConfig) -> list[str]:
    return [*config.get("tags", []), str(x)]


def render(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


async def arender(values: dict[str, Any]) -> str:
    return render(values)


def pairs(values: dict[str, Any]) -> Iterator[str]:
    yield from values


def named(x: int, run_manager: RunManager) -> str:
    return f"{run_manager.name}:{x}"


async def anamed(x: int, run_manager: RunManager) -> str:
    return f"{run_manager.name}:{x}"


def names(x: int, run_manager: RunManager) -> Iterator[str]:
    yield run_manager.name


def to_dict(x: int) -> dict[str, Any]:
    return {"x": x}


def test_runnable_lambda_takes_the_function_types() -> None:
    assert_type(RunnableLambda(to_text), RunnableLambda[int, str])
    assert_type(RunnableLambda(ato_text), RunnableLambda[int, str])
    assert_type(RunnableLambda(letters), RunnableLambda[str, str])
    assert_type(RunnableLambda(aletters), RunnableLambda[str, str])
    assert_type(RunnableLambda(tagged), RunnableLambda[int, list[str]])
    assert_type(RunnableLambda(atagged), RunnableLambda[int, list[str]])
    assert_type(RunnableLambda(to_text, afunc=ato_text), RunnableLambda[int, str])
    assert_type(RunnableLambda(lambda x: x + 1), RunnableLambda[Any, int])
    assert_type(RunnableLambda(named), RunnableLambda[int, str])
    assert_type(RunnableLambda(anamed), RunnableLambda[int, str])
    assert_type(RunnableLambda(names), RunnableLambda[int, str])
    assert RunnableLambda(named, name="n").invoke(1) == "n:1"
    assert RunnableLambda(to_text).invoke(3) == "3"
    assert RunnableLambda(letters).invoke("ab") == "ab"
    assert RunnableLambda(tagged).invoke(1, {"tags": ["t"]}) == ["t", "1"]


def test_runnable_generator_takes_the_chunk_types() -> None:
    assert_type(RunnableGenerator(shout), RunnableGenerator[str, str])
    assert_type(RunnableGenerator(ashout), RunnableGenerator[str, str])
    assert_type(RunnableGenerator(shout, ashout), RunnableGenerator[str, str])
    assert RunnableGenerator(shout).invoke("ab") == "AB"


def test_pipe_keeps_input_and_output_types() -> None:
    two = RunnableLambda(to_text) | RunnableLambda(length)
    assert_type(two, Runnable[int, int])
    three = RunnableLambda(to_text) | length | halve
    assert_type(three, Runnable[int, float])
    assert three.invoke(1234) == 2.0
    awaited = RunnableLambda(halve) | ato_text
    assert_type(awaited, Runnable[int, str])
    streamed = RunnableLambda(to_text) | shout
    assert_type(streamed, Runnable[int, str])
    assert streamed.invoke(12) == "12"
    astreamed = RunnableLambda(to_text) | ashout
    assert_type(astreamed, Runnable[int, str])


async def test_signatures_that_mention_any_stay_precise() -> None:
    # mypy gives up (answers Any) when overloads overlap on an argument containing Any;
    # the overloads are written so that dict[str, Any] pipelines keep their types.
    assert_type(RunnableLambda(render), RunnableLambda[dict[str, Any], str])
    assert_type(RunnableLambda(arender), RunnableLambda[dict[str, Any], str])
    assert_type(RunnableLambda(pairs), RunnableLambda[dict[str, Any], str])
    assert_type(RunnableLambda(to_dict), RunnableLambda[int, dict[str, Any]])
    assert_type(RunnableLambda(to_dict) | render, Runnable[int, str])
    assert_type(RunnableLambda(to_dict) | arender, Runnable[int, str])
    assert_type(RunnableLambda(to_dict) | RunnableLambda(pairs), Runnable[int, str])
    assert_type(RunnableLambda(to_dict) | RunnablePassthrough(), Runnable[int, Any])
    assert await (RunnableLambda(to_dict) | arender).ainvoke(1) == "x=1"


def test_reflected_pipe_takes_the_callable_input_type() -> None:
    reflected = to_text | RunnableLambda(length)
    assert_type(reflected, Runnable[int, int])
    assert reflected.invoke(100) == 3


def test_dicts_in_a_pipe_give_dicts() -> None:
    mapped = RunnableLambda(to_text) | {"n": length, "s": RunnablePassthrough()}
    assert_type(mapped, Runnable[int, dict[str, Any]])
    assert mapped.invoke(42) == {"n": 2, "s": "42"}
    from_dict = {"n": length} | RunnableLambda(lambda d: d["n"] * 2)
    assert_type(from_dict, Runnable[Any, Any])
    assert from_dict.invoke("abc") == 6


async def test_config_taking_callable_in_a_pipe() -> None:
    piped = RunnableLambda(length) | tagged
    assert_type(piped, Runnable[str, list[str]])
    assert piped.invoke("abc", {"tags": ["x"]}) == ["x", "3"]
    apiped = RunnableLambda(length) | atagged
    assert_type(apiped, Runnable[str, list[str]])
    assert await apiped.ainvoke("abc", {"tags": ["x"]}) == ["x", "3"]
    assert_type(tagged | RunnableLambda(len), Runnable[int, int])


def test_chain_decorator_keeps_the_types() -> None:
    @chain
    def count(text: str) -> int:
        return len(text)

    @chain
    async def acount(text: str) -> int:
        return len(text)

    @chain
    def spell(text: str) -> Iterator[str]:
        yield from text

    assert_type(count, RunnableLambda[str, int])
    assert_type(acount, RunnableLambda[str, int])
    assert_type(spell, RunnableLambda[str, str])
    assert_type(count | halve, Runnable[str, float])
    assert (count | halve).invoke("abcd") == 2.0


def test_bind_and_with_config_keep_the_types() -> None:
    bound = RunnableLambda(to_text).bind(foo=1)
    assert_type(bound, RunnableBinding[int, str])
    configured = RunnableLambda(to_text).with_config(tags=["t"])
    assert_type(configured, RunnableBinding[int, str])
    assert_type(configured.bind(bar=2), RunnableBinding[int, str])
    assert_type(bound | length, Runnable[int, int])
    typed = RunnableLambda(to_text).with_types(input_type=int, output_type=str)
    assert_type(typed, RunnableBinding[int, str])
    listened = RunnableLambda(to_text).with_listeners(on_end=lambda run: None)
    assert_type(listened, RunnableBinding[int, str])
    assert configured.invoke(5) == "5"


def test_assign_and_pick() -> None:
    assign = RunnablePassthrough.assign(n=lambda d: len(d["text"]))
    assert_type(assign, RunnableAssign)
    chained = RunnableLambda(lambda x: {"text": x}).assign(n=lambda d: len(d["text"]))
    assert_type(chained, Runnable[Any, dict[str, Any]])
    typed_chain = RunnableLambda(to_text) | {"text": RunnablePassthrough()}
    assert_type(typed_chain.assign(n=length), Runnable[int, dict[str, Any]])
    assert_type(RunnablePick("a"), RunnablePick)
    assert_type(typed_chain.pick("text"), Runnable[int, Any])
    assert typed_chain.assign(n=lambda d: len(d["text"])).invoke(123) == {"text": "123", "n": 3}


def test_retry_and_fallbacks_keep_the_types() -> None:
    retried = RunnableLambda(to_text).with_retry(stop_after_attempt=2)
    assert_type(retried, RunnableRetry[int, str])
    fallen = RunnableLambda(to_text).with_fallbacks([RunnableLambda(ato_text)])
    assert_type(fallen, RunnableWithFallbacks[int, str])
    assert_type(retried | length, Runnable[int, int])
    assert_type(fallen | length, Runnable[int, int])
    assert fallen.invoke(7) == "7"


def test_map_keeps_the_types() -> None:
    each = RunnableLambda(to_text).map()
    assert_type(each, RunnableEach[int, str])
    assert_type(each.invoke([1, 2]), list[str])
    assert_type(each | len, Runnable[list[int], int])
    assert each.invoke([1, 2]) == ["1", "2"]


def test_constructed_compositions() -> None:
    assert_type(RunnablePassthrough(), RunnablePassthrough[Any])
    assert_type(RunnablePassthrough(input_type=int), RunnablePassthrough[int])
    assert_type(RunnableParallel(a=to_text), RunnableParallel[Any])
    assert_type(RunnableSequence(to_text, length), RunnableSequence[Any, Any])
    parallel: Runnable[int, dict[str, Any]] = RunnableParallel(a=to_text, b=halve)
    assert parallel.invoke(4) == {"a": "4", "b": 2.0}


async def test_async_methods_keep_the_types() -> None:
    pipeline = RunnableLambda(to_text) | length
    assert_type(await pipeline.ainvoke(10), int)
    assert_type(await pipeline.abatch([1, 22]), list[int])
    assert_type(pipeline.batch([1, 22]), list[int])
    assert_type(pipeline.invoke(1), int)
    assert_type([chunk async for chunk in pipeline.astream(1)], list[int])
    assert await pipeline.abatch([1, 22]) == [1, 2]
