"""Prompt templates under attack (CVE-2025-65106, CVE-2026-40087): any text, and a full corpus.

- Any text builds a template or raises `TemplateValidationError`; a template that builds has
  plain variable names only and formats exactly as Python's own ``str.format`` would.
- The corpus (attribute and index access, dunders, positional fields, conversions, nested
  format specs, unbalanced braces) is rejected by every template class when it is built, and
  again when a template that was changed after construction is formatted, before any value is
  touched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reliability_support import FUZZ, Dice, dice

from leanchain.errors import MissingPromptVariablesError, TemplateValidationError
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
    get_template_variables,
)
from leanchain.prompts._template import validate_variable_name

CORPUS: dict[str, list[str]] = {
    "attribute access": [
        "{x.y}",
        "{x.__class__}",
        "{x.__class__.__name__}",
        "{msg.__class__.__init__.__globals__}",
        "{x.__dict__}",
        "{x.__module__}",
        "{x .y}",
        "{x. y}",
        "{ x.y }",
        "{x..y}",
        "{.x}",
        "{x.}",
        "{.}",
        "{x.__class__.__mro__[1].__subclasses__}",
        "{x.__init__.__globals__[os].environ}",
    ],
    "index access": [
        "{x[0]}",
        "{x[-1]}",
        "{x[key]}",
        "{x['key']}",
        "{x[__class__]}",
        "{x[0][1]}",
        "{x[0].y}",
        "{x]}",
        "{x[}",
        "{[x]}",
        "{x[]}",
        "{x[0}",
        "{a[0]:{b}}",
    ],
    "dunders": [
        "{__globals__.x}",
        "{__builtins__[eval]}",
        "{__import__.os}",
        "{self.__dict__}",
        "{obj.method.__globals__[os]}",
    ],
    "positional fields": [
        "{}",
        "{0}",
        "{1}",
        "{00}",
        "{007}",
        "{0.__class__}",
        "{0[0]}",
        "{ }x{}",
        "{:}",
        "{:>10}",
        "{!r}",
        "{!s:>3}",
        "{} {name}",
        "{name}{0}",
        "{٣}",  # an Arabic-Indic three: str.isdigit() says it is a digit
        "{²}",  # a superscript two: a digit too
    ],
    "conversions": [
        "{x!r}",
        "{x!s}",
        "{x!a}",
        "{x!}",
        "{x!r:>3}",
        "{x!x}",
        "{x!rr}",
        "{x.__class__!r}",
        "{x[0]!s}",
    ],
    "nested format specs": [
        "{x:{y}}",
        "{x:{x.__class__}}",
        "{name:{name.__class__.__name__}}",
        "{x:>{width}}",
        "{x:{{}}}",
        "{x:{0}}",
        "{x:{}}",
        "{x:{y:{z}}}",
        "{x:{y!r}}",
        "{x:{y[0]}}",
        "{x:{{y}}}",
        "{x!r:{y}}",
    ],
    "unbalanced braces": [
        "{",
        "}",
        "{x",
        "x}",
        "{x}}",
        "{{x}",
        "}{x}{",
        "{x:",
        "{x!",
        "{x!r",
        "{x:{",
        "a } b",
        "{x:}}",
    ],
    "oversized widths and precisions, in any digits format() reads": [
        "{x:>100000000}",
        "{x:>١٠٠٠٠٠٠٠٠}",  # Arabic-Indic digits: format() reads them as 100000000
        "{x:>१००००००००}",  # Devanagari
        "{x:>１００００００００}",  # fullwidth
        "{x:>๑๐๐๐๐๐๐๐๐}",  # Thai
        "{x:>1٠٠٠٠}",  # one number in two scripts
        "{x:.١٠٠١f}",  # a precision
        "{x:0١٠٠١d}",  # the zero flag, then a width
        "{x:^٢٠٠٠}",
        "{x:>" + "9" * 5000 + "}",  # more digits than int() reads
        "{x:>" + "٩" * 5000 + "}",
        "{ok} then {x:>１００１}",
    ],
    "hidden among plain fields": [
        "hello {ok} then {x.y}",
        "{ok}{0}",
        "{{ok}} {x.__class__}",
        "{ok} {ok.real}",
        "Q: {question}\n{x.__class__}",
        "{a}{b}{c.d}",
    ],
}
ATTACKS = [attack for attacks in CORPUS.values() for attack in attacks]
ATTACK_IDS = [f"{kind}: {attack}" for kind, attacks in CORPUS.items() for attack in attacks]


class Spy:
    """A value that records every way it is touched (attributes, items, formatting)."""

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


def spied(spy: Spy) -> dict[str, Any]:
    names = ["x", "y", "z", "a", "b", "c", "msg", "obj", "name", "ok", "width", "question"]
    return dict.fromkeys([*names, "0", "1", "", "__globals__"], spy)


# -- construction, in every template class ----------------------------------------------------

BUILDERS: dict[str, Callable[[str], object]] = {
    "PromptTemplate": PromptTemplate,
    "PromptTemplate.from_template": PromptTemplate.from_template,
    "PromptTemplate + str": lambda t: PromptTemplate.from_template("{ok} ") + t,
    "str + PromptTemplate": lambda t: PromptTemplate.from_template("{ok}") + PromptTemplate(t),
    "PromptTemplate.partial": lambda t: PromptTemplate(t).partial(ok="1"),
    "get_template_variables": get_template_variables,
    "format_template": lambda t: format_template(t, spied(Spy())),
    "ChatPromptTemplate system": lambda t: ChatPromptTemplate.from_messages([("system", t)]),
    "ChatPromptTemplate human": lambda t: ChatPromptTemplate.from_messages([("human", t)]),
    "ChatPromptTemplate ai": lambda t: ChatPromptTemplate.from_messages([("ai", t)]),
    "ChatPromptTemplate user": lambda t: ChatPromptTemplate.from_messages([("user", t)]),
    "ChatPromptTemplate bare string": lambda t: ChatPromptTemplate.from_messages([t]),
    "ChatPromptTemplate dict": lambda t: ChatPromptTemplate.from_messages(
        [{"role": "user", "content": t}]
    ),
    "ChatPromptTemplate.from_template": ChatPromptTemplate.from_template,
    "ChatPromptTemplate + str": lambda t: ChatPromptTemplate.from_messages([("human", "x")]) + t,
    "HumanMessagePromptTemplate": HumanMessagePromptTemplate.from_template,
    "AIMessagePromptTemplate": AIMessagePromptTemplate.from_template,
    "SystemMessagePromptTemplate": SystemMessagePromptTemplate.from_template,
    "ChatMessagePromptTemplate": lambda t: ChatMessagePromptTemplate(PromptTemplate(t), role="r"),
    "text block": lambda t: BlocksTemplate([{"type": "text", "text": t}]),
    "bare block": lambda t: BlocksTemplate([t]),
    "image url block": lambda t: BlocksTemplate([{"type": "image_url", "image_url": {"url": t}}]),
    "nested block": lambda t: BlocksTemplate([{"type": "x", "deep": [{"v": t}]}]),
    "blocks in a chat prompt": lambda t: ChatPromptTemplate.from_messages(
        [("human", [{"type": "text", "text": t}])]
    ),
}


@pytest.mark.parametrize("build", list(BUILDERS.values()), ids=list(BUILDERS))
@pytest.mark.parametrize("attack", ATTACKS, ids=ATTACK_IDS)
def test_every_template_class_rejects_the_corpus_when_built(
    build: Callable[[str], object], attack: str
) -> None:
    with pytest.raises(TemplateValidationError):
        build(attack)


@pytest.mark.parametrize(
    "name", ["x.y", "x[0]", "0", "", "x!r", "x:y", "{x}", "a}b", "__class__.x", "٣"]
)
def test_placeholder_names_must_be_plain(name: str) -> None:
    with pytest.raises(TemplateValidationError):
        MessagesPlaceholder(name)
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages([("placeholder", "{" + name + "}")])


@pytest.mark.parametrize("template_format", ["jinja2", "mustache", "F-STRING", ""])
def test_only_f_string_templates_exist(template_format: str) -> None:
    with pytest.raises(TemplateValidationError, match="supports 'f-string' templates only"):
        PromptTemplate("{{ x.__class__ }}", template_format=template_format)
    with pytest.raises(TemplateValidationError):
        ChatPromptTemplate.from_messages([("human", "{x}")], template_format=template_format)


def test_a_dunder_looking_plain_name_is_only_a_key() -> None:
    prompt = PromptTemplate("{__class__} {__globals__}")
    assert prompt.input_variables == ["__class__", "__globals__"]
    assert prompt.format(__class__="a", __globals__="b") == "a b"
    with pytest.raises(MissingPromptVariablesError):
        prompt.format(x=1)


def test_jinja_and_mustache_syntax_are_plain_text() -> None:
    prompt = PromptTemplate("{{ x.__class__ }} {{#x}}{{/x}} {{% import os %}}")
    assert prompt.input_variables == []
    assert prompt.format() == "{ x.__class__ } {#x}{/x} {% import os %}"


# -- format time: templates changed after they were built --------------------------------------


def _tampered_prompt(attack: str) -> PromptTemplate:
    prompt = PromptTemplate.from_template("{x}")
    prompt.template = attack  # slots are writable: formatting must not trust construction
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
    "ChatPromptTemplate.invoke": lambda t, v: _tampered_chat(t).invoke(v),
    "ChatPromptTemplate.format_messages": lambda t, v: _tampered_chat(t).format_messages(**v),
    "ChatPromptTemplate.format": lambda t, v: _tampered_chat(t).format(**v),
    "blocks": lambda t, v: _tampered_blocks(t).invoke(v),
}


@pytest.mark.parametrize("run", list(FORMATTERS.values()), ids=list(FORMATTERS))
@pytest.mark.parametrize("attack", ATTACKS, ids=ATTACK_IDS)
def test_a_tampered_template_is_rejected_when_formatted_before_any_value_is_touched(
    run: Callable[[str, dict[str, Any]], object], attack: str
) -> None:
    spy = Spy()
    with pytest.raises(TemplateValidationError):
        run(attack, spied(spy))
    assert spy.touched == []


async def test_a_tampered_template_is_rejected_by_ainvoke() -> None:
    spy = Spy()
    for attack in ATTACKS:
        with pytest.raises(TemplateValidationError):
            await _tampered_prompt(attack).ainvoke(spied(spy))
        with pytest.raises(TemplateValidationError):
            await _tampered_chat(attack).ainvoke(spied(spy))
    assert spy.touched == []


def test_values_are_data_even_when_they_look_like_templates() -> None:
    chat = ChatPromptTemplate.from_messages([("system", "S {x}"), ("human", "{q}")])
    values = {"x": "{q.__class__}", "q": "{x!r} {0} {{}}"}
    assert chat.format_messages(**values) == [
        SystemMessage("S {q.__class__}"),
        HumanMessage("{x!r} {0} {{}}"),
    ]


# -- any text ---------------------------------------------------------------------------------

TEMPLATE_FRAGMENTS = (
    "{",
    "}",
    "{{",
    "}}",
    "{x}",
    "{y}",
    "x",
    "y",
    ".",
    "[",
    "]",
    "0",
    "٣",
    "١٠",
    "٠",
    "１",
    "!r",
    "!",
    ":",
    ">10",
    ".2f",
    "__class__",
    " ",
    "-",
    "é",
    "\n",
)


def template_text(d: Dice) -> str:
    """Near-valid template text: fields, escapes, accessors, specs and conversions in any order."""
    return d.glue(TEMPLATE_FRAGMENTS, max_size=20)


class AnySpec:
    """A value that formats under any spec, showing which spec it got."""

    def __format__(self, spec: str) -> str:
        return f"<{spec}>"


@FUZZ
@given(dice(template_text))
def test_any_text_builds_a_plain_template_or_raises_template_validation_error(
    text: str,
) -> None:
    try:
        prompt = PromptTemplate(text)
    except TemplateValidationError:
        prompt = None
    if prompt is None:
        with pytest.raises(TemplateValidationError):
            ChatPromptTemplate.from_messages([("human", text)])
        spy = Spy()
        with pytest.raises(TemplateValidationError):
            _tampered_prompt(text).format(**spied(spy))
        assert spy.touched == []
        return
    for name in prompt.input_variables:
        validate_variable_name(name)
    values = dict.fromkeys(prompt.input_variables, AnySpec())
    # A template that passes is one Python's own formatting reads the same way.
    assert prompt.format(**values) == text.format(**values)
    chat = ChatPromptTemplate.from_messages([("human", text)])
    assert chat.format_messages(**values) == [HumanMessage(text.format(**values))]


@FUZZ
@given(
    st.text(st.characters(categories=["Nd"]), min_size=1, max_size=11),
    st.sampled_from([">", "<", "^", "0", ".", "0>"]),
)
def test_a_width_in_any_digits_is_within_the_limit_or_refused(digits: str, prefix: str) -> None:
    """Every Unicode decimal digit is one to format(): a spec asks for at most 1000, in any
    script, or the template is refused."""
    spec = prefix + digits + ("f" if prefix == "." else "")
    if int(digits) > 1000:
        with pytest.raises(TemplateValidationError, match="widths and precisions above 1000"):
            PromptTemplate("{x:" + spec + "}")
        return
    text = PromptTemplate("{x:" + spec + "}").format(x=1.5)
    assert text == format(1.5, spec)
    assert len(text) <= 1000 + len(format(1.5, "f"))
