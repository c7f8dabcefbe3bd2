"""Few-shot prompts, the length-based selector and the prompt methods LangChain users call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanchain.errors import TemplateValidationError
from leanchain.messages import AIMessage, HumanMessage, SystemMessage
from leanchain.prompts import (
    AIMessagePromptTemplate,
    ChatPromptTemplate,
    FewShotChatMessagePromptTemplate,
    FewShotPromptTemplate,
    HumanMessagePromptTemplate,
    LengthBasedExampleSelector,
    PromptTemplate,
    StringPromptValue,
)

EXAMPLES = [
    {"q": "2+2", "a": "4"},
    {"q": "2+3", "a": "5"},
    {"q": "what is a long question here", "a": "x"},
]
EXAMPLE_PROMPT = PromptTemplate.from_template("Q: {q}\nA: {a}")
CHAT_EXAMPLE = ChatPromptTemplate.from_messages([("human", "{q}"), ("ai", "{a}")])


def test_few_shot_text_prompt_matches_langchain() -> None:
    prompt = FewShotPromptTemplate(
        examples=EXAMPLES[:2],
        example_prompt=EXAMPLE_PROMPT,
        prefix="You add {kind}.",
        suffix="Q: {input}\nA:",
    )
    assert prompt.input_variables == ["input", "kind"]
    assert prompt.format(kind="numbers", input="1+1") == (
        "You add numbers.\n\nQ: 2+2\nA: 4\n\nQ: 2+3\nA: 5\n\nQ: 1+1\nA:"
    )
    assert prompt.invoke({"kind": "k", "input": "i"}) == StringPromptValue(
        "You add k.\n\nQ: 2+2\nA: 4\n\nQ: 2+3\nA: 5\n\nQ: i\nA:"
    )
    assert prompt.partial(kind="sums").format(input="x").startswith("You add sums.\n\n")


def test_examples_are_never_parsed_as_templates() -> None:
    prompt = FewShotPromptTemplate(
        examples=[{"q": "{evil}", "a": "}"}], example_prompt=EXAMPLE_PROMPT, suffix="{input}"
    )
    assert prompt.format(input="i") == "Q: {evil}\nA: }\n\ni"


@pytest.mark.parametrize(
    ("given_", "message"),
    [
        ({}, "One of 'examples' and 'example_selector' should be provided"),
        (
            {
                "examples": EXAMPLES,
                "example_selector": LengthBasedExampleSelector(EXAMPLES, EXAMPLE_PROMPT),
            },
            "Only one of 'examples' and 'example_selector' should be provided",
        ),
    ],
)
def test_exactly_one_source_of_examples(given_: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        FewShotPromptTemplate(example_prompt=EXAMPLE_PROMPT, suffix="x", **given_)
    assert str(caught.value) == message
    with pytest.raises(ValueError) as chat_caught:
        FewShotChatMessagePromptTemplate(example_prompt=CHAT_EXAMPLE, **given_)
    assert str(chat_caught.value) == message


def test_prefix_and_suffix_follow_the_template_rules() -> None:
    with pytest.raises(TemplateValidationError):
        FewShotPromptTemplate(examples=[], example_prompt=EXAMPLE_PROMPT, suffix="{x.__class__}")


def test_length_based_selector_matches_langchain() -> None:
    selector = LengthBasedExampleSelector(EXAMPLES, EXAMPLE_PROMPT, max_length=12)
    assert selector.example_text_lengths == [4, 4, 9]
    assert selector.select_examples({"input": "one two"}) == EXAMPLES[:2]
    selector.add_example({"q": "z", "a": "z"})
    assert selector.example_text_lengths == [4, 4, 9, 4]
    prompt = FewShotPromptTemplate(
        example_selector=selector, example_prompt=EXAMPLE_PROMPT, suffix="Q: {input}"
    )
    assert prompt.format(input="a b c d e f") == "Q: 2+2\nA: 4\n\nQ: a b c d e f"


@given(
    lengths=st.lists(st.integers(1, 20), max_size=8),
    budget=st.integers(0, 60),
    words=st.integers(1, 10),
)
def test_selected_examples_never_exceed_the_budget_and_are_a_prefix(
    lengths: list[int], budget: int, words: int
) -> None:
    examples = [{"q": " ".join(["w"] * n), "a": ""} for n in lengths]
    selector = LengthBasedExampleSelector(
        examples, PromptTemplate.from_template("{q}{a}"), max_length=budget
    )
    chosen = selector.select_examples({"input": " ".join(["x"] * words)})
    assert chosen == examples[: len(chosen)]
    assert words + sum(lengths[: len(chosen)]) <= max(budget, words)


def test_few_shot_chat_examples_inside_a_chat_prompt() -> None:
    few_shot = FewShotChatMessagePromptTemplate(examples=EXAMPLES[:2], example_prompt=CHAT_EXAMPLE)
    assert few_shot.input_variables == []
    assert few_shot.format() == "Human: 2+2\nAI: 4\nHuman: 2+3\nAI: 5"
    final = ChatPromptTemplate.from_messages([("system", "sys"), few_shot, ("human", "{input}")])
    assert final.input_variables == ["input"]
    assert final.format_messages(input="hi") == [
        SystemMessage("sys"),
        HumanMessage("2+2"),
        AIMessage("4"),
        HumanMessage("2+3"),
        AIMessage("5"),
        HumanMessage("hi"),
    ]


def test_few_shot_chat_examples_with_a_selector() -> None:
    selector = LengthBasedExampleSelector(EXAMPLES, EXAMPLE_PROMPT, max_length=12)
    few_shot = FewShotChatMessagePromptTemplate(
        example_selector=selector, example_prompt=CHAT_EXAMPLE, input_variables=["input"]
    )
    assert few_shot.format_messages(input="one two three") == [
        HumanMessage("2+2"),
        AIMessage("4"),
        HumanMessage("2+3"),
        AIMessage("5"),
    ]
    assert few_shot.format_messages(input=" ".join(["w"] * 7)) == [
        HumanMessage("2+2"),
        AIMessage("4"),
    ]


def test_message_templates_add_up_to_a_chat_prompt() -> None:
    prompt = HumanMessagePromptTemplate.from_template(
        "hi {x}"
    ) + AIMessagePromptTemplate.from_template("yo")
    assert isinstance(prompt, ChatPromptTemplate)
    assert prompt.input_variables == ["x"]
    assert prompt.format_messages(x=1) == [HumanMessage("hi 1"), AIMessage("yo")]
    longer = prompt + ("human", "{y}")  # noqa: RUF005
    assert longer.input_variables == ["x", "y"]


async def test_append_and_extend_change_the_prompt_and_its_variables() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "s {a}")])
    prompt.append(("human", "{b}"))
    assert (prompt.input_variables, len(prompt.messages)) == (["a", "b"], 2)
    prompt.extend([("ai", "{c}"), ("human", "d")])
    # leanchain: the variables follow the messages (LangChain's stay ['a']).
    assert (prompt.input_variables, len(prompt.messages)) == (["a", "b", "c"], 4)
    assert await prompt.aformat_messages(a=1, b=2, c=3) == [
        SystemMessage("s 1"),
        HumanMessage("2"),
        AIMessage("3"),
        HumanMessage("d"),
    ]
    assert await prompt.aformat(a=1, b=2, c=3) == "System: s 1\nHuman: 2\nAI: 3\nHuman: d"
    value = await prompt.aformat_prompt(a=1, b=2, c=3)
    assert value.to_messages()[0] == SystemMessage("s 1")
    assert await HumanMessagePromptTemplate.from_template("{q}").aformat_messages(q="x") == [
        HumanMessage("x")
    ]


def test_templates_from_files_follow_the_same_rules(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("Hello {name}!", encoding="utf-8")
    prompt = PromptTemplate.from_file(good)
    assert (prompt.input_variables, prompt.format(name="Ada")) == (["name"], "Hello Ada!")
    assert PromptTemplate.from_file(str(good), encoding="utf-8") == prompt
    message = HumanMessagePromptTemplate.from_template_file(good, input_variables=["name"])
    assert message.format(name="x") == HumanMessage("Hello x!")
    bad = tmp_path / "bad.txt"
    bad.write_text("{name.__class__}")
    with pytest.raises(TemplateValidationError):
        PromptTemplate.from_file(bad)
    with pytest.raises(TemplateValidationError):
        HumanMessagePromptTemplate.from_template_file(bad)
