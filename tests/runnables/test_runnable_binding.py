"""`bind`, `with_config`, `with_listeners` and `with_types` (`RunnableBinding`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from runnables_support import Recorder

from leanchain.runnables import (
    RunnableBinding,
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnableRetry,
    get_config,
)
from leanchain.runnables.binding import ListenerRun


def echo_kwargs(x: int, **kwargs: Any) -> dict[str, Any]:
    return {"x": x, **kwargs}


def peek_tags(x: int) -> list[str]:
    return list(get_config().get("tags", []))


def test_bind_passes_keyword_arguments() -> None:
    bound = RunnableLambda(echo_kwargs).bind(stop=["x"])
    assert isinstance(bound, RunnableBinding)
    assert bound.invoke(1) == {"x": 1, "stop": ["x"]}


def test_bind_on_a_binding_merges_and_call_time_kwargs_win() -> None:
    bound = RunnableLambda(echo_kwargs).bind(stop=["x"]).bind(foo=1)
    assert isinstance(bound.bound, RunnableLambda)
    assert bound.kwargs == {"stop": ["x"], "foo": 1}
    assert bound.invoke(1) == {"x": 1, "stop": ["x"], "foo": 1}
    assert bound.invoke(1, stop=["y"]) == {"x": 1, "stop": ["y"], "foo": 1}
    assert bound.bind(foo=2).invoke(1) == {"x": 1, "stop": ["x"], "foo": 2}


async def test_bound_kwargs_reach_every_method() -> None:
    bound = RunnableLambda(echo_kwargs).bind(k=1)
    assert await bound.ainvoke(2) == {"x": 2, "k": 1}
    assert bound.batch([1, 2]) == [{"x": 1, "k": 1}, {"x": 2, "k": 1}]
    assert await bound.abatch([3]) == [{"x": 3, "k": 1}]
    assert list(bound.stream(4)) == [{"x": 4, "k": 1}]
    assert [c async for c in bound.astream(5)] == [{"x": 5, "k": 1}]


def test_with_config_unions_tags_with_the_call_config() -> None:
    configured = RunnableLambda(peek_tags).with_config(tags=["a"])
    assert configured.invoke(1) == ["a"]
    assert configured.invoke(1, {"tags": ["c"]}) == ["a", "c"]
    assert configured.invoke(1, {"tags": ["0"]}) == ["0", "a"]


def test_with_config_on_a_binding_replaces_keys() -> None:
    configured = RunnableLambda(peek_tags).with_config(tags=["a"]).with_config(tags=["b"])
    assert configured.config == {"tags": ["b"]}
    assert configured.invoke(1) == ["b"]


def test_with_config_accepts_a_dict_and_keywords() -> None:
    configured = RunnableLambda(peek_tags).with_config({"tags": ["a"]}, run_name="named")
    assert configured.config == {"tags": ["a"], "run_name": "named"}


def test_with_config_run_name_names_the_run() -> None:
    recorder = Recorder()
    RunnableLambda(peek_tags).with_config(run_name="named").invoke(1, {"callbacks": [recorder]})
    assert recorder.starts() == [("named", [])]


def test_with_config_metadata_and_configurable_merge() -> None:
    def peek(x: int, config: RunnableConfig) -> tuple[dict[str, Any], dict[str, Any]]:
        return dict(config.get("metadata", {})), dict(config.get("configurable", {}))

    configured = RunnableLambda(peek).with_config(metadata={"a": 1}, configurable={"k": 1})
    assert configured.invoke(0, {"metadata": {"b": 2}, "configurable": {"k": 2}}) == (
        {"a": 1, "b": 2},
        {"k": 2},
    )


def test_binding_delegates_unknown_attributes_and_its_name() -> None:
    lam = RunnableLambda(echo_kwargs)
    bound = lam.bind(k=1)
    assert bound.func is echo_kwargs
    assert bound.get_name() == "echo_kwargs"
    with pytest.raises(AttributeError):
        _ = bound.not_an_attribute


def test_binding_with_retry_keeps_kwargs_and_config() -> None:
    attempts: list[dict[str, Any]] = []

    def flaky(x: int, **kwargs: Any) -> list[str]:
        attempts.append(kwargs)
        if len(attempts) < 2:
            raise ValueError("flaky")
        return list(get_config().get("tags", []))

    retried = (
        RunnableLambda(flaky)
        .bind(k=1)
        .with_config(tags=["t"])
        .with_retry(stop_after_attempt=2, wait_exponential_jitter=False)
    )
    assert isinstance(retried, RunnableRetry)
    assert isinstance(retried.bound, RunnableBinding)
    assert retried.invoke(0) == ["t"]
    assert attempts == [{"k": 1}, {"k": 1}]


def test_with_listeners_sees_the_run() -> None:
    log: list[tuple[str, ListenerRun]] = []
    listened = RunnableLambda(lambda x: x + 1).with_listeners(
        on_start=lambda run: log.append(("start", run)),
        on_end=lambda run: log.append(("end", run)),
    )
    assert listened.invoke(1) == 2
    assert [kind for kind, _ in log] == ["start", "end"]
    run = log[0][1]
    assert log[1][1] is run
    assert run.inputs == {"input": 1}
    assert run.outputs == {"output": 2}
    assert run.error is None
    assert run.name == "RunnableLambda"
    assert run.end_time is not None
    assert run.end_time >= run.start_time


def test_with_listeners_on_error() -> None:
    errors: list[str | None] = []

    def fail(x: int) -> int:
        raise KeyError("k")

    listened = RunnableLambda(fail).with_listeners(on_error=lambda run: errors.append(run.error))
    with pytest.raises(KeyError):
        listened.invoke(1)
    assert errors == ["KeyError('k')"]


def test_with_listeners_only_reports_the_root_run() -> None:
    names: list[str] = []
    seq = (RunnableLambda(lambda x: x) | (lambda x: x)).with_listeners(
        on_start=lambda run: names.append(run.name)
    )
    seq.invoke(1)
    assert names == ["RunnableSequence"]


def test_listener_may_take_the_config() -> None:
    seen: list[list[str]] = []

    def on_end(run: ListenerRun, config: RunnableConfig) -> None:
        seen.append(list(config.get("tags", [])))

    RunnableLambda(lambda x: x).with_listeners(on_end=on_end).invoke(1, {"tags": ["l"]})
    assert seen == [["l"]]


async def test_with_listeners_async() -> None:
    log: list[Any] = []
    listened = RunnableLambda(lambda x: x * 2).with_listeners(
        on_end=lambda run: log.append(run.outputs)
    )
    assert await listened.ainvoke(2) == 4
    assert log == [{"output": 4}]


def test_each_call_gets_a_fresh_listener_run() -> None:
    ids: list[Any] = []
    listened = RunnableLambda(lambda x: x).with_listeners(on_end=lambda run: ids.append(run.id))
    listened.invoke(1)
    listened.invoke(2)
    assert len(set(ids)) == 2


def test_with_types_overrides_the_schemas() -> None:
    typed = RunnableLambda(lambda x: x).with_types(input_type=int, output_type=str)
    assert typed.InputType is int
    assert typed.OutputType is str
    assert typed.get_input_jsonschema() == {"title": "RunnableLambdaInput", "type": "integer"}
    assert typed.get_output_jsonschema() == {"title": "RunnableLambdaOutput", "type": "string"}


def test_binding_transform_streams_through_the_bound_runnable() -> None:
    def letters(text: str) -> Iterator[str]:
        yield from text

    def shout(chunks: Iterator[str], **kwargs: Any) -> Iterator[str]:
        for chunk in chunks:
            yield chunk.upper()

    seq = RunnableLambda(letters) | RunnableGenerator(shout).with_config(tags=["s"])
    assert list(seq.stream("ab")) == ["A", "B"]
