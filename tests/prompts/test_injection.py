"""Template injection (CVE-2025-65106, CVE-2026-40087): one attack corpus, every template class.

Every attack is rejected when a template is built, and again when a template that was changed
after construction (or built around the constructor) is formatted — before any value is
touched.
"""

from __future__ import annotations

import asyncio
import string
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.errors import TemplateValidationError
from leanchain.messages import HumanMessage, SystemMessage
from leanchain.prompts import (
    AIMessagePromptTemplate,
    BlocksTemplate,
    ChatMessagePromptTemplate,
    ChatPromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
    SystemMessagePromptTemplate,
    format_template,
)

ATTACKS = [
    "{x.__class__}",
    "{x.__class__.__name__}",
    "{msg.__class__.__init__.__globals__}",
    "{obj.method.__globals__[os]}",
    "{x.__init__.__globals__[__builtins__]}",
    "{__globals__.x}",
    "{x.__dict__}",
    "{x[0]}",
    "{a[0]}",
    "{x[__class__]}",
    "{x[key].attr}",
    "{x]}",
    "{0}",
    "{1}",
    "{00}",
    "{0.__class__}",
    "{0[0]}",
    "{}",
    "{:>10}",
    "{!r}",
    "{x!r}",
    "{x!s}",
    "{x!a}",
    "{x!r:>3}",
    "{x:{y}}",
    "{x:{x.__class__}}",
    "{name:{name.__class__.__name__}}",
    "{x:>{width}}",
    "{x:{{}}}",
    "{x:{0}}",
    "hello {ok} then {x.y}",
    "{ok}{0}",
    "{{ok}} {x.__class__}",
]


class Spy:
    """A value that records every way it is touched."""

    def __init__(self) -> None:
        object.__setattr__(self, "touched", [])

    def __getattribute__(self, name: str) -> Any:
        if name != "touched":
            object.__getattribute__(self, "touched").append(f"getattr {name}")
        return object.__getattribute__(self, name)

    def __getitem__(self, key: Any) -> Any:
        self.touched.append(f"getitem {key}")
        return self

    def __format__(self, spec: str) -> str:
        self.touched.append(f"format {spec}")
        return "spy"

    def __str__(self) -> str:
        self.touched.append("str")
        return "spy"

    def __repr__(self) -> str:
        self.touched.append("repr")
        return "spy"


def _values(spy: Spy) -> dict[str, Any]:
    names = ["x", "msg", "obj", "a", "name", "ok", "y", "width", "__globals__", "0", "1", ""]
    return dict.fromkeys(names, spy)


# -- construction ----------------------------------------------------------------------------

BUILDERS: dict[str, Callable[[str], object]] = {
    "PromptTemplate": PromptTemplate,
    "PromptTemplate.from_template": PromptTemplate.from_template,
    "PromptTemplate +": lambda t: PromptTemplate.from_template("ok {ok}") + t,
    "PromptTemplate + str": lambda t: PromptTemplate.from_template("{ok}") + PromptTemplate(t),
    "ChatPromptTemplate system": lambda t: ChatPromptTemplate.from_messages([("system", t)]),
    "ChatPromptTemplate human": lambda t: ChatPromptTemplate.from_messages([("human", t)]),
    "ChatPromptTemplate ai": lambda t: ChatPromptTemplate.from_messages([("ai", t)]),
    "ChatPromptTemplate bare": lambda t: ChatPromptTemplate.from_messages([t]),
    "ChatPromptTemplate dict": lambda t: ChatPromptTemplate.from_messages(
        [{"role": "user", "content": t}]
    ),
    "ChatPromptTemplate.from_template": ChatPromptTemplate.from_template,
    "ChatPromptTemplate +": lambda t: ChatPromptTemplate.from_messages([("human", "ok")]) + t,
    "HumanMessagePromptTemplate": HumanMessagePromptTemplate.from_template,
    "AIMessagePromptTemplate": AIMessagePromptTemplate.from_template,
    "SystemMessagePromptTemplate": SystemMessagePromptTemplate.from_template,
    "ChatMessagePromptTemplate": lambda t: ChatMessagePromptTemplate(PromptTemplate(t), role="r"),
    "text block": lambda t: BlocksTemplate([{"type": "text", "text": t}]),
    "bare block": lambda t: BlocksTemplate([t]),
    "image block": lambda t: BlocksTemplate([{"type": "image_url", "image_url": t}]),
    "image url block": lambda t: BlocksTemplate(
        [{"type": "image_url", "image_url": {"url": t, "detail": "auto"}}]
    ),
    "dict block": lambda t: BlocksTemplate([{"type": "x", "deep": [{"v": t}]}]),
    "blocks in a chat prompt": lambda t: ChatPromptTemplate.from_messages(
        [("human", [{"type": "text", "text": t}])]
    ),
    "format_template": lambda t: format_template(t, _values(Spy())),
}


