"""The f-string engine: what a template may contain, and how it is filled in."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from leanchain.errors import MissingPromptVariablesError, PromptError, TemplateValidationError
from leanchain.prompts import format_template, get_template_variables
from leanchain.prompts._template import compile_template, validate_variable_name

ATTRIBUTE = (
    "Invalid variable name {name!r} in f-string template. Variable names cannot contain "
    "attribute access (.) or indexing ([])."
)
DIGITS = (
    "Invalid variable name {name!r} in f-string template. Variable names cannot be all "
    "digits as they are interpreted as positional arguments."
)
NESTED = "Invalid format specifier in f-string template. Nested replacement fields are not allowed."
EMPTY = (
    "Invalid variable name '' in f-string template. Variable names cannot be empty as empty "
    "fields ({}) are interpreted as positional arguments."
)


def conversion(name: str, conv: str) -> str:
    return (
        f"Invalid conversion '!{conv}' for variable {name!r} in f-string template. "
        "Conversions (!r, !s, !a) are not allowed."
    )


# -- what is allowed -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "values", "expected"),
    [
        ("Hello {name}!", {"name": "Ada"}, "Hello Ada!"),
        ("{a}{b}{a}", {"a": "x", "b": "y"}, "xyx"),
        ("{{literal}} {x}", {"x": 1}, "{literal} 1"),
        ("}}{{", {}, "}{"),
        ("no fields", {}, "no fields"),
        ("", {}, ""),
        ("{user-name}", {"user-name": "u"}, "u"),
        ("{2fast}", {"2fast": "f"}, "f"),
        ("{my var}", {"my var": "v"}, "v"),
        ("{x:>5}|", {"x": "ab"}, "   ab|"),
        ("{x:.2f}", {"x": 3.14159}, "3.14"),
        ("{x:05d}", {"x": 42}, "00042"),
        ("{x:%Y}", {"x": datetime.date(2024, 5, 1)}, "2024"),
        ("{x}", {"x": [1, "a"]}, "[1, 'a']"),
        ("{x}", {"x": None}, "None"),
        ("{é}", {"é": "accent"}, "accent"),
        ("a\n{x}\nb", {"x": "\n"}, "a\n\n\nb"),
    ],
)
def test_plain_names_format_like_str_format(
    template: str, values: dict[str, Any], expected: str
) -> None:
    assert format_template(template, values) == expected
    assert template.format(**values) == expected  # the reference behaviour


def test_variables_are_distinct_and_sorted() -> None:
    assert get_template_variables("{b} {a} {b} {c:>3}") == ["a", "b", "c"]
    assert get_template_variables("{{not}} {x}") == ["x"]
    assert get_template_variables("plain") == []


def test_extra_values_are_ignored() -> None:
    assert format_template("{a}", {"a": 1, "b": 2}) == "1"


def test_values_are_formatted_with_their_own_format_method() -> None:
    class Money:
        def __format__(self, spec: str) -> str:
            return f"<{spec}>"

    assert format_template("{m} {m:,}", {"m": Money()}) == "<> <,>"


def test_a_missing_variable_names_it_and_the_expected_ones() -> None:
    with pytest.raises(MissingPromptVariablesError) as info:
        format_template("{a} {b} {c}", {"a": 1})
    assert str(info.value) == (
        "Input to PromptTemplate is missing variables {'b', 'c'}.  Expected: ['a', 'b', 'c'] "
        "Received: ['a']\nNote: if you intended {b} to be part of the string and not a "
        "variable, please escape it with double curly braces like: '{{b}}'."
    )
    assert isinstance(info.value, KeyError)
    assert isinstance(info.value, PromptError)


# -- what is rejected ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{obj.attr}", ATTRIBUTE.format(name="obj.attr")),
        ("{msg.__class__.__name__}", ATTRIBUTE.format(name="msg.__class__.__name__")),
        ("{a[0]}", ATTRIBUTE.format(name="a[0]")),
        ("{a[key]}", ATTRIBUTE.format(name="a[key]")),
        ("{a]}", ATTRIBUTE.format(name="a]")),
        ("{0[0]}", ATTRIBUTE.format(name="0[0]")),
        ("{0.real}", ATTRIBUTE.format(name="0.real")),
        ("{0}", DIGITS.format(name="0")),
        ("{123}", DIGITS.format(name="123")),
        ("hi {}", EMPTY),
        ("{:>3}", EMPTY),
        ("{!r}", EMPTY),
        ("{x!r}", conversion("x", "r")),
        ("{x!s}", conversion("x", "s")),
        ("{x!a:>4}", conversion("x", "a")),
        ("{x:{y}}", NESTED),
        ("{x:{{}}}", NESTED),
        ("{name:{name.__class__.__name__}}", NESTED),
        ("{x:>{width}}", NESTED),
    ],
)
def test_unsafe_fields_are_rejected(template: str, message: str) -> None:
    with pytest.raises(TemplateValidationError) as info:
        compile_template(template)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("x}", "Single '}' encountered in format string"),
        ("x{", "Single '{' encountered in format string"),
        ("{a", "expected '}' before end of string"),
        ("{a[}", "expected '}' before end of string"),
        ("{a!rr}", "expected ':' after conversion specifier"),
    ],
)
def test_unbalanced_braces_keep_pythons_message(template: str, message: str) -> None:
    with pytest.raises(TemplateValidationError) as info:
        compile_template(template)
    assert str(info.value) == message


def test_the_first_bad_field_is_reported() -> None:
    with pytest.raises(TemplateValidationError) as info:
        compile_template("{ok} {0} {a.b}")
    assert str(info.value) == DIGITS.format(name="0")


@pytest.mark.parametrize("name", ["", "a.b", "a[0]", "7", "a{b", "a}b", "a!r", "a:b"])
def test_validate_variable_name_rejects(name: str) -> None:
    with pytest.raises(TemplateValidationError):
        validate_variable_name(name)


@pytest.mark.parametrize("name", ["a", "user-name", "my var", "2fast", "_private", "é"])
def test_validate_variable_name_accepts(name: str) -> None:
    validate_variable_name(name)


def test_a_non_string_template_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^A template must be a str, got <class 'int'>$"):
        compile_template(3)  # type: ignore[arg-type]


def test_a_str_subclass_is_read_by_its_real_text() -> None:
    class Lying(str):
        def __str__(self) -> str:
            return "{x.__class__}"

    assert format_template(Lying("{x}!"), {"x": 1}) == "1!"


def test_invalid_templates_are_not_cached_and_fail_every_time() -> None:
    for _ in range(3):
        with pytest.raises(TemplateValidationError):
            format_template("{x.y}", {"x": 1})


# -- linear time -----------------------------------------------------------------------------


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    ("template", "outcome"),
    [
        ("{" * 1_000_000, "{" * 500_000),
        ("}" * 1_000_000, "}" * 500_000),
        ("{a}" * 300_000, "b" * 300_000),
        ("{{" * 500_000 + "{", TemplateValidationError("Single '{' encountered in format string")),
        ("{a[" * 300_000, TemplateValidationError("expected '}' before end of string")),
        ("{a:" * 300_000, TemplateValidationError("unmatched '{' in format spec")),
        ("{a:{" * 250_000, TemplateValidationError("unmatched '{' in format spec")),
        ("{" + "a" * 1_000_000, TemplateValidationError("expected '}' before end of string")),
        ("{a.b}" * 200_000, TemplateValidationError(ATTRIBUTE.format(name="a.b"))),
    ],
)
def test_megabyte_templates_are_handled_in_one_pass(template: str, outcome: object) -> None:
    if isinstance(outcome, str):
        assert format_template(template, {"a": "b"}) == outcome
        return
    with pytest.raises(TemplateValidationError) as info:
        compile_template(template)
    assert str(info.value) == str(outcome)
