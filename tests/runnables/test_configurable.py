"""Configurable fields and alternatives: per-call choice through ``config["configurable"]``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, cast, get_args, get_origin
from uuid import UUID

import pytest

from leanchain.callbacks import BaseCallbackHandler
from leanchain.runnables import (
    ConfigurableField,
    ConfigurableFieldMultiOption,
    ConfigurableFieldSingleOption,
    ConfigurableFieldSpec,
    Runnable,
    RunnableConfig,
    RunnableLambda,
)
from leanchain.runnables.configurable import (
    RunnableConfigurableAlternatives,
    RunnableConfigurableFields,
    get_unique_config_specs,
)


class Greeter(Runnable[str, str]):
    """A runnable with plain attributes, as leanchain's runnables have."""

    __slots__ = ("greeting", "name", "punctuation")

    batch_sizes: list[int] = []

    def __init__(self, greeting: str = "hello", punctuation: Any = ".") -> None:
        self.greeting = greeting
        self.punctuation = punctuation
        self.name = None

    def __repr__(self) -> str:
        return f"Greeter(greeting={self.greeting!r})"

    def invoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        if input == "fail":
            raise ValueError(f"{self.greeting} cannot greet fail")
        end = self.punctuation if isinstance(self.punctuation, str) else "".join(self.punctuation)
        return f"{self.greeting} {input}{end}"

    def batch(
        self,
        inputs: Sequence[str],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[str]:
        Greeter.batch_sizes.append(len(inputs))
        return super().batch(inputs, config, return_exceptions=return_exceptions, **kwargs)

    def render(self, who: str, config: RunnableConfig | None = None) -> str:
        return f"<{self.greeting}> {who}"


def greet_field() -> Runnable[str, str]:
    return Greeter().configurable_fields(
        greeting=ConfigurableField(id="greet", name="Greeting", description="How to greet")
    )


def other(x: str) -> str:
    return f"other {x}"


def alternatives() -> Runnable[str, str]:
    return Greeter().configurable_alternatives(
        ConfigurableField(id="which"),
        other=RunnableLambda(other),
        polite=lambda: Greeter("good day"),
    )


def on(**values: Any) -> RunnableConfig:
    return {"configurable": values}


@pytest.fixture(autouse=True)
def _clear_batch_log() -> None:
    Greeter.batch_sizes.clear()


# -- fields -----------------------------------------------------------------------------------


def test_field_default_and_configured_value() -> None:
    greeter = Greeter()
    configurable = greeter.configurable_fields(greeting=ConfigurableField(id="greet"))
    assert isinstance(configurable, RunnableConfigurableFields)
    assert configurable.invoke("bob") == "hello bob."
    assert configurable.invoke("bob", on(greet="hi")) == "hi bob."
    assert configurable.invoke("bob", on(unrelated=1)) == "hello bob."
    assert greeter.greeting == "hello"


def test_unknown_top_level_config_keys_count_as_configurable() -> None:
    config = cast(RunnableConfig, {"greet": "hey"})
    assert greet_field().invoke("bob", config) == "hey bob."


def test_with_config_binds_values_and_call_config_wins() -> None:
    bound = greet_field().with_config(configurable={"greet": "yo"})
    assert bound.invoke("al") == "yo al."
    assert bound.invoke("al", on(greet="hi")) == "hi al."
    assert greet_field().with_config(on(greet="hey")).invoke("al") == "hey al."


def test_field_inside_a_sequence() -> None:
    chain = RunnableLambda(str.strip) | greet_field()
    assert chain.invoke("  cy ", on(greet="hi")) == "hi cy."


async def test_field_async_and_streaming() -> None:
    configurable = greet_field()
    assert await configurable.ainvoke("x", on(greet="hi")) == "hi x."
    assert list(configurable.stream("x", on(greet="hi"))) == ["hi x."]
    assert list(configurable.transform(iter(["a", "b"]), on(greet="hi"))) == ["hi ab."]
    assert [c async for c in configurable.astream("x", on(greet="hey"))] == ["hey x."]

    async def chunks() -> AsyncIterator[str]:
        yield "c"
        yield "d"

    assert [c async for c in configurable.atransform(chunks(), on(greet="yo"))] == ["yo cd."]


def test_unknown_field_name() -> None:
    with pytest.raises(ValueError) as info:
        Greeter().configurable_fields(tone=ConfigurableField(id="tone"))
    assert str(info.value) == (
        "Configuration key tone not found in Greeter(greeting='hello'): "
        "available keys are dict_keys(['greeting', 'name', 'punctuation'])"
    )


def test_field_value_must_be_a_configurable_field() -> None:
    with pytest.raises(TypeError) as info:
        Greeter().configurable_fields(greeting="greet")
    assert str(info.value) == (
        "Configuration key greeting must be a ConfigurableField, "
        "ConfigurableFieldSingleOption or ConfigurableFieldMultiOption, not <class 'str'>"
    )


def test_single_and_multi_options() -> None:
    configurable = Greeter().configurable_fields(
        greeting=ConfigurableFieldSingleOption(
            id="tone", options={"warm": "hello", "cold": "hm"}, default="warm"
        ),
        punctuation=ConfigurableFieldMultiOption(
            id="marks", options={"bang": "!", "ask": "?", "dot": "."}, default=["dot"]
        ),
    )
    assert configurable.invoke("di") == "hello di."
    assert configurable.invoke("di", on(tone="cold", marks=["ask", "bang"])) == "hm di?!"
    with pytest.raises(ValueError) as info:
        configurable.invoke("di", on(tone="hot"))
    assert str(info.value) == "Unknown option 'hot' for 'tone': expected one of ['warm', 'cold']"


def test_fields_config_specs() -> None:
    configurable = Greeter().configurable_fields(
        greeting=ConfigurableField(id="greet", name="Greeting", description="How to greet"),
        punctuation=ConfigurableField(id="end", annotation=list[str], is_shared=True),
        name=ConfigurableField(id="label"),
    )
    assert configurable.config_specs == [
        ConfigurableFieldSpec(id="end", annotation=list[str], default=".", is_shared=True),
        ConfigurableFieldSpec(
            id="greet",
            annotation=str,
            name="Greeting",
            description="How to greet",
            default="hello",
        ),
        ConfigurableFieldSpec(id="label", annotation=Any, default=None),
    ]


def test_option_config_specs_use_an_enum_of_the_keys() -> None:
    configurable = Greeter().configurable_fields(
        greeting=ConfigurableFieldSingleOption(
            id="tone", options={"warm": "hello", "cold": "hm"}, default="warm", name="Tone"
        ),
        punctuation=ConfigurableFieldMultiOption(
            id="marks", options={"bang": "!", "dot": "."}, default=["dot"]
        ),
    )
    marks, tone = configurable.config_specs
    assert (tone.id, tone.default, tone.annotation.__name__) == ("tone", "warm", "Tone")
    assert [member.value for member in tone.annotation] == ["warm", "cold"]
    assert (marks.id, marks.default) == ("marks", ["dot"])
    assert get_origin(marks.annotation) is Sequence
    (enum,) = get_args(marks.annotation)
    assert [member.value for member in enum] == ["bang", "dot"]
    assert configurable.config_specs == [marks, tone]


def test_configurable_fields_twice_merges_the_fields() -> None:
    both = greet_field().configurable_fields(punctuation=ConfigurableField(id="end"))
    assert isinstance(both, RunnableConfigurableFields)
    assert isinstance(both.default, Greeter)
    assert both.invoke("ed", on(greet="hi", end="!")) == "hi ed!"


def test_attribute_access_falls_through_to_the_default() -> None:
    configurable = greet_field()
    assert configurable.greeting == "hello"  # type: ignore[attr-defined]
    assert configurable.render("fy") == "<hello> fy"  # type: ignore[attr-defined]
    assert configurable.render("fy", config=on(greet="hi")) == "<hi> fy"  # type: ignore[attr-defined]
    assert configurable.render("fy", on(greet="yo")) == "<yo> fy"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        configurable.missing  # type: ignore[attr-defined]  # noqa: B018


# -- batches ----------------------------------------------------------------------------------


def test_batch_with_one_choice_is_one_batch_of_it() -> None:
    configurable = greet_field()
    assert configurable.batch(["a", "b"], on(greet="hi")) == ["hi a.", "hi b."]
    assert Greeter.batch_sizes == [2]
    assert configurable.batch([]) == []


def test_batch_with_different_choices_runs_each_item() -> None:
    configurable = greet_field()
    configs = [on(greet="hi"), on(greet="yo"), on()]
    assert configurable.batch(["a", "b", "c"], configs) == ["hi a.", "yo b.", "hello c."]
    assert Greeter.batch_sizes == []
    mixed = alternatives().batch(["a", "fail"], [on(which="other"), {}], return_exceptions=True)
    assert mixed[0] == "other a"
    assert isinstance(mixed[1], ValueError)
    assert str(mixed[1]) == "hello cannot greet fail"
    with pytest.raises(ValueError, match="hello cannot greet fail"):
        alternatives().batch(["a", "fail"], [on(which="other"), {}])


async def test_abatch_with_one_or_several_choices() -> None:
    configurable = greet_field()
    assert await configurable.abatch(["a", "b"], on(greet="hi")) == ["hi a.", "hi b."]
    assert await configurable.abatch([]) == []
    configs = [on(greet="hi"), on(greet="yo")]
    assert await configurable.abatch(["a", "b"], configs) == ["hi a.", "yo b."]
    mixed = await alternatives().abatch(
        ["fail", "b"], [{}, on(which="polite")], return_exceptions=True
    )
    assert isinstance(mixed[0], ValueError)
    assert mixed[1] == "good day b."
    with pytest.raises(ValueError, match="hello cannot greet fail"):
        await alternatives().abatch(["fail", "b"], [{}, on(which="polite")])


# -- alternatives -----------------------------------------------------------------------------


def test_alternatives_choose_by_key() -> None:
    choice = alternatives()
    assert isinstance(choice, RunnableConfigurableAlternatives)
    assert choice.invoke("a") == "hello a."
    assert choice.invoke("a", on(which="default")) == "hello a."
    assert choice.invoke("a", on(which="other")) == "other a"
    assert choice.invoke("a", on(which="polite")) == "good day a."
    assert choice.with_config(configurable={"which": "other"}).invoke("b") == "other b"


def test_unknown_alternative() -> None:
    with pytest.raises(ValueError) as info:
        alternatives().invoke("a", on(which="nope"))
    assert str(info.value) == "Unknown alternative: nope"


def test_factory_alternative_is_built_per_call() -> None:
    built: list[int] = []

    def factory() -> Runnable[str, str]:
        built.append(1)
        return RunnableLambda(other)

    choice = Greeter().configurable_alternatives(ConfigurableField(id="w"), lazy=factory)
    assert built == []
    assert choice.invoke("a", on(w="lazy")) == "other a"
    assert choice.invoke("b", on(w="lazy")) == "other b"
    assert len(built) == 2


def test_custom_default_key() -> None:
    choice = Greeter().configurable_alternatives(
        ConfigurableField(id="w"), default_key="greeter", other=RunnableLambda(other)
    )
    assert choice.invoke("a", on(w="greeter")) == "hello a."
    with pytest.raises(ValueError) as info:
        choice.invoke("a", on(w="default"))
    assert str(info.value) == "Unknown alternative: default"


def test_alternatives_are_checked_when_built() -> None:
    with pytest.raises(TypeError) as which:
        Greeter().configurable_alternatives("which", other=RunnableLambda(other))
    assert str(which.value) == "which must be a ConfigurableField, not <class 'str'>"
    with pytest.raises(TypeError) as value:
        Greeter().configurable_alternatives(ConfigurableField(id="w"), other=3)
    assert str(value.value) == (
        "Alternative other must be a Runnable or a function that returns one, not <class 'int'>"
    )
    with pytest.raises(ValueError) as clash:
        Greeter().configurable_alternatives(ConfigurableField(id="w"), default=Greeter())
    assert str(clash.value) == "Alternative default has the same key as the default"


async def test_alternatives_async_and_streaming() -> None:
    def spell(x: str) -> Iterator[str]:
        yield from x

    choice = Greeter().configurable_alternatives(
        ConfigurableField(id="w"), spell=RunnableLambda(spell)
    )
    assert list(choice.stream("ab", on(w="spell"))) == ["a", "b"]
    assert [c async for c in choice.astream("ab", on(w="spell"))] == ["a", "b"]
    assert await choice.ainvoke("ab", on(w="spell")) == "ab"
    assert await choice.ainvoke("ab") == "hello ab."


def test_alternatives_config_specs() -> None:
    choice = Greeter().configurable_alternatives(
        ConfigurableField(id="which", name="Which", description="Pick one"),
        other=RunnableLambda(other),
        fancy=Greeter("hey").configurable_fields(greeting=ConfigurableField(id="greet")),
        lazy=lambda: Greeter(),
    )
    greet, which = choice.config_specs
    assert greet == ConfigurableFieldSpec(id="greet", annotation=str, default="hey")
    assert (which.id, which.name, which.description, which.default) == (
        "which",
        "Which",
        "Pick one",
        "default",
    )
    assert [m.value for m in which.annotation] == ["other", "fancy", "lazy", "default"]


def test_prefix_keys_scope_the_alternatives_fields() -> None:
    fancy = Greeter("hey").configurable_fields(greeting=ConfigurableField(id="greet"))
    choice = greet_field().configurable_alternatives(
        ConfigurableField(id="which"), prefix_keys=True, fancy=fancy
    )
    assert [spec.id for spec in choice.config_specs] == [
        "which",
        "which==default/greet",
        "which==fancy/greet",
    ]
    assert choice.invoke("a", {"configurable": {"which==default/greet": "hi"}}) == "hi a."
    config = on(which="fancy", **{"which==fancy/greet": "yo", "which==default/greet": "no"})
    assert choice.invoke("a", config) == "yo a."
    assert choice.invoke("a", on(which="fancy")) == "hey a."


def test_shared_specs_are_not_prefixed() -> None:
    fancy = Greeter().configurable_fields(greeting=ConfigurableField(id="greet", is_shared=True))
    choice = Greeter().configurable_alternatives(
        ConfigurableField(id="which"), prefix_keys=True, fancy=fancy
    )
    assert [spec.id for spec in choice.config_specs] == ["greet", "which"]


def test_fields_of_alternatives_and_alternatives_of_fields() -> None:
    choice = alternatives().configurable_fields(greeting=ConfigurableField(id="greet"))
    assert isinstance(choice, RunnableConfigurableAlternatives)
    assert choice.invoke("a", on(greet="hi")) == "hi a."
    assert choice.invoke("a", on(greet="hi", which="other")) == "other a"
    nested = greet_field().configurable_alternatives(
        ConfigurableField(id="which"), other=RunnableLambda(other)
    )
    assert nested.invoke("a", on(greet="yo")) == "yo a."
    assert nested.invoke("a", on(greet="yo", which="other")) == "other a"


def test_conflicting_specs_are_an_error() -> None:
    first = ConfigurableFieldSpec(id="x", annotation=int)
    second = ConfigurableFieldSpec(id="x", annotation=str)
    assert get_unique_config_specs([first, first]) == [first]
    with pytest.raises(ValueError) as info:
        get_unique_config_specs([first, second])
    assert str(info.value) == f"Conflicting config specs for x: {[first, second]}"


def test_schema_and_graph_follow_the_choice() -> None:
    def count(x: str) -> int:
        return len(x)

    choice = Greeter().configurable_alternatives(
        ConfigurableField(id="w"), count=RunnableLambda(count)
    )
    assert choice.get_output_jsonschema(on(w="count")) == {
        "title": "count_output",
        "type": "integer",
    }
    assert choice.get_output_jsonschema() == {"title": "GreeterOutput", "type": "string"}
    assert choice.InputType is str
    assert choice.OutputType is str
    graph = choice.get_graph(on(w="count"))
    assert [node.name for node in graph.nodes.values()] == ["count_input", "count", "count_output"]


class Names(BaseCallbackHandler):
    def __init__(self) -> None:
        self.started: list[str] = []

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.started.append(kwargs["name"])


def test_the_choice_adds_no_run_of_its_own() -> None:
    names = Names()
    result = alternatives().invoke("a", {"callbacks": [names], "configurable": {"which": "other"}})
    assert result == "other a"
    assert names.started == ["other"]
