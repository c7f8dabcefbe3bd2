"""What the middleware that ask a model of their own share: their prompt, checked when the
middleware is built, and the run's task as text for it."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from leanchain.errors import AgentConfigurationError
from leanchain.prompts import BasePromptTemplate, ChatPromptTemplate

__all__ = ["checked_prompt", "task_text"]


def checked_prompt(
    prompt: str | BasePromptTemplate, who: str, required: str, optional: Collection[str]
) -> BasePromptTemplate:
    """`prompt` as a template (a str is a chat template of one human message), checked.

    Raises:
        AgentConfigurationError: it is neither, lacks the variable `required`, or takes a
            variable other than it and `optional` (named in that order).
    """
    if isinstance(prompt, str):
        prompt = ChatPromptTemplate.from_template(prompt)
    if not isinstance(prompt, BasePromptTemplate):
        raise AgentConfigurationError(
            f"{who} prompt must be a str or a prompt template, got {prompt!r}"
        )
    variables = set(prompt.input_variables)
    if required not in variables or variables - {required, *optional}:
        may = " and ".join(repr(name) for name in optional)
        raise AgentConfigurationError(
            f"{who} prompt must take the variable {required!r} and may take {may}; it takes "
            f"{sorted(variables)!r}"
        )
    return prompt


def task_text(inputs: dict[str, Any]) -> str:
    """The run's task for a prompt: its ``input``, else its text inputs as ``key: value``."""
    task = inputs.get("input")
    if isinstance(task, str):
        return task
    lines = [f"{key}: {value}" for key, value in inputs.items() if isinstance(value, str)]
    return "\n".join(lines) or "(not given)"
