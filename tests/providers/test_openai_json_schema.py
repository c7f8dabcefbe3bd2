"""ChatOpenAI.with_structured_output(method="json_schema"): the exact response_format sent, the
exact values parsed from the reply text, refusals, errors, include_raw, sync/async/stream."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from providers_support import last_body, openai
from pydantic import BaseModel, Field, ValidationError
from typing_extensions import TypedDict

from leanchain.errors import OutputParserException
from leanchain.language_models import ScriptedChatModel
from leanchain.language_models._structured import JsonReplyOutputParser
from leanchain.messages import AIMessage, AIMessageChunk
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall

META = {
    "model_provider": "openai",
    "model_name": "gpt-fake",
    "system_fingerprint": "fp_fake",
    "finish_reason": "stop",
}
USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "total_tokens": 15,
    "input_token_details": {"audio": 0, "cache_read": 0},
    "output_token_details": {"audio": 0, "reasoning": 0},
}
MESSAGES = [{"role": "user", "content": "Ann Lee is 30."}]
ANN = '{"name": "Ann Lee", "age": 30}'
REFUSAL = "I'm sorry, I can't help with that."


class Address(BaseModel):
    city: str


class Person(BaseModel):
    """A person."""

    name: str = Field(description="Their full name")
    age: int
    nickname: str | None = None


class Resident(BaseModel):
    """Someone and where they live."""

    person: Person
    address: Address


class PersonDict(TypedDict):
    """A person, as a dict."""

    name: str
    age: int


PERSON_SCHEMA: dict[str, Any] = {
    "title": "person",
    "description": "A person.",
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}
PERSON_PROPERTIES = {
    "name": {"description": "Their full name", "type": "string"},
    "age": {"type": "integer"},
    "nickname": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
}


def _response_format(body: dict[str, Any]) -> Any:
    assert set(body) == {"model", "messages", "response_format"}
    assert body["model"] == "gpt-fake"
    assert body["messages"] == MESSAGES
    return body["response_format"]


# -- requests and parsed values ---------------------------------------------------------------


def test_pydantic_schema_request_and_instance(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text=ANN))
    structured = openai_model.with_structured_output(Person, method="json_schema")
    assert structured.invoke("Ann Lee is 30.") == Person(name="Ann Lee", age=30)
    assert _response_format(last_body(server)) == {
        "type": "json_schema",
        "json_schema": {
            "name": "Person",
            "description": "A person.",
            "schema": {
                "properties": PERSON_PROPERTIES,
                "required": ["name", "age"],
                "type": "object",
            },
        },
    }


def test_strict_rewrites_the_schema_at_every_level(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(
        ScriptedReply(
            text='{"person": {"name": "Ann", "age": 3, "nickname": null},'
            ' "address": {"city": "Oslo"}}'
        )
    )
    structured = openai_model.with_structured_output(Resident, method="json_schema", strict=True)
    assert structured.invoke("Ann Lee is 30.") == Resident(
        person=Person(name="Ann", age=3), address=Address(city="Oslo")
    )
    strict_person = {
        "description": "A person.",
        "properties": {
            "name": {"description": "Their full name", "type": "string"},
            "age": {"type": "integer"},
            "nickname": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["name", "age", "nickname"],
        "type": "object",
        "additionalProperties": False,
    }
    assert _response_format(last_body(server)) == {
        "type": "json_schema",
        "json_schema": {
            "name": "Resident",
            "description": "Someone and where they live.",
            "schema": {
                "properties": {
                    "person": strict_person,
                    "address": {
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                        "type": "object",
                        "additionalProperties": False,
                    },
                },
                "required": ["person", "address"],
                "type": "object",
                "additionalProperties": False,
            },
            "strict": True,
        },
    }


def test_typed_dict_gives_a_validated_dict(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text='{"name": "Ann Lee", "age": "30"}'))
    structured = openai_model.with_structured_output(PersonDict, method="json_schema")
    assert structured.invoke("Ann Lee is 30.") == {"name": "Ann Lee", "age": 30}
    assert _response_format(last_body(server)) == {
        "type": "json_schema",
        "json_schema": {
            "name": "PersonDict",
            "description": "A person, as a dict.",
            "schema": {
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                "required": ["name", "age"],
                "type": "object",
            },
        },
    }


def test_json_schema_dict_gives_the_json_value_and_strict_false_is_sent(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text='{"name": "Ann Lee", "age": "30", "extra": [1]}'))
    structured = openai_model.with_structured_output(
        PERSON_SCHEMA, method="json_schema", strict=False
    )
    # A JSON schema is not validated here: the value is what the model sent.
    assert structured.invoke("Ann Lee is 30.") == {"name": "Ann Lee", "age": "30", "extra": [1]}
    assert _response_format(last_body(server)) == {
        "type": "json_schema",
        "json_schema": {
            "name": "person",
            "description": "A person.",
            "schema": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                "required": ["name", "age"],
            },
            "strict": False,
        },
    }


@pytest.mark.parametrize(
    "ready",
    [
        {"type": "json_schema", "json_schema": {"name": "p", "schema": {"type": "object"}}},
        {"name": "p", "schema": {"type": "object"}},
    ],
)
def test_ready_made_response_format_is_sent_as_given(
    server: FakeProviderServer, openai_model: ChatOpenAI, ready: dict[str, Any]
) -> None:
    server.enqueue(ScriptedReply(text='{"a": 1}'))
    structured = openai_model.with_structured_output(ready, method="json_schema")
    assert structured.invoke("Ann Lee is 30.") == {"a": 1}
    assert _response_format(last_body(server)) == {
        "type": "json_schema",
        "json_schema": {"name": "p", "schema": {"type": "object"}},
    }
    with pytest.raises(
        ValueError,
        match=(
            r"^strict is not applied to a ready-made response_format: set "
            r"json_schema\['strict'\] in it instead$"
        ),
    ):
        openai_model.with_structured_output(ready, method="json_schema", strict=True)


def test_model_settings_go_with_the_response_format(server: FakeProviderServer) -> None:
    model = openai(server, temperature=0.0, seed=7, stop=["END"])
    server.enqueue(ScriptedReply(text=ANN))
    model.with_structured_output(PERSON_SCHEMA, method="json_schema").invoke("Ann Lee is 30.")
    assert last_body(server) == {
        "model": "gpt-fake",
        "messages": MESSAGES,
        "temperature": 0.0,
        "seed": 7,
        "stop": ["END"],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "person",
                "description": "A person.",
                "schema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                    "required": ["name", "age"],
                },
            },
        },
    }


def test_function_calling_stays_the_default_and_takes_strict(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(
        ScriptedReply(tool_calls=[ScriptedToolCall("PersonDict", {"name": "Ann", "age": 3})])
    )
    structured = openai_model.with_structured_output(PersonDict, strict=True)
    assert structured.invoke("Ann Lee is 30.") == {"name": "Ann", "age": 3}
    body = last_body(server)
    assert "response_format" not in body
    # As LangChain: the tool named and one call only ("required" is not known everywhere).
    assert body["tool_choice"] == {"type": "function", "function": {"name": "PersonDict"}}
    assert body["parallel_tool_calls"] is False
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "PersonDict",
                "description": "A person, as a dict.",
                "parameters": {
                    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                    "required": ["name", "age"],
                    "type": "object",
                    "additionalProperties": False,
                },
                "strict": True,
            },
        }
    ]


# -- include_raw and errors -------------------------------------------------------------------


def test_include_raw_success(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(text=ANN))
    structured = openai_model.with_structured_output(Person, method="json_schema", include_raw=True)
    assert structured.invoke("Ann Lee is 30.") == {
        "raw": AIMessage(
            ANN,
            response_metadata={**META, "service_tier": "default"},
            id="chatcmpl-fake1",
            usage_metadata=USAGE,
        ),
        "parsed": Person(name="Ann Lee", age=30),
        "parsing_error": None,
    }


def test_malformed_json_reply(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    text = '{"name": "Ann Lee", "age": 30'  # cut off, e.g. by max_tokens
    server.enqueue(ScriptedReply(text=text, finish_reason="length"))
    structured = openai_model.with_structured_output(Person, method="json_schema")
    with pytest.raises(OutputParserException) as caught:
        structured.invoke("Ann Lee is 30.")
    assert str(caught.value) == f"Invalid json output: {text}"
    assert caught.value.llm_output == text


def test_malformed_json_reply_with_include_raw(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="Ann Lee, 30"))
    structured = openai_model.with_structured_output(
        PersonDict, method="json_schema", include_raw=True
    )
    result = structured.invoke("Ann Lee is 30.")
    assert set(result) == {"raw", "parsed", "parsing_error"}
    assert result["raw"].content == "Ann Lee, 30"
    assert result["parsed"] is None
    error = result["parsing_error"]
    assert type(error) is OutputParserException
    assert str(error) == "Invalid json output: Ann Lee, 30"


def test_json_that_does_not_validate(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    text = '{"name": "Ann Lee"}'
    server.enqueue(ScriptedReply(text=text))
    structured = openai_model.with_structured_output(Person, method="json_schema")
    with pytest.raises(OutputParserException) as caught:
        structured.invoke("Ann Lee is 30.")
    with pytest.raises(ValidationError) as pydantic_error:
        Person.model_validate({"name": "Ann Lee"})
    assert str(caught.value) == (
        f"Failed to parse Person from completion {text}. Got: {pydantic_error.value}"
    )
    assert caught.value.llm_output == text


# -- refusals ---------------------------------------------------------------------------------


def test_refusal_is_on_the_message(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(refusal=REFUSAL))
    assert openai_model.invoke("Ann Lee is 30.") == AIMessage(
        "",
        additional_kwargs={"refusal": REFUSAL},
        response_metadata={**META, "service_tier": "default"},
        id="chatcmpl-fake1",
        usage_metadata=USAGE,
    )


def test_refusal_streams_in_pieces(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(refusal=REFUSAL, chunk_size=16))
    chunks = list(openai_model.stream("Ann Lee is 30."))
    assert chunks == [
        AIMessageChunk("", additional_kwargs={"refusal": "I'm sorry, I can"}, id="chatcmpl-fake1"),
        AIMessageChunk("", additional_kwargs={"refusal": "'t help with tha"}, id="chatcmpl-fake1"),
        AIMessageChunk("", additional_kwargs={"refusal": "t."}, id="chatcmpl-fake1"),
        AIMessageChunk(
            "",
            response_metadata=META,
            id="chatcmpl-fake1",
            usage_metadata=USAGE,
            chunk_position="last",
        ),
    ]
    assert (chunks[0] + chunks[1:]).additional_kwargs == {"refusal": REFUSAL}


@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
def test_refusal_raises(server: FakeProviderServer, openai_model: ChatOpenAI, method: str) -> None:
    server.enqueue(ScriptedReply(refusal=REFUSAL))
    structured = openai_model.with_structured_output(Person, method=method)
    with pytest.raises(OutputParserException) as caught:
        structured.invoke("Ann Lee is 30.")
    assert str(caught.value) == (
        "The model refused to answer with Person: \"I'm sorry, I can't help with that.\""
    )
    assert caught.value.llm_output == REFUSAL


def test_refusal_with_include_raw_streamed(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(refusal=REFUSAL, chunk_size=5))
    structured = openai_model.with_structured_output(
        PersonDict, method="json_schema", include_raw=True
    )
    [result] = list(structured.stream("Ann Lee is 30."))
    assert result["raw"].additional_kwargs == {"refusal": REFUSAL}
    assert result["parsed"] is None
    assert type(result["parsing_error"]) is OutputParserException
    assert str(result["parsing_error"]) == (
        "The model refused to answer with PersonDict: \"I'm sorry, I can't help with that.\""
    )


def test_fake_server_refusal_rules(server: FakeProviderServer) -> None:
    with pytest.raises(
        ValueError,
        match=r"^A refusal is an answer of its own: give it without text or tool_calls$",
    ):
        ScriptedReply(text="x", refusal=REFUSAL)
    with pytest.raises(ValueError, match=r"^A refusal is an answer of its own"):
        ScriptedReply(tool_calls=[ScriptedToolCall("f")], refusal=REFUSAL)


def test_fake_server_refusal_in_anthropic_form(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(refusal=REFUSAL), ScriptedReply(refusal=REFUSAL, chunk_size=20))
    message = anthropic_model.invoke("Ann Lee is 30.")
    assert (message.content, message.response_metadata["stop_reason"]) == (REFUSAL, "refusal")
    chunks = list(anthropic_model.stream("Ann Lee is 30."))
    whole = chunks[0] + chunks[1:]
    assert (whole.text, whole.response_metadata["stop_reason"]) == (REFUSAL, "refusal")


# -- sync, async, stream ----------------------------------------------------------------------


def test_stream_yields_the_parsed_value_once(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    # As with function_calling: the reply is parsed once, when it is complete.
    server.enqueue(ScriptedReply(text=ANN, chunk_size=3))
    structured = openai_model.with_structured_output(Person, method="json_schema")
    assert list(structured.stream("Ann Lee is 30.")) == [Person(name="Ann Lee", age=30)]
    assert last_body(server)["stream"] is True
    assert last_body(server)["response_format"]["json_schema"]["name"] == "Person"


async def test_ainvoke_and_astream(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(text=ANN), ScriptedReply(text=ANN, chunk_size=4))
    structured = openai_model.with_structured_output(PersonDict, method="json_schema")
    assert await structured.ainvoke("Ann Lee is 30.") == {"name": "Ann Lee", "age": 30}
    assert [value async for value in structured.astream("Ann Lee is 30.")] == [
        {"name": "Ann Lee", "age": 30}
    ]
    assert [request.body["response_format"] for request in server.requests] == [
        last_body(server)["response_format"]
    ] * 2


async def test_async_refusal_and_bad_json(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(refusal=REFUSAL), ScriptedReply(text="{]", chunk_size=1))
    structured = openai_model.with_structured_output(Person, method="json_schema")
    with pytest.raises(OutputParserException, match=r"^The model refused to answer with Person"):
        await structured.ainvoke("Ann Lee is 30.")
    with pytest.raises(OutputParserException, match=r"^Invalid json output: \{\]$"):
        [value async for value in structured.astream("Ann Lee is 30.")]


# -- methods and arguments --------------------------------------------------------------------


def test_unknown_method_and_arguments(openai_model: ChatOpenAI) -> None:
    with pytest.raises(
        ValueError,
        match=(
            r"^Unsupported method 'xml' for ChatOpenAI\.with_structured_output; "
            r"expected 'function_calling', 'json_schema' or 'json_mode'$"
        ),
    ):
        openai_model.with_structured_output(Person, method="xml")
    with pytest.raises(ValueError, match=r"^Received unsupported arguments \{'tools': \[\]\}$"):
        openai_model.with_structured_output(Person, method="json_schema", tools=[])
    with pytest.raises(ValueError, match=r"^with_structured_output takes a pydantic model class"):
        openai_model.with_structured_output(int, method="json_schema")


def test_models_without_json_schema_keep_their_error(anthropic_model: ChatAnthropic) -> None:
    for model in (anthropic_model, ScriptedChatModel([])):
        with pytest.raises(
            ValueError,
            match=(
                rf"^Unsupported method 'json_schema' for {type(model).__name__}\."
                r"with_structured_output; expected 'function_calling'$"
            ),
        ):
            model.with_structured_output(Person, method="json_schema")


# -- the parser on its own (property) ---------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(JSON_VALUES)
def test_parser_reads_back_any_json(value: Any) -> None:
    parser = JsonReplyOutputParser("Anything")
    assert parser.parse(AIMessage(json.dumps(value))) == value


@given(st.text())
def test_parser_gives_a_value_or_an_output_parser_exception(text: str) -> None:
    parser = JsonReplyOutputParser("Person", Person.model_validate, include_raw=True)
    result = parser.invoke(AIMessage(text))
    assert set(result) == {"raw", "parsed", "parsing_error"}
    assert (result["parsed"] is None) == isinstance(result["parsing_error"], OutputParserException)
    if result["parsed"] is not None:
        assert isinstance(result["parsed"], Person)
