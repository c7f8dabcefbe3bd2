"""Input and output schemas, and `InputType`/`OutputType`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from leanchain.prompts import ChatPromptTemplate, PromptValue
from leanchain.runnables import (
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)


class Question(BaseModel):
    text: str


def ask(q: Question) -> str:
    return q.text


def count(text: str) -> int:
    return len(text)


def test_lambda_schemas_from_hints() -> None:
    lam = RunnableLambda(count)
    assert lam.input_schema.model_json_schema() == {"title": "count_input", "type": "string"}
    assert lam.output_schema.model_json_schema() == {"title": "count_output", "type": "integer"}


def test_a_pydantic_model_input_is_its_own_schema() -> None:
    lam = RunnableLambda(ask)
    assert lam.get_input_schema() is Question
    assert lam.get_input_jsonschema() == Question.model_json_schema()


def test_config_parameter_is_not_the_input() -> None:
    def tagged(x: int, config: RunnableConfig) -> str:
        return str(x)

    assert RunnableLambda(tagged).get_input_jsonschema() == {
        "title": "tagged_input",
        "type": "integer",
    }


def test_sequence_schemas_come_from_its_ends() -> None:
    seq = RunnableLambda(ask) | count | (lambda n: n * 2)
    assert seq.get_input_schema() is Question
    assert seq.get_output_jsonschema() == {"title": "RunnableLambdaOutput"}
    typed = RunnableLambda(ask) | count
    assert typed.get_output_jsonschema() == {"title": "count_output", "type": "integer"}


def test_parallel_output_schema_and_input_from_a_branch() -> None:
    parallel = RunnableParallel(n=count, same=RunnablePassthrough())
    output = parallel.get_output_jsonschema()
    assert output["title"] == "RunnableParallel<n,same>Output"
    assert output["properties"]["n"] == {"title": "N", "type": "integer"}
    keyed = RunnableParallel(q=lambda d: d["question"])
    assert keyed.get_input_jsonschema()["required"] == ["question"]


def test_passthrough_types() -> None:
    assert RunnablePassthrough().InputType is Any
    assert RunnablePassthrough(input_type=int).InputType is int
    assert RunnablePassthrough(input_type=int).get_output_jsonschema() == {
        "title": "RunnablePassthroughOutput",
        "type": "integer",
    }


def test_generator_types_are_unknown_without_a_with_types() -> None:
    def shout(chunks: Iterator[str]) -> Iterator[str]:
        yield from chunks

    gen = RunnableGenerator(shout)
    assert gen.get_input_jsonschema() == {"title": "shout_input"}
    typed = gen.with_types(input_type=str, output_type=str)
    assert typed.get_input_jsonschema() == {"title": "shout_input", "type": "string"}


def test_assign_output_schema_lists_the_mapped_keys() -> None:
    assign = RunnablePassthrough.assign(n=count)
    assert assign.get_output_jsonschema()["properties"] == {"n": {"title": "N", "type": "integer"}}


def test_retry_and_fallbacks_report_the_wrapped_types() -> None:
    lam = RunnableLambda(count)
    assert lam.with_retry().InputType is str
    assert lam.with_retry().OutputType is int
    assert lam.with_fallbacks([lam]).InputType is str
    assert lam.bind(x=1).OutputType is int


class Opaque:
    """A class pydantic knows nothing about."""


def opaque(x: Opaque) -> Opaque:
    return x


def test_a_type_pydantic_cannot_describe_still_makes_a_schema() -> None:
    lam = RunnableLambda(opaque)
    schema = lam.get_input_schema()
    value = Opaque()
    assert schema.model_validate(value).root is value  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        schema.model_validate("not opaque")
    # No JSON schema describes an instance check: any value.
    assert lam.get_input_jsonschema() == {"title": "opaque_input"}
    assert lam.get_output_jsonschema() == {"title": "opaque_output"}


def test_a_prompt_value_output_makes_a_schema() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    assert prompt.OutputType is PromptValue
    value = prompt.invoke({"q": "hi"})
    assert prompt.get_output_schema().model_validate(value).root is value  # type: ignore[attr-defined]
    assert prompt.get_output_jsonschema() == {"title": "ChatPromptTemplateOutput"}