@pytest.mark.parametrize("build", list(BUILDERS.values()), ids=list(BUILDERS))
@pytest.mark.parametrize("attack", ATTACKS)
def test_every_template_class_rejects_the_corpus_at_construction(
    build: Callable[[str], object], attack: str
) -> None:
    with pytest.raises(TemplateValidationError):
        build(attack)


@pytest.mark.parametrize(
    "wrapped", ["{}", "{x.__class__}", "{0}", "{x[0]}", "{a}{b}", "{x!r}", "{x:{y}}"]
)
def test_placeholders_reject_unsafe_names(wrapped: str) -> None:
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages([("placeholder", wrapped)])
    with pytest.raises(TemplateValidationError):
        MessagesPlaceholder(wrapped[1:-1])


# -- format time: templates changed after construction ---------------------------------------


def _tampered_prompt(attack: str) -> PromptTemplate:
    prompt = PromptTemplate.from_template("{x}")
    prompt.template = attack  # slots are writable: format must not trust construction
    return prompt


def _forged_prompt(attack: str) -> PromptTemplate:
    prompt = PromptTemplate.__new__(PromptTemplate)
    prompt.template = attack
    prompt.template_format = "f-string"
    prompt.validate_template = False
    prompt._partials = {}
    prompt._required = ()
    prompt._optional = ()
    return prompt


def _tampered_chat(attack: str) -> ChatPromptTemplate:
    chat = ChatPromptTemplate.from_messages([("system", "{x}"), ("human", "{ok}")])
    chat.messages[0].prompt.template = attack
    return chat


def _tampered_blocks(attack: str) -> ChatPromptTemplate:
    chat = ChatPromptTemplate.from_messages([("human", [{"type": "text", "text": "{x}"}])])
    chat.messages[0].prompt.blocks[0]["text"] = attack
    return chat


FORMATTERS: dict[str, Callable[[str, dict[str, Any]], object]] = {
    "PromptTemplate.format": lambda t, v: _tampered_prompt(t).format(**v),
    "PromptTemplate.invoke": lambda t, v: _tampered_prompt(t).invoke(v),
    "PromptTemplate.format_prompt": lambda t, v: _tampered_prompt(t).format_prompt(**v),
    "forged PromptTemplate.format": lambda t, v: _forged_prompt(t).format(**v),
    "forged PromptTemplate.invoke": lambda t, v: _forged_prompt(t).invoke(v),
    "ChatPromptTemplate.invoke": lambda t, v: _tampered_chat(t).invoke(v),
    "ChatPromptTemplate.format_messages": lambda t, v: _tampered_chat(t).format_messages(**v),
    "ChatPromptTemplate.format": lambda t, v: _tampered_chat(t).format(**v),
    "blocks": lambda t, v: _tampered_blocks(t).invoke(v),
}


@pytest.mark.parametrize("run", list(FORMATTERS.values()), ids=list(FORMATTERS))
@pytest.mark.parametrize("attack", ATTACKS)
def test_tampered_templates_are_rejected_at_format_time_before_any_value_is_touched(
    run: Callable[[str, dict[str, Any]], object], attack: str
) -> None:
    spy = Spy()
    with pytest.raises(TemplateValidationError):
        run(attack, _values(spy))
    assert spy.touched == []


async def test_tampered_templates_are_rejected_by_ainvoke() -> None:
    spy = Spy()
    with pytest.raises(TemplateValidationError):
        await _tampered_prompt("{x.__class__}").ainvoke(_values(spy))
    with pytest.raises(TemplateValidationError):
        await _tampered_chat("{x[0]}").ainvoke(_values(spy))
    assert spy.touched == []


def test_str_format_is_never_called() -> None:
    class NoFormat(str):
        def format(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("str.format was called")

        def format_map(self, mapping: Any) -> str:
            raise AssertionError("str.format_map was called")

    prompt = PromptTemplate.from_template("{x}")
    prompt.template = NoFormat("hi {x}")
    assert prompt.format(x=1) == "hi 1"


# -- generated attacks -----------------------------------------------------------------------

LITERAL = st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=20)
NAME = st.text(alphabet=string.ascii_letters + "_", min_size=1, max_size=8)
DANGER = st.sampled_from(
    [
        ".{name}",
        ".__class__",
        ".__globals__",
        "[0]",
        "[{name}]",
        "!r",
        "!s",
        "!a",
        ":{{{name}}}",
        ":>{{{name}}}",
        ":{{{name}.__class__}}",
    ]
)


