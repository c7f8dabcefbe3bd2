"""Prompt values, and the package's public face."""

from __future__ import annotations

import pytest

import leanchain.prompts
from leanchain.messages import AIMessage, HumanMessage, SystemMessage
from leanchain.prompts import ChatPromptValue, PromptValue, StringPromptValue


def test_string_prompt_value() -> None:
    value = StringPromptValue("hello")
    assert value.text == "hello"
    assert value.to_string() == "hello"
    assert value.to_messages() == [HumanMessage("hello")]
    assert value == StringPromptValue(text="hello")
    assert value != StringPromptValue("other")
    assert value != "hello"
    assert hash(value) == hash(StringPromptValue("hello"))
    assert repr(value) == "StringPromptValue(text='hello')"
    assert value.type == "StringPromptValue"
    assert isinstance(value, PromptValue)


def test_chat_prompt_value() -> None:
    messages = [SystemMessage("s"), HumanMessage("h"), AIMessage("a")]
    value = ChatPromptValue(messages)
    assert value.to_string() == "System: s\nHuman: h\nAI: a"
    assert value.to_messages() == messages
    assert value.to_messages() is not value.messages
    assert value == ChatPromptValue(messages=tuple(messages))
    assert value != ChatPromptValue(messages[:1])
    assert repr(ChatPromptValue([HumanMessage("h")])) == (
        "ChatPromptValue(messages=[HumanMessage(content='h')])"
    )
    assert value.type == "ChatPromptValue"
    with pytest.raises(TypeError):
        hash(value)


def test_prompt_value_is_abstract() -> None:
    with pytest.raises(TypeError):
        PromptValue()  # type: ignore[abstract]


def test_all_lists_exactly_the_public_names() -> None:
    public = {
        name
        for name in dir(leanchain.prompts)
        if not name.startswith("_") and name not in {"annotations"}
    }
    modules = {
        name for name in public if type(getattr(leanchain.prompts, name)).__name__ == "module"
    }
    assert sorted(leanchain.prompts.__all__) == sorted(public - modules)
    assert leanchain.prompts.__all__ == sorted(leanchain.prompts.__all__)


def test_design_names_are_exported() -> None:
    for name in [
        "PromptTemplate",
        "ChatPromptTemplate",
        "MessagesPlaceholder",
        "StringPromptValue",
        "ChatPromptValue",
    ]:
        assert name in leanchain.prompts.__all__
