"""`BasePromptTemplate`: what every prompt shares: variables, partials, input checks, `invoke`."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from weakref import WeakValueDictionary

from leanchain.prompts._template import missing_variables_error
from leanchain.prompts._values import PromptValue
from leanchain.runnables import Runnable, RunnableConfig

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.callbacks.manager import RunManager

__all__ = ["BasePromptTemplate"]


class BasePromptTemplate(Runnable[dict[str, Any], PromptValue]):
    """A runnable that fills a template in from a dict of variables and returns a `PromptValue`.

    Prompts run with run type ``"prompt"``. Variables are reported as LangChain reports them:
    `input_variables` (required, sorted), `optional_variables` (sorted) and
    `partial_variables` (pre-filled values, or zero-argument callables called at format time).
    """

    __slots__ = ("_optional", "_partials", "_required")

    _required: tuple[str, ...]
    _optional: tuple[str, ...]
    _partials: dict[str, Any]

    @property
    def input_variables(self) -> list[str]:
        """The variables a caller must supply, sorted."""
        return list(self._required)

    @property
    def optional_variables(self) -> list[str]:
        """The variables a caller may leave out (optional message placeholders), sorted."""
        return list(self._optional)

    @property
    def partial_variables(self) -> dict[str, Any]:
        """The pre-filled variables: values, or zero-argument callables called at format time."""
        return dict(self._partials)

    # -- formatting -------------------------------------------------------------------------

    @abstractmethod
    def _format_prompt(self, values: Mapping[str, Any]) -> PromptValue:
        """The prompt value for `values` (required variables checked, partials not merged)."""

    @abstractmethod
    def format(self, /, **kwargs: Any) -> str:
        """The prompt as text."""

    def format_prompt(self, /, **kwargs: Any) -> PromptValue:
        """The prompt value for these variables.

        Raises:
            MissingPromptVariablesError: a required variable is missing.
        """
        return self._format_prompt(self._check_missing(kwargs))

    def format_prompt_reusing(
        self, values: Mapping[str, Any], memo: dict[Any, Any], varying: str
    ) -> PromptValue:
        """`format_prompt` of `values`, for a caller that formats again and again with only
        `varying` changing (an agent's scratchpad): the part before it may be kept in `memo`
        and reused while the values it reads are the same objects (see `leanchain.prompts`'
        module notes on reuse). The result always equals ``format_prompt(**values)``; a
        prompt with nothing to keep formats anew.

        Raises:
            MissingPromptVariablesError: a required variable is missing.
        """
        return self._format_prompt(self._check_missing(values))

    def prepare_reuse(self, varying: str) -> None:
        """Decide now, not on the first `format_prompt_reusing` call, what formatting again
        with `varying` changing keeps (an agent calls this when it is built). Nothing to
        decide here; a chat prompt formats its fixed parts (`ChatPromptTemplate`)."""

    async def aformat(self, /, **kwargs: Any) -> str:
        """Async `format` (formatting never blocks, so it runs inline)."""
        return self.format(**kwargs)

    async def aformat_prompt(self, /, **kwargs: Any) -> PromptValue:
        """Async `format_prompt`."""
        return self.format_prompt(**kwargs)

    @abstractmethod
    def partial(self, /, **kwargs: Any) -> BasePromptTemplate:
        """A copy with these variables pre-filled (values or zero-argument callables)."""

    def _merge_partials(self, values: Mapping[str, Any]) -> Mapping[str, Any]:
        """`values` over the partial variables (callables called now)."""
        partials = self._partials
        if not partials:
            return values
        merged = {k: v() if callable(v) else v for k, v in partials.items()}
        merged.update(values)
        return merged

    def _check_missing(self, values: Mapping[str, Any]) -> Mapping[str, Any]:
        for name in self._required:
            if name not in values:
                missing = [n for n in self._required if n not in values]
                raise missing_variables_error(type(self).__name__, missing, self._required, values)
        return values

    def _validate_input(self, input: Any) -> Mapping[str, Any]:
        """The invoke input as a dict of variables (LangChain's single-variable shortcut)."""
        if not isinstance(input, dict):
            if len(self._required) != 1:
                raise TypeError(
                    f"Expected mapping type as input to {type(self).__name__}. "
                    f"Received {type(input)}."
                )
            input = {self._required[0]: input}
        return self._check_missing(input)

    # -- running ----------------------------------------------------------------------------

    def _invoke(self, input: Any, config: RunnableConfig, run: RunManager | None) -> PromptValue:
        return self._format_prompt(self._validate_input(input))

    async def _ainvoke(
        self, input: Any, config: RunnableConfig, run: RunManager | None
    ) -> PromptValue:
        return self._format_prompt(self._validate_input(input))

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> PromptValue:
        """Format the prompt from a dict of variables.

        Raises:
            TypeError: the input is not a dict (and the prompt has more than one variable).
            MissingPromptVariablesError: a required variable is missing.
        """
        return self._call_with_config(self._invoke, input, config, "prompt")

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> PromptValue:
        """Async `invoke`; formatting is quick and never blocks, so it runs inline."""
        return await self._acall_with_config(self._ainvoke, input, config, "prompt")

    # -- schemas ----------------------------------------------------------------------------

    def _input_types(self) -> Mapping[str, Any]:
        """Types of the variables that are not plain strings (chat placeholders)."""
        return {}

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """A model titled ``PromptInput``: required variables, then optional ones (default None)."""
        types = self._input_types()
        required = tuple((name, types.get(name, str)) for name in self._required)
        optional = tuple((name, types.get(name, str)) for name in self._optional)
        key = (required, optional)
        model = _input_models.get(key)
        if model is None:
            model = _input_models.setdefault(key, _prompt_input_model(required, optional))
        return model


_input_models: WeakValueDictionary[
    tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]], type[BaseModel]
] = WeakValueDictionary()
"""Input models already built, for as long as each is in use: a model refers to its field
types, so a cache that held models would keep a user's types alive."""


def _prompt_input_model(
    required: tuple[tuple[str, Any], ...], optional: tuple[tuple[str, Any], ...]
) -> type[BaseModel]:
    from pydantic import ConfigDict, Field, create_model

    # Aliases carry the real names, so names like "_x", "json" or "user-name" are fine.
    fields: dict[str, Any] = {}
    for i, (name, annotation) in enumerate(required):
        fields[f"field_{i}"] = (annotation, Field(..., alias=name))
    for i, (name, annotation) in enumerate(optional, start=len(required)):
        fields[f"field_{i}"] = (annotation | None, Field(None, alias=name))
    model: type[BaseModel] = create_model(
        "PromptInput",
        __config__=ConfigDict(arbitrary_types_allowed=True, populate_by_name=False),
        **fields,
    )
    return model
