"""`init_chat_model`: a chat model from a ``"provider:model"`` string (LangChain's helper).

``init_chat_model("openai:gpt-4o-mini", temperature=0)`` is ``ChatOpenAI(model="gpt-4o-mini",
temperature=0)``; ``"anthropic:claude-..."`` is `ChatAnthropic`. Without a prefix the provider
is inferred from the name (``gpt-``, ``o1``, ``o3``, ``chatgpt`` → OpenAI; ``claude`` →
Anthropic), or given as ``model_provider=``. The provider's SDK is imported only here, when the
model is made.
"""

from __future__ import annotations

from typing import Any

from leanchain.language_models import BaseChatModel

__all__ = ["SUPPORTED_PROVIDERS", "init_chat_model"]

SUPPORTED_PROVIDERS = ("anthropic", "openai")
"""The providers leanchain ships (LangChain's others come from their integration packages)."""

_OPENAI_PREFIXES = ("gpt-", "o1", "o3", "chatgpt", "text-davinci")


def _infer(model: str) -> str | None:
    lower = model.lower()
    if lower.startswith(_OPENAI_PREFIXES):
        return "openai"
    if lower.startswith("claude"):
        return "anthropic"
    return None


def _parse(model: str, model_provider: str | None) -> tuple[str, str]:
    if not model_provider and ":" in model:
        prefix, rest = model.split(":", 1)
        if prefix in SUPPORTED_PROVIDERS:
            model_provider, model = prefix, rest
        elif (inferred := _infer(prefix)) is not None:
            model_provider, model = inferred, rest
    model_provider = model_provider or _infer(model)
    if not model_provider:
        raise ValueError(
            f"Unable to infer model provider for model={model!r}. Please specify "
            f"'model_provider' directly.\n\nSupported providers: {', '.join(SUPPORTED_PROVIDERS)}"
        )
    return model, model_provider.replace("-", "_").lower()


def init_chat_model(
    model: str,
    *,
    model_provider: str | None = None,
    **kwargs: Any,
) -> BaseChatModel:
    """A chat model for ``"provider:model"`` (or a model name and `model_provider`).

    Args:
        model: ``"openai:gpt-4o-mini"``, ``"anthropic:claude-sonnet-4-5"``, or a bare name
            whose provider can be inferred.
        model_provider: ``"openai"`` or ``"anthropic"`` (wins over inference).
        **kwargs: the model class's own settings (``temperature``, ``api_key``,
            ``base_url``, ``max_tokens``, ...).

    Raises:
        ValueError: the provider cannot be inferred, or is not one leanchain ships.
        TypeError: a setting the provider's class does not take (it names it).
    """
    if not isinstance(model, str) or not model:
        raise TypeError(
            "init_chat_model needs a model name such as 'openai:gpt-4o-mini'; a configurable "
            "model without one is not provided (use with_config on the model instead)"
        )
    name, provider = _parse(model, model_provider)
    if provider == "openai":
        from leanchain.providers import ChatOpenAI

        return ChatOpenAI(model=name, **kwargs)
    if provider == "anthropic":
        from leanchain.providers import ChatAnthropic

        return ChatAnthropic(model=name, **kwargs)
    raise ValueError(
        f"Unsupported model_provider={provider!r}.\n\nSupported model providers are: "
        f"{', '.join(SUPPORTED_PROVIDERS)}"
    )
