"""Few-shot prompts: examples formatted into a text prompt or a run of chat messages.

**leanchain:** each example is formatted on its own and the results are joined; they are never
parsed again as a template, so braces in an example's text are plain text (LangChain joins
everything into one template first, so an example holding ``{x}`` fails or fills in ``x``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from leanchain.messages import BaseMessage
from leanchain.prompts._base import BasePromptTemplate
from leanchain.prompts._chat import ChatPromptTemplate
from leanchain.prompts._example_selectors import BaseExampleSelector
from leanchain.prompts._message import BaseMessagePromptTemplate
from leanchain.prompts._string import PromptTemplate, check_template_format
from leanchain.prompts._values import ChatPromptValue, StringPromptValue

__all__ = ["FewShotChatMessagePromptTemplate", "FewShotPromptTemplate"]


def _check_source(
    examples: Sequence[dict[str, Any]] | None, selector: BaseExampleSelector | None
) -> None:
    if examples is not None and selector is not None:
        raise ValueError("Only one of 'examples' and 'example_selector' should be provided")
    if examples is None and selector is None:
        raise ValueError("One of 'examples' and 'example_selector' should be provided")


class _Examples:
    """The examples for one call: the fixed list, or what the selector picks for the input."""

    __slots__ = ()

    examples: list[dict[str, Any]] | None
    example_selector: BaseExampleSelector | None

    def _pick(self, values: Mapping[str, Any]) -> list[dict[str, Any]]:
        if self.examples is not None:
            return self.examples
        assert self.example_selector is not None
        return self.example_selector.select_examples(dict(values))


class FewShotPromptTemplate(_Examples, BasePromptTemplate):
    """A text prompt: `prefix`, the formatted examples, then `suffix`, joined by a separator.

    ``FewShotPromptTemplate(examples=[{"q": "2+2", "a": "4"}], example_prompt=PromptTemplate
    .from_template("Q: {q}\\nA: {a}"), prefix="You add.", suffix="Q: {input}\\nA:")``

    The variables are those of `prefix` and `suffix` (less the partial ones). Empty pieces
    are left out of the join, as in LangChain.

    Raises:
        ValueError: both or neither of `examples` and `example_selector`.
    """

    __slots__ = (
        "_prefix",
        "_suffix",
        "example_prompt",
        "example_selector",
        "example_separator",
        "examples",
        "prefix",
        "suffix",
        "template_format",
    )

    def __init__(
        self,
        *,
        example_prompt: PromptTemplate,
        suffix: str,
        examples: Sequence[dict[str, Any]] | None = None,
        example_selector: BaseExampleSelector | None = None,
        prefix: str = "",
        example_separator: str = "\n\n",
        input_variables: Sequence[str] | None = None,
        partial_variables: Mapping[str, Any] | None = None,
        template_format: str = "f-string",
        validate_template: bool = False,
    ) -> None:
        _check_source(examples, example_selector)
        check_template_format(template_format)
        self.examples = None if examples is None else list(examples)
        self.example_selector = example_selector
        self.example_prompt = example_prompt
        self.prefix = prefix
        self.suffix = suffix
        self.example_separator = example_separator
        self.template_format = template_format
        self._prefix = PromptTemplate(prefix)
        self._suffix = PromptTemplate(suffix)
        self._partials = dict(partial_variables or {})
        names = {*self._prefix.input_variables, *self._suffix.input_variables}
        required = names - set(self._partials)
        if validate_template and input_variables is not None and set(input_variables) != required:
            raise ValueError(
                f"Got mismatched input_variables. Expected: {sorted(required)}. "
                f"Got: {list(input_variables)}"
            )
        self._required = tuple(sorted(required))
        self._optional = ()

    def _text(self, values: Mapping[str, Any]) -> str:
        values = self._merge_partials(values)
        shown = [self.example_prompt.format(**example) for example in self._pick(values)]
        pieces = [self._prefix._text(values), *shown, self._suffix._text(values)]
        return self.example_separator.join(piece for piece in pieces if piece)

    def format(self, /, **kwargs: Any) -> str:
        """The prompt text for these variables."""
        return self._text(self._check_missing(kwargs))

    def _format_prompt(self, values: Mapping[str, Any]) -> StringPromptValue:
        return StringPromptValue(self._text(values))

    def partial(self, /, **kwargs: Any) -> FewShotPromptTemplate:
        """A copy with these variables pre-filled."""
        return FewShotPromptTemplate(
            example_prompt=self.example_prompt,
            suffix=self.suffix,
            examples=self.examples,
            example_selector=self.example_selector,
            prefix=self.prefix,
            example_separator=self.example_separator,
            partial_variables={**self._partials, **kwargs},
        )

    def __repr__(self) -> str:
        return (
            f"FewShotPromptTemplate(input_variables={list(self._required)!r}, "
            f"prefix={self.prefix!r}, suffix={self.suffix!r})"
        )


class FewShotChatMessagePromptTemplate(_Examples, BasePromptTemplate, BaseMessagePromptTemplate):
    """The examples as chat messages: each one formatted by `example_prompt`, in order.

    Put it inside a chat prompt, where the examples belong::

        ChatPromptTemplate.from_messages(
            [("system", "..."), FewShotChatMessagePromptTemplate(...), ("human", "{input}")]
        )

    With an `example_selector`, the prompt's variables (`input_variables`) are what the
    selector is given.

    Raises:
        ValueError: both or neither of `examples` and `example_selector`.
    """

    __slots__ = ("example_prompt", "example_selector", "examples")

    def __init__(
        self,
        *,
        example_prompt: ChatPromptTemplate | BaseMessagePromptTemplate,
        examples: Sequence[dict[str, Any]] | None = None,
        example_selector: BaseExampleSelector | None = None,
        input_variables: Sequence[str] | None = None,
    ) -> None:
        _check_source(examples, example_selector)
        self.examples = None if examples is None else list(examples)
        self.example_selector = example_selector
        self.example_prompt = example_prompt
        self._required = tuple(sorted(input_variables or ()))
        self._optional = ()
        self._partials = {}

    def _format_into(self, values: Mapping[str, Any], out: list[BaseMessage]) -> None:
        picked = {name: values[name] for name in self._required if name in values}
        for example in self._pick(picked):
            out.extend(self.example_prompt.format_messages(**example))

    def format_messages(self, /, **kwargs: Any) -> list[BaseMessage]:
        """The examples' messages."""
        out: list[BaseMessage] = []
        self._format_into(self._check_missing(kwargs), out)
        return out

    def _format_prompt(self, values: Mapping[str, Any]) -> ChatPromptValue:
        out: list[BaseMessage] = []
        self._format_into(values, out)
        return ChatPromptValue(out)

    def format(self, /, **kwargs: Any) -> str:
        """The examples as a transcript (``"Human: ...\\nAI: ..."``)."""
        return self.format_prompt(**kwargs).to_string()

    def partial(self, /, **kwargs: Any) -> FewShotChatMessagePromptTemplate:
        """Partials are not supported here: put them on the chat prompt around it."""
        raise NotImplementedError(
            "FewShotChatMessagePromptTemplate has no partial variables; partial the "
            "ChatPromptTemplate it is in instead"
        )

    def __repr__(self) -> str:
        return (
            f"FewShotChatMessagePromptTemplate(input_variables={list(self._required)!r}, "
            f"example_prompt={self.example_prompt!r})"
        )
