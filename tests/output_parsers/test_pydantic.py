"""`PydanticOutputParser`: validated instances, its errors, streaming and instructions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from leanchain.errors import OutputParserException
from leanchain.language_models import FakeListChatModel
from leanchain.messages import AIMessage
from leanchain.output_parsers import PydanticOutputParser


class Joke(BaseModel):
    """A joke."""

    setup: str
    punchline: str


def chunks(*parts: Any) -> Iterator[Any]:
    yield from parts


def test_parses_into_the_model() -> None:
    parser = PydanticOutputParser(pydantic_object=Joke)
    text = '```json\n{"setup": "Why?", "punchline": "Because."}\n```'
    assert parser.invoke(text) == Joke(setup="Why?", punchline="Because.")
    assert parser.parse(text) == Joke(setup="Why?", punchline="Because.")
    assert parser.invoke(AIMessage(text)) == Joke(setup="Why?", punchline="Because.")


def test_validation_failure_message() -> None:
    parser = PydanticOutputParser(pydantic_object=Joke)
    with pytest.raises(OutputParserException) as info:
        parser.invoke('{"setup": "é"}')
    try:
        Joke.model_validate({"setup": "é"})
    except ValidationError as error:
        expected_error = str(error)
    assert str(info.value) == (
        f'Failed to parse Joke from completion {{"setup": "é"}}. Got: {expected_error}'
    )
    assert info.value.llm_output == '{"setup": "é"}'
    assert isinstance(info.value.__cause__, ValidationError)


def test_json_that_is_not_an_object() -> None:
    with pytest.raises(
        OutputParserException, match=r"^Failed to parse Joke from completion \[1\]\. Got: "
    ):
        PydanticOutputParser(pydantic_object=Joke).invoke("[1]")


def test_text_that_is_not_json() -> None:
    with pytest.raises(OutputParserException) as info:
        PydanticOutputParser(pydantic_object=Joke).invoke("no json here")
    assert str(info.value) == "Invalid json output: no json here"
    assert info.value.llm_output == "no json here"


def test_partial_parse_result_is_none_until_valid() -> None:
    parser = PydanticOutputParser(pydantic_object=Joke)
    assert parser.parse_result(['{"setup": "a"'], partial=True) is None  # type: ignore[list-item]
    assert parser.parse_result(['{"setup": "a", "punchline": "b'], partial=True) == Joke(  # type: ignore[list-item]
        setup="a", punchline="b"
    )


def test_streams_each_new_valid_instance() -> None:
    parser = PydanticOutputParser(pydantic_object=Joke)
    assert list(parser.transform(chunks('{"setup": "a", ', '"punchline": "b', 'c"}'))) == [
        Joke(setup="a", punchline="b"),
        Joke(setup="a", punchline="bc"),
    ]


def test_a_stream_that_never_validates_raises_like_invoke() -> None:
    parser = PydanticOutputParser(pydantic_object=Joke)
    with pytest.raises(OutputParserException, match=r"^Failed to parse Joke from completion"):
        list(parser.transform(chunks('{"setup": ', '"a"}')))


def test_in_a_chain() -> None:
    chain = FakeListChatModel(responses=['{"setup": "s", "punchline": "p"}']) | (
        PydanticOutputParser(pydantic_object=Joke)
    )
    assert chain.invoke("x") == Joke(setup="s", punchline="p")
    assert list(chain.stream("x"))[-1] == Joke(setup="s", punchline="p")


async def test_async() -> None:
    parser = PydanticOutputParser(pydantic_object=Joke)
    assert await parser.ainvoke('{"setup": "s", "punchline": "p"}') == Joke(
        setup="s", punchline="p"
    )


def test_format_instructions_carry_the_schema() -> None:
    assert PydanticOutputParser(pydantic_object=Joke).get_format_instructions() == (
        "Reply with a single JSON value that conforms to the JSON schema below, and nothing "
        "else: no comments, no explanation. You may wrap it in a ```json code fence.\n\n"
        "JSON schema:\n```json\n"
        '{"description": "A joke.", "properties": {"setup": {"title": "Setup", "type": '
        '"string"}, "punchline": {"title": "Punchline", "type": "string"}}, "required": '
        '["setup", "punchline"]}\n```'
    )


def test_types_and_schema() -> None:
    parser = PydanticOutputParser(Joke)
    assert parser.OutputType is Joke
    assert parser.get_output_schema() is Joke
    assert repr(parser) == "PydanticOutputParser(pydantic_object=Joke)"


@pytest.mark.parametrize("bad", [dict, "Joke", None, Joke(setup="a", punchline="b")])
def test_requires_a_pydantic_model_class(bad: Any) -> None:
    with pytest.raises(TypeError, match=r"^pydantic_object must be a pydantic BaseModel subclass"):
        PydanticOutputParser(pydantic_object=bad)
