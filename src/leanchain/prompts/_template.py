"""Safe f-string templates: parse once, validate every field, format without `str.format`.

A template is split into literal text and fields by the standard library's format-string parser
(linear time, no evaluation). Every field must be a plain variable name: attribute access,
indexing, positional fields (``{}``), all-digit names, conversions (``!r``) and nested fields
in a format spec are rejected with `TemplateValidationError`. Formatting then walks the
validated parts and looks each name up in a dict, so nothing reflective ever runs.

`compile_template` is cached by template text and runs on every format call: a template that
was changed after construction, or built around the constructor, is validated again before
anything is formatted (LangChain's format-time bypass, issue #40240).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from string import Formatter
from typing import Any

from leanchain.errors import MissingPromptVariablesError, TemplateValidationError

__all__ = [
    "CompiledTemplate",
    "compile_template",
    "format_template",
    "get_template_variables",
    "missing_variables_error",
    "validate_variable_name",
]

_parse = Formatter().parse


class CompiledTemplate:
    """A validated template: ``(literal, name, spec)`` parts and its sorted variable names."""

    __slots__ = ("derived", "parts", "variables")

    def __init__(self, parts: tuple[tuple[str, str | None, str], ...], variables: tuple[str, ...]):
        self.parts = parts
        """Literal text, then the field's name (``None`` for trailing text) and format spec."""
        self.variables = variables
        """The distinct variable names, sorted."""
        self.derived: dict[Any, Any] = {}
        """What was derived from the template once, kept with it (the compile cache keeps
        the template, so a prompt formatted again and again derives it once)."""

    def format(self, values: Mapping[str, Any], owner: str = "PromptTemplate") -> str:
        """Fill the template in from `values`.

        Raises:
            MissingPromptVariablesError: a variable of the template is not in `values`.
        """
        pieces: list[str] = []
        append = pieces.append
        for literal, name, spec in self.parts:
            if literal:
                append(literal)
            if name is None:
                continue
            try:
                value = values[name]
            except KeyError:
                raise _missing(self.variables, values, owner) from None
            append(value if not spec and type(value) is str else format(value, spec))
        return "".join(pieces)


def validate_variable_name(name: str) -> None:
    """Check that `name` is a plain variable name.

    Hyphens, spaces and a leading digit are allowed (as in LangChain); attribute access,
    indexing, braces, the empty name and all-digit names are not.

    Raises:
        TemplateValidationError: the name is not plain.
    """
    if not name:
        raise TemplateValidationError(
            "Invalid variable name '' in f-string template. Variable names cannot be empty "
            "as empty fields ({}) are interpreted as positional arguments."
        )
    if "." in name or "[" in name or "]" in name:
        raise TemplateValidationError(
            f"Invalid variable name {name!r} in f-string template. Variable names cannot "
            "contain attribute access (.) or indexing ([])."
        )
    if name.isdigit():
        raise TemplateValidationError(
            f"Invalid variable name {name!r} in f-string template. Variable names cannot be "
            "all digits as they are interpreted as positional arguments."
        )
    if "{" in name or "}" in name or "!" in name or ":" in name:
        raise TemplateValidationError(
            f"Invalid variable name {name!r} in f-string template. Variable names cannot "
            "contain braces, '!' or ':'."
        )


MAX_SPEC_NUMBER = 1000
"""The largest width or precision a format spec may ask for."""
_DIGIT_RUNS = re.compile(r"\d+")
r"""Runs of the digits `format` reads in a spec: every Unicode decimal digit (category Nd:
``١٠٠`` is 100 to it), which is what ``\d`` matches in a str pattern."""
_LONGEST_RUN = 12
"""A run of more digits than this is refused whatever it says (leading zeros included): `int`
would refuse a run of 5,000 digits, and no width needs that many."""


def _too_large(run: str) -> bool:
    """Whether a run of digits asks for more than `MAX_SPEC_NUMBER`."""
    return len(run) > _LONGEST_RUN or int(run) > MAX_SPEC_NUMBER


