"""`PromptTemplate`: variables, formatting, partials, `+`, invoke and its errors."""

from __future__ import annotations

from itertools import count
from typing import Any
from uuid import UUID

import pytest

from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import MissingPromptVariablesError, TemplateValidationError
from leanchain.messages import HumanMessage
from leanchain.prompts import PromptTemplate, StringPromptValue
from leanchain.runnables import RunnableLambda


def test_from_template_derives_sorted_variables() -> None:
    prompt = PromptTemplate.from_template("Tell me about {topic} in {lang}")
    assert prompt.input_variables == ["lang", "topic"]
    assert prompt.optional_variables == []
    assert prompt.partial_variables == {}
    assert prompt.template == "Tell me about {topic} in {lang}"
    assert prompt.template_format == "f-string"


def test_declared_input_variables_are_recomputed_from_the_template() -> None:
    prompt = PromptTemplate(template="{a}{c}", input_variables=["a", "b"])
    assert prompt.input_variables == ["a", "c"]


def test_validate_template_checks_declared_variables() -> None:
    with pytest.raises(ValueError) as info:
        PromptTemplate("{a} {c}", input_variables=["a", "b"], validate_template=True)
    assert str(info.value) == (
        "Invalid prompt schema; check for mismatched or missing input parameters from ['a', 'b']."
    )
    ok = PromptTemplate("{a}", input_variables=["a", "unused"], validate_template=True)
    assert ok.input_variables == ["a"]
    with_partial = PromptTemplate(
        "{a}{p}", input_variables=["a"], partial_variables={"p": "!"}, validate_template=True
    )
    assert with_partial.format(a=1) == "1!"


def test_validate_template_needs_input_variables() -> None:
    with pytest.raises(ValueError, match=r"^Input variables must be provided to validate"):
        PromptTemplate("{a}", validate_template=True)


@pytest.mark.parametrize("fmt", ["mustache", "jinja2", "F-STRING"])
def test_only_f_strings_are_supported(fmt: str) -> None:
    with pytest.raises(TemplateValidationError) as info:
        PromptTemplate.from_template("{{x}}", template_format=fmt)
    assert str(info.value) == (
        f"Unsupported template format {fmt!r}: leanchain supports 'f-string' templates only."
    )


def test_format_and_escapes() -> None:
    prompt = PromptTemplate.from_template("{{literal}} {x}")
    assert prompt.input_variables == ["x"]
    assert prompt.format(x=1) == "{literal} 1"


def test_format_prompt_returns_a_string_prompt_value() -> None:
    value = PromptTemplate.from_template("Hi {name}").format_prompt(name="Bo")
    assert value == StringPromptValue("Hi Bo")
    assert value.to_messages() == [HumanMessage("Hi Bo")]


def test_invoke_returns_a_string_prompt_value() -> None:
    value = PromptTemplate.from_template("Hi {name}").invoke({"name": "Bo", "extra": 1})
    assert isinstance(value, StringPromptValue)
    assert value.to_string() == "Hi Bo"
    assert value.text == "Hi Bo"


def test_invoke_wraps_a_non_dict_when_there_is_one_variable() -> None:
    assert PromptTemplate.from_template("Hi {name}").invoke("solo").to_string() == "Hi solo"  # type: ignore[arg-type]


def test_invoke_rejects_a_non_dict_with_several_variables() -> None:
    with pytest.raises(TypeError) as info:
        PromptTemplate.from_template("{a}{b}").invoke("x")  # type: ignore[arg-type]
    assert str(info.value) == (
        "Expected mapping type as input to PromptTemplate. Received <class 'str'>."
    )


def test_invoke_rejects_a_non_dict_with_no_variables() -> None:
    with pytest.raises(TypeError, match=r"^Expected mapping type as input to PromptTemplate"):
        PromptTemplate.from_template("static").invoke("x")  # type: ignore[arg-type]


