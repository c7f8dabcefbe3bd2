"""ChatOpenAI.with_structured_output(method="json_mode"): the exact request (no schema, the
prompt as given), the exact values parsed from the reply text with and without a schema,
errors, include_raw, sync/async/stream."""

from __future__ import annotations

from typing import Any

import pytest
from providers_support import last_body, openai
from pydantic import BaseModel, ValidationError
from typing_extensions import TypedDict

from leanchain.errors import OutputParserException
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, HumanMessage, SystemMessage
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply

META = {
    "model_provider": "openai",
    "model_name": "gpt-fake",
    "system_fingerprint": "fp_fake",
    "finish_reason": "stop",
    "service_tier": "default",
}
USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "total_tokens": 15,
    "input_token_details": {"audio": 0, "cache_read": 0},
    "output_token_details": {"audio": 0, "reasoning": 0},
}
PROMPT = "Ann Lee is 30. Answer in JSON with the keys name and age."
JSON_OBJECT_BODY = {
    "model": "gpt-fake",
    "messages": [{"role": "user", "content": PROMPT}],
    "response_format": {"type": "json_object"},
}
ANN = '{"name": "Ann Lee", "age": 30}'
REFUSAL = "I'm sorry, I can't help with that."


class Person(BaseModel):
    """A person."""

    name: str
    age: int


class PersonDict(TypedDict):
    """A person, as a dict."""

    name: str
    age: int


PERSON_SCHEMA: dict[str, Any] = {
    "title": "person",
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}


# -- requests and parsed values ---------------------------------------------------------------


def test_pydantic_schema_is_not_sent_and_gives_an_instance(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text=ANN))
    structured = openai_model.with_structured_output(Person, method="json_mode")
    assert structured.invoke(PROMPT) == Person(name="Ann Lee", age=30)
    assert last_body(server) == JSON_OBJECT_BODY


def test_typed_dict_gives_a_validated_dict(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text='{"name": "Ann Lee", "age": "30"}'))
    structured = openai_model.with_structured_output(PersonDict, method="json_mode")
    assert structured.invoke(PROMPT) == {"name": "Ann Lee", "age": 30}
    assert last_body(server) == JSON_OBJECT_BODY


@pytest.mark.parametrize("schema", [PERSON_SCHEMA, {"type": "object"}])
def test_json_schema_dict_gives_the_json_value(
    server: FakeProviderServer, openai_model: ChatOpenAI, schema: dict[str, Any]
) -> None:
    server.enqueue(ScriptedReply(text='{"name": "Ann Lee", "age": "30", "extra": [1]}'))
    structured = openai_model.with_structured_output(schema, method="json_mode")
    # A JSON schema is neither sent nor validated: the value is what the model sent.
    assert structured.invoke(PROMPT) == {"name": "Ann Lee", "age": "30", "extra": [1]}
    assert last_body(server) == JSON_OBJECT_BODY


def test_no_schema_gives_the_parsed_json(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    text = '{"name": "Ann Lee", "tags": ["a", null], "score": 1.5, "ok": true}'
    server.enqueue(ScriptedReply(text=text), ScriptedReply(text=text))
    value = {"name": "Ann Lee", "tags": ["a", None], "score": 1.5, "ok": True}
    assert openai_model.with_structured_output(method="json_mode").invoke(PROMPT) == value
    assert openai_model.with_structured_output(None, method="json_mode").invoke(PROMPT) == value
    assert [request.body for request in server.requests] == [JSON_OBJECT_BODY] * 2


def test_the_prompt_is_sent_as_given_with_the_model_settings(server: FakeProviderServer) -> None:
    # No instructions are added: asking for JSON is the prompt's job, as in LangChain.
    model = openai(server, temperature=0.0, seed=7, stop=["END"])
    server.enqueue(ScriptedReply(text=ANN))
    structured = model.with_structured_output(Person, method="json_mode")
    messages = [SystemMessage("Reply with a JSON object."), HumanMessage("Ann Lee is 30.")]
    assert structured.invoke(messages) == Person(name="Ann Lee", age=30)
    assert last_body(server) == {
        "model": "gpt-fake",
        "messages": [
            {"role": "system", "content": "Reply with a JSON object."},
            {"role": "user", "content": "Ann Lee is 30."},
        ],
        "temperature": 0.0,
        "seed": 7,
        "stop": ["END"],
        "response_format": {"type": "json_object"},
    }


# -- include_raw and errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "parsed"),
    [(Person, Person(name="Ann Lee", age=30)), (None, {"name": "Ann Lee", "age": 30})],
)
def test_include_raw_success(
    server: FakeProviderServer, openai_model: ChatOpenAI, schema: Any, parsed: Any
) -> None:
    server.enqueue(ScriptedReply(text=ANN))
    structured = openai_model.with_structured_output(schema, method="json_mode", include_raw=True)
    assert structured.invoke(PROMPT) == {
        "raw": AIMessage(ANN, response_metadata=META, id="chatcmpl-fake1", usage_metadata=USAGE),
        "parsed": parsed,
        "parsing_error": None,
    }


@pytest.mark.parametrize("schema", [Person, PersonDict, PERSON_SCHEMA, None])
def test_malformed_json_reply(
    server: FakeProviderServer, openai_model: ChatOpenAI, schema: Any
) -> None:
    text = '{"name": "Ann Lee", "age": 30'  # cut off, e.g. by max_tokens
    server.enqueue(ScriptedReply(text=text, finish_reason="length"))
    structured = openai_model.with_structured_output(schema, method="json_mode")
    with pytest.raises(OutputParserException) as caught:
        structured.invoke(PROMPT)
    assert str(caught.value) == f"Invalid json output: {text}"
    assert caught.value.llm_output == text


