"""`config_specs`: what a runnable reads from ``config["configurable"]``, through compositions."""

from __future__ import annotations

from typing import Any

import pytest

from leanchain.runnables import (
    ConfigurableField,
    ConfigurableFieldSpec,
    Runnable,
    RunnableBranch,
    RunnableConfig,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    RunnableSequence,
)


class Echo(Runnable[str, str]):
    """A runnable with one attribute to configure."""

    __slots__ = ("word",)

    def __init__(self, word: str = "echo") -> None:
        self.word = word

    def invoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return f"{self.word} {input}"


def echo(field: str, word: str = "echo") -> Runnable[str, str]:
    return Echo(word).configurable_fields(word=ConfigurableField(id=field))


def spec(field: str, word: str = "echo") -> ConfigurableFieldSpec:
    return ConfigurableFieldSpec(id=field, annotation=str, default=word)


def upper(text: str) -> str:
    return text.upper()


def test_a_plain_runnable_has_none() -> None:
    assert RunnableLambda(upper).config_specs == []
    assert Echo().config_specs == []


def test_a_sequence_merges_its_steps_specs_by_id() -> None:
    chain = RunnableSequence(echo("b"), RunnableLambda(upper), echo("a"), echo("b"))
    assert chain.config_specs == [spec("a"), spec("b")]
    assert chain.invoke("x", {"configurable": {"a": "hi", "b": "yo"}}) == "yo hi YO X"


def test_a_parallel_merges_its_branches_specs() -> None:
    parallel = RunnableParallel(one=echo("a"), two=RunnableLambda(upper), three=echo("c"))
    assert parallel.config_specs == [spec("a"), spec("c")]


def test_bindings_retries_and_assigns_report_their_runnables_specs() -> None:
    assert echo("a").bind(extra=1).config_specs == [spec("a")]
    assert echo("a").with_config(tags=["t"]).config_specs == [spec("a")]
    assert echo("a").with_retry().config_specs == [spec("a")]
    assert RunnablePassthrough.assign(x=echo("a")).config_specs == [spec("a")]


def test_fallbacks_merge_the_primary_and_every_fallback() -> None:
    runnable = echo("b").with_fallbacks([RunnableLambda(upper), echo("a")])
    assert runnable.config_specs == [spec("a"), spec("b")]


def test_a_branch_merges_conditions_branches_and_default() -> None:
    def is_short(text: str) -> bool:
        return len(text) < 3

    branch: RunnableBranch[str, str] = RunnableBranch((is_short, echo("short")), echo("long"))
    assert branch.config_specs == [spec("long"), spec("short")]


def test_two_different_specs_for_one_id_conflict() -> None:
    chain = RunnableSequence(echo("a", "hi"), echo("a", "yo"))
    with pytest.raises(ValueError) as info:
        _ = chain.config_specs
    assert str(info.value) == (
        f"Conflicting config specs for a: {[spec('a', 'hi'), spec('a', 'yo')]}"
    )