def test_invoke_with_a_missing_variable() -> None:
    prompt = PromptTemplate.from_template("{name} is {age}")
    with pytest.raises(MissingPromptVariablesError) as info:
        prompt.invoke({"name": "Bo"})
    assert str(info.value) == (
        "Input to PromptTemplate is missing variables {'age'}.  Expected: ['age', 'name'] "
        "Received: ['name']\nNote: if you intended {age} to be part of the string and not a "
        "variable, please escape it with double curly braces like: '{{age}}'."
    )
    assert isinstance(info.value, KeyError)


def test_format_with_a_missing_variable_has_the_same_message() -> None:
    with pytest.raises(MissingPromptVariablesError) as info:
        PromptTemplate.from_template("{a}{b}").format(a=1)
    assert str(info.value) == (
        "Input to PromptTemplate is missing variables {'b'}.  Expected: ['a', 'b'] "
        "Received: ['a']\nNote: if you intended {b} to be part of the string and not a "
        "variable, please escape it with double curly braces like: '{{b}}'."
    )


def test_several_missing_variables_are_listed_sorted() -> None:
    with pytest.raises(MissingPromptVariablesError) as info:
        PromptTemplate.from_template("{c}{a}{b}").invoke({})
    assert str(info.value).startswith(
        "Input to PromptTemplate is missing variables {'a', 'b', 'c'}.  Expected: "
        "['a', 'b', 'c'] Received: []\nNote: if you intended {a} to be"
    )


# -- partials --------------------------------------------------------------------------------


def test_partial_moves_variables_out_of_input_variables() -> None:
    prompt = PromptTemplate.from_template("{greeting}, {name}!")
    partial = prompt.partial(greeting="Hello")
    assert partial.input_variables == ["name"]
    assert partial.partial_variables == {"greeting": "Hello"}
    assert partial.format(name="Bo") == "Hello, Bo!"
    assert partial.invoke("Bo").to_string() == "Hello, Bo!"  # type: ignore[arg-type]
    assert prompt.input_variables == ["greeting", "name"]  # the original is unchanged


def test_partial_callables_are_called_at_each_format() -> None:
    ticks = count()
    prompt = PromptTemplate.from_template("t={t}").partial(t=lambda: f"NOW{next(ticks)}")
    assert prompt.format() == "t=NOW0"
    assert prompt.invoke({}).to_string() == "t=NOW1"


def test_user_values_override_partials() -> None:
    prompt = PromptTemplate.from_template("{a}").partial(a="partial")
    assert prompt.format(a="given") == "given"


def test_partials_given_at_construction() -> None:
    prompt = PromptTemplate.from_template("{a} {b}", partial_variables={"b": "B"})
    assert prompt.input_variables == ["a"]
    assert prompt.format(a="A") == "A B"


def test_partial_of_a_partial_accumulates() -> None:
    prompt = PromptTemplate.from_template("{a}{b}{c}").partial(a="1").partial(b="2")
    assert prompt.input_variables == ["c"]
    assert prompt.partial_variables == {"a": "1", "b": "2"}
    assert prompt.format(c="3") == "123"


def test_exposed_collections_are_copies() -> None:
    prompt = PromptTemplate.from_template("{a}{b}").partial(b="B")
    prompt.input_variables.append("zzz")
    prompt.partial_variables["b"] = "changed"
    assert prompt.input_variables == ["a"]
    assert prompt.format(a="A") == "AB"


# -- + ---------------------------------------------------------------------------------------


def test_adding_templates_concatenates_and_unions_variables() -> None:
    combined = PromptTemplate.from_template("{a} and ") + PromptTemplate.from_template("{b}")
    assert combined.template == "{a} and {b}"
    assert combined.input_variables == ["a", "b"]
    assert combined.format(a=1, b=2) == "1 and 2"


def test_adding_a_string() -> None:
    combined = PromptTemplate.from_template("{a}") + " then {{b}} {c}"
    assert combined.input_variables == ["a", "c"]
    assert combined.format(a=1, c=3) == "1 then {b} 3"