def _validate_field(name: str, spec: str, conversion: str | None) -> None:
    validate_variable_name(name)
    if conversion is not None:
        raise TemplateValidationError(
            f"Invalid conversion '!{conversion}' for variable {name!r} in f-string template. "
            "Conversions (!r, !s, !a) are not allowed."
        )
    if "{" in spec or "}" in spec:
        raise TemplateValidationError(
            "Invalid format specifier in f-string template. "
            "Nested replacement fields are not allowed."
        )
    if any(_too_large(run) for run in _DIGIT_RUNS.findall(spec)):
        # `{x:>100000000}` (or `{x:>١٠٠٠٠٠٠٠٠}`) would build a 100 MB string from a short
        # template.
        shown = spec if len(spec) <= 40 else f"{spec[:40]}..."
        raise TemplateValidationError(
            f"Invalid format specifier {shown!r} for variable {name!r} in f-string template: "
            f"widths and precisions above {MAX_SPEC_NUMBER} are not allowed."
        )


_CACHED_CHARS = 4096
"""The longest template text kept in the compile cache: a longer one (a document pasted into
a template built per request) is compiled on each use instead of being held by the cache."""


def _compile(template: str) -> CompiledTemplate:
    if len(template) <= _CACHED_CHARS:
        return _compile_cached(template)
    return _compile_text(template)


def _compile_text(template: str) -> CompiledTemplate:
    parts: list[tuple[str, str | None, str]] = []
    names: set[str] = set()
    try:
        for literal, name, spec, conversion in _parse(template):
            if name is None:
                parts.append((literal, None, ""))
                continue
            _validate_field(name, spec or "", conversion)
            names.add(name)
            parts.append((literal, name, spec or ""))
    except TemplateValidationError:
        raise
    except ValueError as exc:  # unbalanced braces: the parser's own message
        raise TemplateValidationError(str(exc)) from None
    return CompiledTemplate(tuple(_merge_literals(parts)), tuple(sorted(names)))


_compile_cached = lru_cache(maxsize=4096)(_compile_text)


def _merge_literals(
    parts: list[tuple[str, str | None, str]],
) -> Iterable[tuple[str, str | None, str]]:
    """Join runs of literal-only parts (``{{`` splits the text) so formatting does less work."""
    pending = ""
    for literal, name, spec in parts:
        if name is None:
            pending += literal
            continue
        yield pending + literal, name, spec
        pending = ""
    if pending:
        yield pending, None, ""


def compile_template(template: str) -> CompiledTemplate:
    """Parse and validate an f-string template (cached by its text).

    Raises:
        TemplateValidationError: a field is not a plain variable name, or the braces do not
            balance.
    """
    if type(template) is not str:
        if not isinstance(template, str):
            raise TypeError(f"A template must be a str, got {type(template)}")
        template = str.__str__(template)  # a subclass could lie about its text
    return _compile(template)


def get_template_variables(template: str) -> list[str]:
    """The variable names of an f-string template, sorted (validating it first)."""
    return list(compile_template(template).variables)


def format_template(template: str, values: Mapping[str, Any]) -> str:
    """Validate `template`, then fill it in from `values` (a safe ``template.format(**values)``).

    Raises:
        TemplateValidationError: the template is not safe.
        MissingPromptVariablesError: a variable is not in `values`.
    """
    return compile_template(template).format(values)


def _set_repr(names: Sequence[str]) -> str:
    # Sorted so the message is the same on every run (a set's order is not).
    return "{" + ", ".join(repr(name) for name in sorted(names)) + "}"


def missing_variables_error(
    owner: str, missing: Sequence[str], expected: Sequence[str], received: Iterable[str]
) -> MissingPromptVariablesError:
    """LangChain's error for variables missing from a prompt's input."""
    example = min(missing)
    return MissingPromptVariablesError(
        f"Input to {owner} is missing variables {_set_repr(missing)}. "
        f" Expected: {list(expected)} Received: {list(received)}\n"
        f"Note: if you intended {{{example}}} to be part of the string and not a variable, "
        f"please escape it with double curly braces like: '{{{{{example}}}}}'."
    )


def _missing(
    variables: Sequence[str], values: Mapping[str, Any], owner: str
) -> MissingPromptVariablesError:
    missing = [name for name in variables if name not in values]
    return missing_variables_error(owner, missing, variables, values)
