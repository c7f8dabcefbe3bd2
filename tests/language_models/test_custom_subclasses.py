"""Custom classes written the LangChain way: annotated fields, Field(...), keyword construction.

Chat models, tools, output parsers and callback handlers: unknown keywords are refused naming
them and the accepted ones, SecretStr fields stay masked, and nothing changes for a class that
declares no fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar
from uuid import UUID

import pytest
from pydantic import BaseModel, Field, SecretStr

from leanchain.callbacks import BaseCallbackHandler
from leanchain.callbacks.manager import RunManager
from leanchain.language_models import BaseChatModel
from leanchain.language_models._results import ChatGeneration, ChatResult
from leanchain.messages import AIMessage, BaseMessage
from leanchain.output_parsers import BaseOutputParser
from leanchain.tools import BaseTool


class EchoModel(BaseChatModel):
    """The issue's example: a model with a name field and a secret."""

    model_name: str = "echo"
    prefix: str = Field(default="> ", description="put before the echo")
    api_key: SecretStr = SecretStr("")
    stop_words: list[str] = Field(default_factory=list)
    kind: ClassVar[str] = "echo"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = f"{self.prefix}{messages[-1].text} ({self.model_name})"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


def test_a_chat_model_subclass_is_built_with_keywords() -> None:
    model = EchoModel(model_name="x", api_key="sk-secret", tags=["t"], metadata={"m": 1})
    assert model.invoke("hi").text == "> hi (x)"
    assert (model.model_name, model.tags, model.metadata) == ("x", ["t"], {"m": 1})
    assert isinstance(model.api_key, SecretStr)
    assert model.api_key.get_secret_value() == "sk-secret"
    assert EchoModel().invoke("hi").text == "> hi (echo)"
    assert EchoModel.prefix == "> "


def test_repr_shows_the_fields_and_masks_secrets() -> None:
    text = repr(EchoModel(api_key="sk-secret"))
    assert text == (
        "EchoModel(model_name='echo', prefix='> ', api_key=SecretStr('**********'), stop_words=[])"
    )
    assert "sk-secret" not in text


def test_mutable_defaults_are_not_shared() -> None:
    first, second = EchoModel(), EchoModel()
    first.stop_words.append("x")
    assert second.stop_words == []


def test_an_unknown_keyword_is_refused_naming_the_accepted_ones() -> None:
    with pytest.raises(TypeError) as caught:
        EchoModel(modelname="x")
    assert str(caught.value) == (
        "EchoModel got unexpected keyword argument(s) 'modelname'; it accepts: api_key, "
        "disable_streaming, metadata, model_name, name, prefix, stop_words, tags"
    )


def test_required_fields_must_be_given() -> None:
    class Needs(EchoModel):
        endpoint: str

    with pytest.raises(TypeError) as caught:
        Needs()
    assert str(caught.value) == "Needs missing required field(s): 'endpoint'"
    assert Needs(endpoint="http://x").endpoint == "http://x"


def test_validate_fields_asks_pydantic_to_check_values() -> None:
    class Checked(EchoModel):
        validate_fields: ClassVar[bool] = True
        retries: int = 1

    assert Checked(retries="3").retries == 3
    with pytest.raises(ValueError, match="valid integer"):
        Checked(retries="many")


def test_model_tags_and_metadata_reach_the_run() -> None:
    seen: list[tuple[list[str], dict[str, Any]]] = []

    class Seen(BaseCallbackHandler):
        def on_chat_model_start(
            self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any
        ) -> None:
            seen.append((kwargs["tags"], kwargs["metadata"]))

    EchoModel(tags=["mine"], metadata={"team": "a"}).invoke(
        "hi", {"callbacks": [Seen()], "tags": ["call"]}
    )
    assert seen == [(["call", "mine"], {"team": "a"})]


class Args(BaseModel):
    city: str


class WeatherTool(BaseTool):
    name: str = "weather"
    description: str = "The weather in a city."
    args_schema: type[BaseModel] = Args
    api_key: SecretStr
    unit: str = "C"

    def _run(self, city: str) -> str:
        return f"{city}: 20{self.unit} (key {len(self.api_key.get_secret_value())} chars)"


def test_a_tool_subclass_with_fields() -> None:
    weather = WeatherTool(api_key="abcd", unit="F")
    assert weather.invoke({"city": "Oslo"}) == "Oslo: 20F (key 4 chars)"
    assert WeatherTool(api_key="k", name="w2").name == "w2"
    with pytest.raises(TypeError, match="missing required field"):
        WeatherTool()
    with pytest.raises(TypeError) as caught:
        WeatherTool(api_key="k", units="F")
    assert str(caught.value).startswith(
        "WeatherTool got unexpected keyword argument(s) 'units'; it accepts: api_key, "
        "args_schema, callbacks, description,"
    )
    assert "abcd" not in repr(weather)


class PrefixParser(BaseOutputParser[str]):
    prefix: str = "Answer:"
    strip: bool = True

    def parse(self, text: str) -> str:
        body = text.removeprefix(self.prefix)
        return body.strip() if self.strip else body


def test_an_output_parser_subclass_with_fields() -> None:
    assert PrefixParser().invoke("Answer: 42") == "42"
    assert PrefixParser(prefix="A=", strip=False).invoke("A= 7") == " 7"
    assert repr(PrefixParser()) == "PrefixParser(prefix='Answer:', strip=True)"
    with pytest.raises(TypeError, match="'prefx'; it accepts: prefix, strip"):
        PrefixParser(prefx="x")


class CountingHandler(BaseCallbackHandler):
    label: str = "runs"
    seen: list[str] = Field(default_factory=list)

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.seen.append(f"{self.label}:{kwargs['name']}")


def test_a_callback_handler_subclass_with_fields() -> None:
    from leanchain.runnables import RunnableLambda

    handler = CountingHandler(label="L")
    RunnableLambda(lambda x: x, name="id").invoke(1, {"callbacks": [handler]})
    assert handler.seen == ["L:id"]
    assert CountingHandler().seen == []
    with pytest.raises(TypeError, match="'lable'; it accepts: label, seen"):
        CountingHandler(lable="x")


def test_classes_without_fields_are_unchanged() -> None:
    class Plain(BaseChatModel):
        def _generate(
            self,
            messages: Sequence[BaseMessage],
            stop: list[str] | None = None,
            run_manager: RunManager | None = None,
            **kwargs: Any,
        ) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=AIMessage("ok"))])

    assert Plain(name="p").invoke("x").text == "ok"
    assert repr(Plain()) == "Plain()"
    with pytest.raises(TypeError, match="it accepts: disable_streaming, metadata, name, tags"):
        Plain(temperature=0)