def test_fenced_json_is_not_repaired(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    text = f"```json\n{ANN}\n```"
    server.enqueue(ScriptedReply(text=text))
    structured = openai_model.with_structured_output(method="json_mode")
    with pytest.raises(OutputParserException) as caught:
        structured.invoke(PROMPT)
    assert str(caught.value) == f"Invalid json output: {text}"


def test_malformed_json_reply_with_include_raw(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="Ann Lee, 30"))
    structured = openai_model.with_structured_output(method="json_mode", include_raw=True)
    result = structured.invoke(PROMPT)
    assert set(result) == {"raw", "parsed", "parsing_error"}
    assert result["raw"].content == "Ann Lee, 30"
    assert result["parsed"] is None
    error = result["parsing_error"]
    assert type(error) is OutputParserException
    assert str(error) == "Invalid json output: Ann Lee, 30"


def test_json_that_does_not_validate(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    text = '{"name": "Ann Lee"}'
    server.enqueue(ScriptedReply(text=text))
    structured = openai_model.with_structured_output(Person, method="json_mode")
    with pytest.raises(OutputParserException) as caught:
        structured.invoke(PROMPT)
    with pytest.raises(ValidationError) as pydantic_error:
        Person.model_validate({"name": "Ann Lee"})
    assert str(caught.value) == (
        f"Failed to parse Person from completion {text}. Got: {pydantic_error.value}"
    )
    assert caught.value.llm_output == text


@pytest.mark.parametrize(("schema", "name"), [(PersonDict, "PersonDict"), (None, "JSON")])
def test_refusal_raises(
    server: FakeProviderServer, openai_model: ChatOpenAI, schema: Any, name: str
) -> None:
    server.enqueue(ScriptedReply(refusal=REFUSAL))
    structured = openai_model.with_structured_output(schema, method="json_mode")
    with pytest.raises(OutputParserException) as caught:
        structured.invoke(PROMPT)
    assert str(caught.value) == (
        f"The model refused to answer with {name}: \"I'm sorry, I can't help with that.\""
    )
    assert caught.value.llm_output == REFUSAL


# -- sync, async, stream ----------------------------------------------------------------------


def test_stream_yields_the_parsed_value_once(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text=ANN, chunk_size=3), ScriptedReply(text=ANN, chunk_size=5))
    structured = openai_model.with_structured_output(Person, method="json_mode")
    assert list(structured.stream(PROMPT)) == [Person(name="Ann Lee", age=30)]
    assert last_body(server) == {
        **JSON_OBJECT_BODY,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    raw = openai_model.with_structured_output(method="json_mode", include_raw=True)
    [result] = list(raw.stream(PROMPT))
    assert (result["raw"].content, result["parsed"], result["parsing_error"]) == (
        ANN,
        {"name": "Ann Lee", "age": 30},
        None,
    )


async def test_ainvoke_and_astream(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(text=ANN), ScriptedReply(text=ANN, chunk_size=4))
    structured = openai_model.with_structured_output(PersonDict, method="json_mode")
    assert await structured.ainvoke(PROMPT) == {"name": "Ann Lee", "age": 30}
    assert [value async for value in structured.astream(PROMPT)] == [{"name": "Ann Lee", "age": 30}]
    assert [request.body.get("response_format") for request in server.requests] == [
        {"type": "json_object"}
    ] * 2


async def test_async_bad_json(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(text="{]"), ScriptedReply(text="{]", chunk_size=1))
    structured = openai_model.with_structured_output(method="json_mode")
    with pytest.raises(OutputParserException, match=r"^Invalid json output: \{\]$"):
        await structured.ainvoke(PROMPT)
    with pytest.raises(OutputParserException, match=r"^Invalid json output: \{\]$"):
        [value async for value in structured.astream(PROMPT)]


# -- arguments --------------------------------------------------------------------------------


@pytest.mark.parametrize("strict", [True, False])
def test_strict_is_refused(openai_model: ChatOpenAI, strict: bool) -> None:
    for schema in (Person, None):
        with pytest.raises(
            ValueError,
            match=(
                r"^strict is not applied with method='json_mode': it sends no schema to adhere "
                r"to; use method='json_schema' instead$"
            ),
        ):
            openai_model.with_structured_output(schema, method="json_mode", strict=strict)


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_only_json_mode_takes_no_schema(openai_model: ChatOpenAI, method: str) -> None:
    with pytest.raises(
        ValueError,
        match=(
            rf"^with_structured_output needs a schema for method='{method}': only "
            r"method='json_mode' takes schema=None$"
        ),
    ):
        openai_model.with_structured_output(method=method)


def test_bad_schema_and_arguments(openai_model: ChatOpenAI) -> None:
    with pytest.raises(
        ValueError,
        match=(
            r"^with_structured_output takes a pydantic model class, a TypedDict class or a "
            r"JSON schema dict, got <class 'int'>$"
        ),
    ):
        openai_model.with_structured_output(int, method="json_mode")
    with pytest.raises(ValueError, match=r"^Received unsupported arguments \{'tools': \[\]\}$"):
        openai_model.with_structured_output(method="json_mode", tools=[])


def test_other_models_keep_their_error(anthropic_model: ChatAnthropic) -> None:
    for model in (anthropic_model, ScriptedChatModel([])):
        with pytest.raises(
            ValueError,
            match=(
                rf"^Unsupported method 'json_mode' for {type(model).__name__}\."
                r"with_structured_output; expected 'function_calling'$"
            ),
        ):
            model.with_structured_output(Person, method="json_mode")
