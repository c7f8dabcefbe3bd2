"""`PromptTemplate`: one f-string template that formats to a `StringPromptValue`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from leanchain.errors import TemplateValidationError
from leanchain.prompts._base import BasePromptTemplate
from leanchain.prompts._reuse import (
    fixed,
    formats_as,
    head_key,
    snapshot,
    split_at_last,
    unchanged,
)
from leanchain.prompts._template import compile_template
from leanchain.prompts._values import StringPromptValue

__all__ = ["PromptTemplate", "check_template_format"]

_new = object.__new__
_NO_PLACEHOLDERS: frozenset[str] = frozenset()


def check_template_format(template_format: str) -> None:
    """Accept ``"f-string"`` only: leanchain ships no mustache or jinja2 engine.

    Raises:
        TemplateValidationError: any other format.
    """
    if template_format != "f-string":
        raise TemplateValidationError(
            f"Unsupported template format {template_format!r}: leanchain supports "
            "'f-string' templates only."
        )


class PromptTemplate(BasePromptTemplate):
    """A text prompt from an f-string template: ``PromptTemplate.from_template("Hi {name}")``.

    Fields are plain variable names only (see `compile_template`); ``{{`` and ``}}`` are
    literal braces. `input_variables` is always derived from the template (sorted, minus the
    partial variables), whatever was passed.

    Args:
        template: the f-string template.
        input_variables: accepted for LangChain compatibility and checked only when
            `validate_template` is true; the template decides the variables.
        partial_variables: pre-filled variables (values or zero-argument callables).
        template_format: ``"f-string"`` (the only format leanchain supports).
        validate_template: check that `input_variables` plus the partial variables cover
            every variable of the template.

    Raises:
        TemplateValidationError: a field is not a plain variable name, or the braces do not
            balance.
        ValueError: `validate_template` is true and the declared variables do not cover the
            template.
    """

    __slots__ = ("template", "template_format", "validate_template")

    def __init__(
        self,
        template: str,
        *,
        input_variables: Sequence[str] | None = None,
        partial_variables: Mapping[str, Any] | None = None,
        template_format: str = "f-string",
        validate_template: bool = False,
    ) -> None:
        check_template_format(template_format)
        compiled = compile_template(template)
        partials = dict(partial_variables or {})
        if validate_template:
            if input_variables is None:
                raise ValueError("Input variables must be provided to validate the template.")
            declared = [*input_variables, *partials]
            if not set(compiled.variables) <= set(declared):
                raise ValueError(
                    "Invalid prompt schema; check for mismatched or missing input parameters "
                    f"from {declared}."
                )
        self.template = template
        """The f-string template."""
        self.template_format = template_format
        """Always ``"f-string"``."""
        self.validate_template = validate_template
        """Whether the declared input variables were checked against the template."""
        self._partials = partials
        self._required = tuple(v for v in compiled.variables if v not in partials)
        self._optional = ()

    @classmethod
    def from_template(
        cls,
        template: str,
        *,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> PromptTemplate:
        """A prompt from a template; its variables are the template's fields."""
        return cls(
            template,
            template_format=template_format,
            partial_variables=partial_variables,
            **kwargs,
        )

    @classmethod
    def from_file(
        cls,
        template_file: str | os.PathLike[str],
        encoding: str | None = None,
        **kwargs: Any,
    ) -> PromptTemplate:
        """A prompt from a text file's contents, with the same rules as `from_template`."""
        return cls.from_template(Path(template_file).read_text(encoding=encoding), **kwargs)

    def _text(self, values: Mapping[str, Any]) -> str:
        # Looked up (and so validated) by text on every call, not cached on the object.
        return compile_template(self.template).format(self._merge_partials(values))

    def format(self, /, **kwargs: Any) -> str:
        """The template filled in with these variables (and the partial ones).

        Raises:
            MissingPromptVariablesError: a required variable is missing.
        """
        return self._text(self._check_missing(kwargs))

    def _format_prompt(self, values: Mapping[str, Any]) -> StringPromptValue:
        return StringPromptValue(self._text(values))

    def format_prompt_reusing(
        self, values: Mapping[str, Any], memo: dict[Any, Any], varying: str
    ) -> StringPromptValue:
        """`format_prompt` of `values`, keeping the text before `varying` (the template's
        last field) in `memo` while the values it reads are the same (`BasePromptTemplate`).

        A reuse checks that the template text and the partials are the objects the head was
        formatted from and that the values it read are the same; the required variables are
        then there too (every one but `varying` is read by the head, and `varying` is a str).
        """
        tail = values.get(varying)
        kept = memo.get(head_key(self))
        if kept is not None and type(tail) is str:
            template, partials, reads, head, rest = kept
            if template is self.template and partials is self._partials:
                if reads is None:  # nothing to keep for this prompt
                    return self._format_prompt(self._check_missing(values))
                if unchanged(reads, values):
                    value = _new(StringPromptValue)  # (`StringPromptValue(...)`, a call less)
                    value.text = head + tail + rest
                    return value
        return self._format_and_keep(self._check_missing(values), memo, varying, tail)

    def _format_and_keep(
        self, values: Mapping[str, Any], memo: dict[Any, Any], varying: str, tail: Any
    ) -> StringPromptValue:
        """Format `values` and keep the head for the next call, when one can be kept."""
        if type(tail) is not str:
            return self._format_prompt(values)
        template, partials = self.template, self._partials
        compiled = compile_template(template)
        # A callable partial is called on every format, a subclass may format otherwise:
        # then nothing is kept.
        split = (
            split_at_last(compiled, varying)
            if fixed(partials) and formats_as(self, PromptTemplate)
            else None
        )
        if split is None:
            memo[head_key(self)] = (template, partials, None, None, None)
            return self._format_prompt(values)
        head, rest = split
        text = head.format(self._merge_partials(values))
        reads = snapshot(values, partials, head.variables, _NO_PLACEHOLDERS)
        if reads is not None:
            memo[head_key(self)] = (template, partials, reads, text, rest)
        return StringPromptValue(text + tail + rest)

    def format_prompt(self, /, **kwargs: Any) -> StringPromptValue:
        """The `StringPromptValue` for these variables."""
        return self._format_prompt(self._check_missing(kwargs))

    def partial(self, /, **kwargs: Any) -> PromptTemplate:
        """A copy with these variables pre-filled (values or zero-argument callables)."""
        return PromptTemplate(
            self.template,
            partial_variables={**self._partials, **kwargs},
            template_format=self.template_format,
        )

    def __add__(self, other: PromptTemplate | str) -> PromptTemplate:
        """The two templates one after the other; variables and partials are united.

        Raises:
            ValueError: both templates pre-fill the same variable.
            NotImplementedError: `other` is neither a template nor a string.
        """
        if isinstance(other, str):
            other = PromptTemplate(other, template_format=self.template_format)
        if not isinstance(other, PromptTemplate):
            raise NotImplementedError(f"Unsupported operand type for +: {type(other)}")
        if self.template_format != other.template_format:
            raise ValueError("Cannot add templates of different formats")
        if set(self._partials) & set(other._partials):
            raise ValueError("Cannot have same variable partialed twice.")
        return PromptTemplate(
            self.template + other.template,
            partial_variables={**self._partials, **other._partials},
            template_format=self.template_format,
        )

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and isinstance(other, PromptTemplate)
            and other.template == self.template
            and other._partials == self._partials
        )

    def __hash__(self) -> int:
        return hash((type(self), self.template))

    def __repr__(self) -> str:
        partials = f", partial_variables={self._partials!r}" if self._partials else ""
        return (
            f"PromptTemplate(input_variables={list(self._required)!r}{partials}, "
            f"template={self.template!r})"
        )
