"""A chat model called through a binding, its bound arguments read once (`BoundModelCall`).

`model.bind(stop=[...])` and `model.bind_tools(tools)` make a `RunnableBinding`, which an
agent calls on every step. Through `invoke`, each call merges a config, unpacks the bound
arguments into keywords and packs them again. The binding asks the model for a
`DirectCall` instead (`BaseChatModel._direct_call`): ``stop`` is split from the rest once,
and a call that nobody watches (no callback handler, no interceptor, `invoke` not
overridden) goes from the input straight to the model's reply
(`BaseChatModel._unwatched_reply`, or a model's own call class's `quiet`: the scripted
models' `RecordedCall` splits their request's parts from the bound arguments once too).
Any other call is `invoke` itself, with the arguments as the binding would have passed them.
A caller that has checked the config already (an agent's planning call) calls `quiet`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from leanchain.runnables.config import RunnableConfig, ensure_config

from ._intercept import INTERCEPTORS

if TYPE_CHECKING:
    from leanchain.messages import AIMessage

    from ._base import BaseChatModel, LanguageModelInput

__all__ = ["BoundModelCall", "direct_call"]

_INVOKE_PARAMETERS: Final = frozenset({"input", "config"})
"""Bound keywords that `invoke` refuses (it has parameters of those names)."""


def direct_call(
    model: BaseChatModel,
    kwargs: Mapping[str, Any],
    kind: type[BoundModelCall] | None = None,
) -> BoundModelCall | None:
    """`model`'s calls with the bound `kwargs`, or ``None`` (the binding then calls `invoke`).

    ``None`` when a bound keyword is one of `invoke`'s own parameters: the call's error is
    then `invoke`'s own. `kind` is the model's own call class (`BoundModelCall` by default).
    """
    if not _INVOKE_PARAMETERS.isdisjoint(kwargs):
        return None
    return (kind or BoundModelCall)(model, kwargs)


class BoundModelCall:
    """``model.invoke(input, config, **kwargs)`` and its async twin, the arguments read once.

    Args:
        model: the bound chat model.
        kwargs: the binding's keyword arguments (copied: the binding's dict is its own).
    """

    __slots__ = ("_base", "_kwargs", "_model", "_stop", "_whole")

    def __init__(self, model: BaseChatModel, kwargs: Mapping[str, Any]) -> None:
        from ._base import BaseChatModel  # imports this module

        # Read on each call: a class patched after the binding was made is still seen.
        self._base = BaseChatModel
        self._model = model
        self._whole = dict(kwargs)
        rest = dict(kwargs)
        self._stop: list[str] | None = rest.pop("stop", None)
        self._kwargs = rest

    def invoke(self, input: LanguageModelInput, config: RunnableConfig | None) -> AIMessage:
        """The model's reply, as ``invoke(input, config, **kwargs)`` gives it."""
        config = ensure_config(config)
        if config.get("callbacks"):
            return self._model.invoke(input, config, **self._whole)
        return self.quiet(input, config)

    async def ainvoke(self, input: LanguageModelInput, config: RunnableConfig | None) -> AIMessage:
        """The model's reply, as ``await ainvoke(input, config, **kwargs)`` gives it."""
        config = ensure_config(config)
        if config.get("callbacks"):
            return await self._model.ainvoke(input, config, **self._whole)
        return await self.aquiet(input, config)

    def quiet(self, input: LanguageModelInput, config: RunnableConfig) -> AIMessage:
        """`invoke` for a `config` that is ensured already and has no callbacks.

        An agent checks its config once for its whole planning call (`AgentRunnable`) and
        calls this; the model's own checks (interceptors, an overridden `invoke`) are made
        here. Nobody watching, the reply is `_unwatched_reply`'s (a model's own call class
        may give it quicker).
        """
        model = self._model
        if INTERCEPTORS.get() or type(model).invoke is not self._base.invoke:
            return model.invoke(input, config, **self._whole)
        return model._unwatched_reply(model._convert_input(input), self._stop, self._kwargs)

    async def aquiet(self, input: LanguageModelInput, config: RunnableConfig) -> AIMessage:
        """Async `quiet`."""
        model = self._model
        if INTERCEPTORS.get() or type(model).ainvoke is not self._base.ainvoke:
            return await model.ainvoke(input, config, **self._whole)
        messages = model._convert_input(input)
        return await model._aunwatched_reply(messages, self._stop, self._kwargs)
