"""`ChatPromptTemplate` and its parts: roles, placeholders, messages, partials, `+`."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import MissingPromptVariablesError, TemplateValidationError
from leanchain.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from leanchain.prompts import (
    AIMessagePromptTemplate,
    ChatMessagePromptTemplate,
    ChatPromptTemplate,
    ChatPromptValue,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
    SystemMessagePromptTemplate,
)


def test_roles_become_message_templates() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "sys {a}"),
            ("human", "h {b}"),
            ("user", "u {c}"),
            ("ai", "ai {d}"),
            ("assistant", "as {e}"),
        ]
    )
    assert [type(m) for m in prompt.messages] == [
        SystemMessagePromptTemplate,
        HumanMessagePromptTemplate,
        HumanMessagePromptTemplate,
        AIMessagePromptTemplate,
        AIMessagePromptTemplate,
    ]
    assert prompt.input_variables == ["a", "b", "c", "d", "e"]
    assert prompt.format_messages(a=1, b=2, c=3, d=4, e=5) == [
        SystemMessage("sys 1"),
        HumanMessage("h 2"),
        HumanMessage("u 3"),
        AIMessage("ai 4"),
        AIMessage("as 5"),
    ]


def test_invoke_returns_a_chat_prompt_value() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "s"), ("human", "{h}"), ("ai", "a")])
    value = prompt.invoke({"h": "h"})
    assert value == ChatPromptValue([SystemMessage("s"), HumanMessage("h"), AIMessage("a")])
    assert value.to_messages() == [SystemMessage("s"), HumanMessage("h"), AIMessage("a")]
    assert value.to_string() == "System: s\nHuman: h\nAI: a"
    assert prompt.format(h="h") == "System: s\nHuman: h\nAI: a"


def test_single_variable_chat_prompt_accepts_a_plain_input() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    assert prompt.invoke("just string").to_messages() == [HumanMessage("just string")]  # type: ignore[arg-type]


def test_non_dict_input_with_several_variables() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}{r}")])
    with pytest.raises(TypeError) as info:
        prompt.invoke("x")  # type: ignore[arg-type]
    assert str(info.value) == (
        "Expected mapping type as input to ChatPromptTemplate. Received <class 'str'>."
    )


def test_missing_variable_message_names_the_chat_prompt() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "{role}"), ("human", "{input}")])
    with pytest.raises(MissingPromptVariablesError) as info:
        prompt.invoke({"input": "x"})
    assert str(info.value) == (
        "Input to ChatPromptTemplate is missing variables {'role'}.  Expected: "
        "['input', 'role'] Received: ['input']\nNote: if you intended {role} to be part of "
        "the string and not a variable, please escape it with double curly braces like: "
        "'{{role}}'."
    )
    with pytest.raises(MissingPromptVariablesError) as again:
        prompt.format_messages(input="x")
    assert str(again.value) == str(info.value)


def test_messages_are_used_literally() -> None:
    literal = SystemMessage("literal {not_var}")
    prompt = ChatPromptTemplate.from_messages([literal, ("human", "{x}")])
    assert prompt.input_variables == ["x"]
    messages = prompt.format_messages(x="1")
    assert messages == [SystemMessage("literal {not_var}"), HumanMessage("1")]
    assert messages[0] is literal


def test_bare_strings_and_dicts_are_human_or_role_templates() -> None:
    prompt = ChatPromptTemplate.from_messages(
        ["hi {name}", {"role": "system", "content": "be {mood}"}]
    )
    assert prompt.format_messages(name="Bo", mood="kind") == [
        HumanMessage("hi Bo"),
        SystemMessage("be kind"),
    ]


def test_message_classes_as_roles() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [(SystemMessage, "s {a}"), (HumanMessage, "h {a}"), (AIMessage, "ai {a}")]
    )
    assert prompt.format_messages(a=1) == [
        SystemMessage("s 1"),
        HumanMessage("h 1"),
        AIMessage("ai 1"),
    ]


def test_message_template_classes_as_roles() -> None:
    prompt = ChatPromptTemplate.from_messages([(HumanMessagePromptTemplate, "x {a}")])
    assert prompt.format_messages(a=1) == [HumanMessage("x 1")]


def test_bad_dict_and_tuple_shapes() -> None:
    with pytest.raises(ValueError) as info:
        ChatPromptTemplate.from_messages([{"role": "human"}])
    assert str(info.value) == (
        "Expected dict to have exact keys 'role' and 'content'. Got: {'role': 'human'}"
    )
    with pytest.raises(ValueError) as info:
        ChatPromptTemplate.from_messages([("human", "a", "b")])
    assert str(info.value) == "Expected 2-tuple of (role, template), got ('human', 'a', 'b')"
    with pytest.raises(NotImplementedError) as unsupported:
        ChatPromptTemplate.from_messages([3])
    assert str(unsupported.value) == "Unsupported message type: <class 'int'>"


def test_unknown_role() -> None:
    with pytest.raises(ValueError) as info:
        ChatPromptTemplate.from_messages([("robot", "beep")])
    assert str(info.value) == (
        "Unexpected message type: robot. Use one of 'human', 'user', 'ai', 'assistant', "
        "or 'system'."
    )


def test_message_templates_are_validated_like_any_template() -> None:
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages([("system", "{x.__class__}")])
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages(["{0}"])


# -- placeholders ----------------------------------------------------------------------------


def test_placeholder_tuple_is_an_optional_placeholder() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You are {role}"),
            ("placeholder", "{history}"),
            ("human", "{input}"),
            ("placeholder", "{scratch}"),
        ]
    )
    assert prompt.partial_variables == {"history": [], "scratch": []}
    assert prompt.input_variables == ["input", "role"]
    assert prompt.optional_variables == ["history", "scratch"]
    assert prompt.messages[1] == MessagesPlaceholder("history", optional=True)
    assert prompt.format_messages(role="r", input="i") == [
        SystemMessage("You are r"),
        HumanMessage("i"),
    ]
    assert prompt.format_messages(
        role="r", input="i", history=[("human", "hi"), ("ai", "yo")], scratch=["s"]
    ) == [
        SystemMessage("You are r"),
        HumanMessage("hi"),
        AIMessage("yo"),
        HumanMessage("i"),
        HumanMessage("s"),
    ]


def test_placeholder_tuple_with_an_explicit_optional_flag() -> None:
    prompt = ChatPromptTemplate.from_messages([("placeholder", ("{h}", False))])
    assert prompt.input_variables == ["h"]
    assert prompt.optional_variables == []


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (
            "history",
            "Invalid placeholder template: history. "
            "Expected a variable name surrounded by curly braces.",
        ),
        (
            ("history", True),
            "Invalid placeholder template: history. "
            "Expected a variable name surrounded by curly braces.",
        ),
        (
            ("{h}", "yes"),
            "Unexpected arguments for placeholder message type. Expected either a single "
            "string variable name or a list of [variable_name: str, is_optional: bool]. "
            "Got: ('{h}', 'yes')",
        ),
        ((3, True), "Expected variable name to be a string. Got: 3"),
    ],
)
def test_malformed_placeholders(template: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        ChatPromptTemplate.from_messages([("placeholder", template)])
    assert str(info.value) == message


@pytest.mark.parametrize("wrapped", ["{}", "{a.b}", "{0}", "{a[0]}", "{a}{b}"])
def test_placeholder_names_must_be_plain(wrapped: str) -> None:
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages([("placeholder", wrapped)])


def test_required_placeholder() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [MessagesPlaceholder("history"), ("human", "{input}")]
    )
    assert prompt.input_variables == ["history", "input"]
    assert prompt.partial_variables == {}
    with pytest.raises(MissingPromptVariablesError) as info:
        prompt.invoke({"input": "x"})
    assert str(info.value).startswith(
        "Input to ChatPromptTemplate is missing variables {'history'}.  "
        "Expected: ['history', 'input'] Received: ['input']"
    )


def test_placeholder_value_must_be_a_list() -> None:
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("h")])
    with pytest.raises(ValueError) as info:
        prompt.invoke({"h": "not a list"})
    assert str(info.value) == (
        "variable h should be a list of base messages, got not a list of type <class 'str'>"
    )


def test_placeholder_converts_message_likes() -> None:
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("h")])
    tool = ToolMessage("42", tool_call_id="c1")
    assert prompt.format_messages(
        h=[
            "a string msg",
            ("system", "s"),
            {"role": "assistant", "content": "a"},
            tool,
        ]
    ) == [HumanMessage("a string msg"), SystemMessage("s"), AIMessage("a"), tool]


def test_placeholder_keeps_message_objects() -> None:
    history: list[BaseMessage] = [HumanMessage("hi"), AIMessage("yo")]
    out = ChatPromptTemplate.from_messages([MessagesPlaceholder("h")]).format_messages(h=history)
    assert out == history
    assert out[0] is history[0]
    assert out is not history


def test_placeholder_braces_in_history_are_not_fields() -> None:
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("h"), ("human", "{q}")])
    assert prompt.format_messages(h=[("human", "{q.__class__}")], q="ok") == [
        HumanMessage("{q.__class__}"),
        HumanMessage("ok"),
    ]


def test_placeholder_n_messages() -> None:
    placeholder = MessagesPlaceholder("h", n_messages=2)
    assert placeholder.format_messages(h=["1", "2", "3"]) == [
        HumanMessage("2"),
        HumanMessage("3"),
    ]
    assert MessagesPlaceholder("h", n_messages=0).format_messages(h=["1", "2"]) == [
        HumanMessage("1"),
        HumanMessage("2"),
    ]


def test_placeholder_on_its_own() -> None:
    assert MessagesPlaceholder("h").input_variables == ["h"]
    assert MessagesPlaceholder("h", optional=True).input_variables == []
    assert MessagesPlaceholder("h", optional=True).format_messages() == []
    with pytest.raises(MissingPromptVariablesError) as info:
        MessagesPlaceholder("h").format_messages()
    assert str(info.value).startswith(
        "Input to MessagesPlaceholder is missing variables {'h'}.  Expected: ['h'] Received: []"
    )
    assert repr(MessagesPlaceholder("h", optional=True, n_messages=3)) == (
        "MessagesPlaceholder(variable_name='h', optional=True, n_messages=3)"
    )


# -- message templates -----------------------------------------------------------------------


def test_message_templates_on_their_own() -> None:
    human = HumanMessagePromptTemplate.from_template("hi {x}")
    assert human.input_variables == ["x"]
    assert human.format(x=1) == HumanMessage("hi 1")
    assert human.format_messages(x=1) == [HumanMessage("hi 1")]
    assert isinstance(human.prompt, PromptTemplate)
    assert human.prompt.template == "hi {x}"
    chat = ChatMessagePromptTemplate(PromptTemplate("{x}"), role="critic")
    assert chat.format(x="meh") == ChatMessage("meh", role="critic")
    assert ChatPromptTemplate.from_messages([chat]).format_messages(x="y") == [
        ChatMessage("y", role="critic")
    ]


def test_additional_kwargs_are_copied_into_messages() -> None:
    template = SystemMessagePromptTemplate.from_template("s", additional_kwargs={"k": 1})
    assert template.format() == SystemMessage("s", additional_kwargs={"k": 1})


def test_fast_built_messages_equal_validated_ones() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "s{x}"), ("human", "h{x}"), ("ai", "a{x}")]
    )
    built = prompt.format_messages(x="!")
    expected = [SystemMessage("s!"), HumanMessage("h!"), AIMessage("a!")]
    assert built == expected
    assert [m.model_dump() for m in built] == [m.model_dump() for m in expected]
    assert [repr(m) for m in built] == [repr(m) for m in expected]
    assert built[2].tool_calls == []  # type: ignore[attr-defined]
    assert built[0].additional_kwargs is not built[1].additional_kwargs


def test_list_of_blocks_templates() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [
            (
                "human",
                [
                    {"type": "text", "text": "hi {x}"},
                    "plain {y}",
                    {"text": "bare {x}"},
                    {"type": "image_url", "image_url": "https://img/{name}.png"},
                    {"type": "image_url", "image_url": {"url": "{u}", "detail": "low"}},
                    {"type": "custom", "data": {"nested": ["{x}"]}, "n": 3},
                ],
            )
        ]
    )
    assert prompt.input_variables == ["name", "u", "x", "y"]
    assert prompt.format_messages(x=1, y=2, name="cat", u="data:") == [
        HumanMessage(
            [
                {"type": "text", "text": "hi 1"},
                {"type": "text", "text": "plain 2"},
                {"type": "text", "text": "bare 1"},
                {"type": "image_url", "image_url": {"url": "https://img/cat.png"}},
                {"type": "image_url", "image_url": {"url": "data:", "detail": "low"}},
                {"type": "custom", "data": {"nested": ["1"]}, "n": 3},
            ]
        )
    ]


def test_blocks_are_validated() -> None:
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages([("human", [{"type": "text", "text": "{a.b}"}])])
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages(
            [("human", [{"type": "image_url", "image_url": "{u:{u.__class__}}"}])]
        )
    with pytest.raises(ValueError, match=r"^Invalid template: 3$"):
        ChatPromptTemplate.from_messages([("human", [3])])


# -- partials, +, nesting --------------------------------------------------------------------


def test_partial() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "{a}"), ("placeholder", "{h}"), ("human", "{b}")]
    )
    partial = prompt.partial(a="A")
    assert partial.input_variables == ["b"]
    assert partial.optional_variables == ["h"]
    assert partial.partial_variables == {"a": "A", "h": []}
    assert partial.format_messages(b="B") == [SystemMessage("A"), HumanMessage("B")]
    assert prompt.input_variables == ["a", "b"]
    called = prompt.partial(a=lambda: "called")
    assert called.format_messages(b="B")[0] == SystemMessage("called")


def test_partial_given_at_construction() -> None:
    prompt = ChatPromptTemplate([("system", "{a}"), ("human", "{b}")], partial_variables={"a": "A"})
    assert prompt.input_variables == ["b"]
    assert prompt.invoke("B").to_messages() == [SystemMessage("A"), HumanMessage("B")]  # type: ignore[arg-type]


def test_validate_template_for_chat() -> None:
    with pytest.raises(ValueError, match=r"^Got mismatched input_variables\. Expected: "):
        ChatPromptTemplate([("human", "{a}")], input_variables=["b"], validate_template=True)
    ok = ChatPromptTemplate([("human", "{a}")], input_variables=["a"], validate_template=True)
    assert ok.input_variables == ["a"]


def test_adding() -> None:
    base = ChatPromptTemplate.from_messages([("system", "{a}")])
    assert (base + ("human", "{x}")).format_messages(a=1, x=2) == [  # noqa: RUF005
        SystemMessage("1"),
        HumanMessage("2"),
    ]
    assert (base + "{x}").format_messages(a=1, x=2) == [SystemMessage("1"), HumanMessage("2")]
    assert (base + AIMessage("lit {x}")).format_messages(a=1) == [
        SystemMessage("1"),
        AIMessage("lit {x}"),
    ]
    assert (base + [("human", "{x}"), ("ai", "{y}")]).input_variables == ["a", "x", "y"]  # noqa: RUF005
    other = ChatPromptTemplate.from_messages([("human", "{b}")]).partial(b="B")
    both = base + other
    assert both.input_variables == ["a"]
    assert both.format_messages(a="A") == [SystemMessage("A"), HumanMessage("B")]
    with pytest.raises(NotImplementedError, match=r"^Unsupported operand type for \+"):
        base + 3


def test_nested_chat_prompt() -> None:
    inner = ChatPromptTemplate.from_messages([("human", "{q}")]).partial(q="inner")
    outer = ChatPromptTemplate.from_messages([("system", "{s}"), inner])
    assert outer.input_variables == ["s"]
    assert outer.format_messages(s="S") == [SystemMessage("S"), HumanMessage("inner")]


def test_from_template_is_one_human_message() -> None:
    prompt = ChatPromptTemplate.from_template("hi {x}")
    assert prompt.format_messages(x=1) == [HumanMessage("hi 1")]
    assert len(prompt) == 1
    assert isinstance(prompt[0], HumanMessagePromptTemplate)


def test_equality_and_repr() -> None:
    def make() -> ChatPromptTemplate:
        return ChatPromptTemplate.from_messages([("system", "{a}"), ("placeholder", "{h}")])

    assert make() == make()
    assert hash(make()) == hash(make())
    assert make() != ChatPromptTemplate.from_messages([("human", "{a}")])
    assert repr(ChatPromptTemplate.from_messages([("human", "{a}")])) == (
        "ChatPromptTemplate(input_variables=['a'], messages=[HumanMessagePromptTemplate("
        "prompt=PromptTemplate(input_variables=['a'], template='{a}'))])"
    )


# -- schema and runnable ---------------------------------------------------------------------


def test_input_schema() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "{role}"), ("placeholder", "{history}"), ("human", "{input}")]
    )
    schema = prompt.get_input_jsonschema()
    assert schema["title"] == "PromptInput"
    assert schema["required"] == ["input", "role"]
    assert list(schema["properties"]) == ["input", "role", "history"]
    assert schema["properties"]["role"] == {"title": "Role", "type": "string"}
    history = schema["properties"]["history"]
    assert history["default"] is None
    assert history["anyOf"][1] == {"type": "null"}
    refs = [item["$ref"] for item in history["anyOf"][0]["items"]["anyOf"]]
    assert refs == [
        "#/$defs/AIMessage",
        "#/$defs/HumanMessage",
        "#/$defs/ChatMessage",
        "#/$defs/SystemMessage",
        "#/$defs/FunctionMessage",
        "#/$defs/ToolMessage",
    ]


def test_invoke_runs_as_a_prompt_run() -> None:
    seen: list[Any] = []

    class Handler(BaseCallbackHandler):
        def on_chain_start(
            self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any
        ) -> None:
            seen.append((kwargs.get("name"), kwargs.get("run_type"), inputs))

        def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
            seen.append(outputs)

    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    prompt.invoke({"q": "x"}, {"callbacks": [Handler()]})
    assert seen == [
        ("ChatPromptTemplate", "prompt", {"q": "x"}),
        ChatPromptValue([HumanMessage("x")]),
    ]


async def test_ainvoke_and_abatch() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    assert await prompt.ainvoke({"q": "x"}) == ChatPromptValue([HumanMessage("x")])
    assert await prompt.abatch([{"q": "a"}, {"q": "b"}]) == [
        ChatPromptValue([HumanMessage("a")]),
        ChatPromptValue([HumanMessage("b")]),
    ]
