"""Example selectors: which few-shot examples a prompt shows for the given input."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from leanchain.prompts._string import PromptTemplate

__all__ = ["BaseExampleSelector", "LengthBasedExampleSelector"]

_SPLIT = re.compile("\n| ")


def _words(text: str) -> int:
    """LangChain's default length: the number of pieces between newlines and spaces."""
    return len(_SPLIT.split(text))


class BaseExampleSelector(ABC):
    """Chooses the examples a few-shot prompt shows for one input (LangChain's interface)."""

    @abstractmethod
    def add_example(self, example: dict[str, str]) -> Any:
        """Add an example to the pool."""

    @abstractmethod
    def select_examples(self, input_variables: dict[str, str]) -> list[dict[str, Any]]:
        """The examples to show for these input variables."""

    async def aadd_example(self, example: dict[str, str]) -> Any:
        """Async `add_example` (inline: selecting from memory never blocks)."""
        return self.add_example(example)

    async def aselect_examples(self, input_variables: dict[str, str]) -> list[dict[str, Any]]:
        """Async `select_examples`."""
        return self.select_examples(input_variables)


class LengthBasedExampleSelector(BaseExampleSelector):
    """The first examples, in order, that fit in `max_length` together with the input.

    Lengths are measured with `get_text_length` (default: the words between spaces and
    newlines) over each example as `example_prompt` formats it, and over the input's values
    joined with spaces. Examples are taken while they fit; the first that does not fit stops
    the selection.

    Args:
        examples: the pool, in the order they are preferred.
        example_prompt: formats one example (its variables are the example's keys).
        max_length: the budget for the input plus the examples.
        get_text_length: how long a text is.
    """

    def __init__(
        self,
        examples: Sequence[dict[str, Any]],
        example_prompt: PromptTemplate,
        max_length: int = 2048,
        get_text_length: Callable[[str], int] = _words,
    ) -> None:
        self.examples = list(examples)
        self.example_prompt = example_prompt
        self.max_length = max_length
        self.get_text_length = get_text_length
        self.example_text_lengths = [self._length(example) for example in self.examples]

    def _length(self, example: dict[str, Any]) -> int:
        return self.get_text_length(self.example_prompt.format(**example))

    def add_example(self, example: dict[str, str]) -> None:
        """Add `example` at the end of the pool."""
        self.examples.append(example)
        self.example_text_lengths.append(self._length(example))

    def select_examples(self, input_variables: dict[str, str]) -> list[dict[str, Any]]:
        """The leading examples that fit in what the input leaves of `max_length`."""
        remaining = self.max_length - self.get_text_length(" ".join(input_variables.values()))
        chosen: list[dict[str, Any]] = []
        for example, length in zip(self.examples, self.example_text_lengths, strict=True):
            if remaining <= 0 or remaining - length < 0:
                break
            chosen.append(example)
            remaining -= length
        return chosen
