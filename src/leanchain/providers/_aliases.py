"""LangChain's constructor names for the provider models, so that their code ports unchanged.

``ChatOpenAI(model_name=..., openai_api_key=..., openai_api_base=..., request_timeout=...)``
and ``ChatAnthropic(anthropic_api_key=..., default_request_timeout=...)`` mean what they mean
in LangChain; a few LangChain settings that are ``create()`` parameters (``frequency_penalty``,
``thinking``...) are sent as they are. Anything else is a `TypeError` that names the keyword
and the closest one accepted; a LangChain argument leanchain does not take says what to do
instead. docs/migration.md lists them.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import SecretStr
from typing_extensions import TypedDict

__all__ = [
    "ANTHROPIC_ALIASES",
    "ANTHROPIC_PASSTHROUGH",
    "ANTHROPIC_UNSUPPORTED",
    "OPENAI_ALIASES",
    "OPENAI_PASSTHROUGH",
    "OPENAI_UNSUPPORTED",
    "AnthropicAliases",
    "OpenAIAliases",
    "resolve_aliases",
]


class OpenAIAliases(TypedDict, total=False):
    """LangChain's other names for `ChatOpenAI` arguments, and the parameters sent as is."""

    model_name: str
    """= ``model``."""
    openai_api_key: str | SecretStr | None
    """= ``api_key``."""
    openai_api_base: str | None
    """= ``base_url``."""
    openai_organization: str | None
    """= ``organization``."""
    request_timeout: float | None
    """= ``timeout``."""
    stop_sequences: Sequence[str] | None
    """= ``stop``."""
    frequency_penalty: float | None
    presence_penalty: float | None
    logit_bias: Mapping[int, int] | None
    logprobs: bool | None
    top_logprobs: int | None
    reasoning_effort: str | None
    service_tier: str | None
    store: bool | None
    verbosity: str | None


class AnthropicAliases(TypedDict, total=False):
    """LangChain's other names for `ChatAnthropic` arguments, and the parameters sent as is."""

    model_name: str
    """= ``model``."""
    anthropic_api_key: str | SecretStr | None
    """= ``api_key``."""
    anthropic_api_url: str | None
    """= ``base_url``."""
    default_request_timeout: float | None
    """= ``timeout``."""
    max_tokens_to_sample: int
    """= ``max_tokens``."""
    stop: Sequence[str] | None
    """= ``stop_sequences``."""
    thinking: Mapping[str, Any] | None
    service_tier: str | None


OPENAI_ALIASES: Final = {
    "model_name": "model",
    "openai_api_key": "api_key",
    "openai_api_base": "base_url",
    "openai_organization": "organization",
    "request_timeout": "timeout",
    "stop_sequences": "stop",
}
OPENAI_PASSTHROUGH: Final = frozenset(
    {
        "frequency_penalty",
        "presence_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "reasoning_effort",
        "service_tier",
        "store",
        "verbosity",
    }
)
ANTHROPIC_ALIASES: Final = {
    "model_name": "model",
    "anthropic_api_key": "api_key",
    "anthropic_api_url": "base_url",
    "default_request_timeout": "timeout",
    "max_tokens_to_sample": "max_tokens",
    "stop": "stop_sequences",
}
ANTHROPIC_PASSTHROUGH: Final = frozenset({"thinking", "service_tier"})

_COMMON_UNSUPPORTED: Final = {
    "callbacks": "a model holds no callbacks: use model.with_config(callbacks=[...])",
    "tags": "a model holds no tags: use model.with_config(tags=[...])",
    "metadata": "a model holds no run metadata: use model.with_config(metadata={...})",
    "verbose": "use leanchain.globals.set_verbose(True), or ConsoleCallbackHandler per call",
    "cache": "leanchain has no model cache",
    "rate_limiter": "leanchain has no rate limiter; the SDK retries 429s (max_retries)",
    "http_client": "leanchain makes its own clients, one per configuration",
    "http_async_client": "leanchain makes its own clients, one per configuration",
    "custom_get_token_ids": "leanchain counts no tokens itself",
}
OPENAI_UNSUPPORTED: Final = {
    **_COMMON_UNSUPPORTED,
    "openai_proxy": "set HTTPS_PROXY in the environment (the SDK's client reads it)",
    "n": "leanchain reads one choice per reply; call batch() for several",
    "tiktoken_model_name": "leanchain counts no tokens itself",
    "use_responses_api": "ChatOpenAI speaks the Chat Completions API",
    "output_version": "ChatOpenAI speaks the Chat Completions API",
    "include_response_headers": "the request id is on the errors (request_id)",
    "disabled_params": "a parameter the model rejects is dropped by itself (see 'stop')",
    "default_query": "put the query in base_url",
}
ANTHROPIC_UNSUPPORTED: Final = {
    **_COMMON_UNSUPPORTED,
    "anthropic_proxy": "set HTTPS_PROXY in the environment (the SDK's client reads it)",
    "betas": "send default_headers={'anthropic-beta': '...'}",
    "stream_usage": "ChatAnthropic always reports usage when streaming",
}


def resolve_aliases(
    owner: str,
    given: dict[str, Any],
    extra: Mapping[str, Any],
    *,
    aliases: Mapping[str, str],
    passthrough: frozenset[str],
    unsupported: Mapping[str, str],
    defaults: Mapping[str, Any],
) -> dict[str, Any]:
    """`given` (the constructor's own arguments) with the aliased ones of `extra` applied.

    The parameters sent as they are land in ``model_kwargs`` (those left ``None`` are not sent).

    Raises:
        TypeError: an unknown keyword (naming the closest accepted one), one LangChain knows
            but leanchain does not take (saying what to do), or a setting given both under
            its name (other than its default) and under its alias.
    """
    resolved = dict(given)
    sent: dict[str, Any] = {}
    for key, value in extra.items():
        target = aliases.get(key)
        if target is not None:
            if resolved[target] is not defaults[target] and resolved[target] != defaults[target]:
                raise TypeError(
                    f"{owner} got {target!r} twice, as {target!r} and as its alias {key!r}: "
                    "give one of them"
                )
            resolved[target] = value
        elif key in passthrough:
            if value is not None:
                sent[key] = value
        elif key in unsupported:
            raise TypeError(
                f"{owner} does not take LangChain's {key!r} argument: {unsupported[key]}"
            )
        else:
            raise TypeError(_unknown(owner, key, [*defaults, *aliases, *passthrough]))
    if sent:
        resolved["model_kwargs"] = {**sent, **(resolved.get("model_kwargs") or {})}
    return resolved


def _unknown(owner: str, key: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        return f"{owner} got an unexpected keyword argument {key!r}: did you mean {close[0]!r}?"
    return f"{owner} got an unexpected keyword argument {key!r}; it takes " + ", ".join(
        sorted(known)
    )