@st.composite
def attacks(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["suffix", "digits", "empty"]))
    if kind == "suffix":
        name = draw(NAME)
        field = "{" + name + draw(DANGER).format(name=draw(NAME)) + "}"
    elif kind == "digits":
        field = "{" + draw(st.from_regex(r"[0-9]{1,4}", fullmatch=True)) + "}"
    else:
        field = "{" + draw(st.sampled_from(["", ":>3", "!r", ":"])) + "}"
    return draw(LITERAL) + field + draw(LITERAL)


@settings(max_examples=300, deadline=None)
@given(attacks())
def test_generated_attacks_are_rejected_at_construction_and_at_format_time(attack: str) -> None:
    with pytest.raises(TemplateValidationError):
        PromptTemplate.from_template(attack)
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages([("system", attack)])
    spy = Spy()
    with pytest.raises(TemplateValidationError):
        _tampered_prompt(attack).format(**_values(spy))
    with pytest.raises(TemplateValidationError):
        _tampered_chat(attack).invoke(_values(spy))
    assert spy.touched == []


# -- generated safe templates ----------------------------------------------------------------

SAFE_NAME = st.text(alphabet=string.ascii_letters + string.digits + "_- ", min_size=1).filter(
    lambda n: not n.isdigit()
)
ESCAPED_LITERAL = st.lists(st.one_of(LITERAL, st.sampled_from(["{{", "}}"])), max_size=4).map(
    "".join
)


@st.composite
def safe_templates(draw: st.DrawFn) -> tuple[str, dict[str, str], str]:
    names = draw(st.lists(SAFE_NAME, min_size=0, max_size=4))
    values = {name: draw(LITERAL | st.just("{x.__class__}")) for name in names}
    template, expected = "", ""
    for name in names:
        literal = draw(ESCAPED_LITERAL)
        template += literal + "{" + name + "}"
        expected += literal.replace("{{", "{").replace("}}", "}") + values[name]
    tail = draw(ESCAPED_LITERAL)
    return template + tail, values, expected + tail.replace("{{", "{").replace("}}", "}")


@settings(max_examples=300, deadline=None)
@given(safe_templates())
def test_generated_plain_templates_format_to_the_expected_text(
    case: tuple[str, dict[str, str], str],
) -> None:
    template, values, expected = case
    prompt = PromptTemplate.from_template(template)
    assert prompt.input_variables == sorted(values)
    assert prompt.format(**values) == expected
    assert prompt.invoke(values).to_string() == expected
    assert template.format(**values) == expected  # agrees with Python's own formatting
    chat = ChatPromptTemplate.from_messages([("human", template)])
    assert chat.format_messages(**values) == [HumanMessage(expected)]


@pytest.mark.parametrize("spec", [">100000000", ".5000f", "01001d", "^2000"])
def test_huge_widths_and_precisions_are_rejected(spec: str) -> None:
    template = "{x:" + spec + "}"
    with pytest.raises(TemplateValidationError, match="widths and precisions above 1000"):
        PromptTemplate.from_template(template)


@pytest.mark.parametrize(("spec", "value", "text"), [(">5", "a", "    a"), (".2f", 1.005, "1.00")])
def test_ordinary_format_specs_still_format(spec: str, value: object, text: str) -> None:
    assert PromptTemplate.from_template("{x:" + spec + "}").format(x=value) == text


def test_a_variable_named_self_is_a_variable_like_any_other() -> None:
    # (`format(self, **kwargs)` took ``self=`` for the prompt itself: a TypeError.)
    text = PromptTemplate.from_template("I am {self}.")
    chat = ChatPromptTemplate.from_messages([("system", "I am {self}."), ("human", "{q}")])
    turn = HumanMessagePromptTemplate.from_template("I am {self}.")
    assert text.format(self="me") == "I am me."
    assert text.format_prompt(self="me").to_string() == "I am me."
    assert text.partial(self="me").format() == "I am me."
    assert chat.format_messages(self="me", q="?") == [SystemMessage("I am me."), HumanMessage("?")]
    assert chat.format_prompt(self="me", q="?").to_string() == "System: I am me.\nHuman: ?"
    assert chat.partial(self="me").format(q="?") == "System: I am me.\nHuman: ?"
    assert turn.format(self="me") == HumanMessage("I am me.")
    assert turn.format_messages(self="me") == [HumanMessage("I am me.")]
    assert asyncio.run(text.aformat(self="me")) == "I am me."
    assert asyncio.run(chat.aformat_messages(self="me", q="?"))[0] == SystemMessage("I am me.")
