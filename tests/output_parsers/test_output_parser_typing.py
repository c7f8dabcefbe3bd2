"""Static types of prompts and parsers in pipelines (checked by mypy, true at run time)."""

from __future__ import annotations

from typing import Any, assert_type

from pydantic import BaseModel

from leanchain.language_models import FakeListChatModel
from leanchain.output_parsers import JsonOutputParser, PydanticOutputParser, StrOutputParser
from leanchain.prompts import ChatPromptTemplate, PromptTemplate, PromptValue
from leanchain.runnables import Runnable


class Joke(BaseModel):
    setup: str


def test_pipeline_types() -> None:
    chat = ChatPromptTemplate.from_messages([("human", "{q}")])
    text = PromptTemplate.from_template("{q}")
    model = FakeListChatModel(responses=['{"setup": "s"}'])
    assert_type(chat.invoke({"q": "x"}), PromptValue)
    assert_type(text.invoke({"q": "x"}), PromptValue)
    to_text = chat | model | StrOutputParser()
    assert_type(to_text, Runnable[dict[str, Any], str])
    assert to_text.invoke({"q": "x"}) == '{"setup": "s"}'
    to_joke = text | model | PydanticOutputParser(pydantic_object=Joke)
    assert_type(to_joke, Runnable[dict[str, Any], Joke])
    assert to_joke.invoke({"q": "x"}) == Joke(setup="s")
    assert_type(JsonOutputParser().invoke("{}"), Any)