def test_adding_keeps_partials_and_rejects_the_same_partial_twice() -> None:
    left = PromptTemplate.from_template("{a}").partial(a="A")
    right = PromptTemplate.from_template("{b}").partial(b="B")
    assert (left + right).format() == "AB"
    with pytest.raises(ValueError, match=r"^Cannot have same variable partialed twice\.$"):
        left + left.partial(a="again")


def test_adding_something_else_is_not_implemented() -> None:
    with pytest.raises(NotImplementedError) as info:
        PromptTemplate.from_template("{a}") + 3  # type: ignore[operator]
    assert str(info.value) == "Unsupported operand type for +: <class 'int'>"


def test_adding_a_bad_string_is_rejected() -> None:
    with pytest.raises(TemplateValidationError):
        PromptTemplate.from_template("{a}") + "{b.__class__}"


# -- identity, schema, runnable --------------------------------------------------------------


def test_equality_and_repr() -> None:
    one = PromptTemplate.from_template("Hi {name}")
    assert one == PromptTemplate.from_template("Hi {name}")
    assert one != PromptTemplate.from_template("Hi {other}")
    assert one != one.partial(name="x")
    assert hash(one) == hash(PromptTemplate.from_template("Hi {name}"))
    assert repr(one) == "PromptTemplate(input_variables=['name'], template='Hi {name}')"
    assert repr(one.partial(name="x")) == (
        "PromptTemplate(input_variables=[], partial_variables={'name': 'x'}, template='Hi {name}')"
    )


def test_input_schema() -> None:
    prompt = PromptTemplate.from_template("{topic} in {lang}")
    assert prompt.get_input_jsonschema() == {
        "properties": {
            "lang": {"title": "Lang", "type": "string"},
            "topic": {"title": "Topic", "type": "string"},
        },
        "required": ["lang", "topic"],
        "title": "PromptInput",
        "type": "object",
    }
    assert prompt.input_schema.__name__ == "PromptInput"


def test_input_schema_with_unusual_names() -> None:
    prompt = PromptTemplate.from_template("{_x} {json} {user-name}")
    schema = prompt.get_input_jsonschema()
    assert schema["required"] == ["_x", "json", "user-name"]
    assert list(schema["properties"]) == ["_x", "json", "user-name"]


def test_a_prompt_is_a_runnable_with_run_type_prompt() -> None:
    seen: list[tuple[str, Any]] = []

    class Handler(BaseCallbackHandler):
        def on_chain_start(
            self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any
        ) -> None:
            seen.append(("start", (kwargs.get("name"), kwargs.get("run_type"), inputs)))

        def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
            seen.append(("end", outputs))

    prompt = PromptTemplate.from_template("Hi {name}")
    assert prompt.get_name() == "PromptTemplate"
    prompt.invoke({"name": "Bo"}, {"callbacks": [Handler()]})
    assert seen == [
        ("start", ("PromptTemplate", "prompt", {"name": "Bo"})),
        ("end", StringPromptValue("Hi Bo")),
    ]


def test_errors_are_reported_to_callbacks() -> None:
    errors: list[BaseException] = []

    class Handler(BaseCallbackHandler):
        def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
            errors.append(error)

    with pytest.raises(MissingPromptVariablesError):
        PromptTemplate.from_template("{a}{b}").invoke({}, {"callbacks": [Handler()]})
    assert [type(e) for e in errors] == [MissingPromptVariablesError]


async def test_ainvoke() -> None:
    value = await PromptTemplate.from_template("Hi {name}").ainvoke({"name": "Bo"})
    assert value == StringPromptValue("Hi Bo")


def test_batch_and_composition() -> None:
    prompt = PromptTemplate.from_template("Hi {name}")
    assert prompt.batch([{"name": "a"}, {"name": "b"}]) == [
        StringPromptValue("Hi a"),
        StringPromptValue("Hi b"),
    ]
    chain = prompt | RunnableLambda(lambda v: v.to_string().upper())
    assert chain.invoke({"name": "bo"}) == "HI BO"
