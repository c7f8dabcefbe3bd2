"""`ChatAnthropic`: the Anthropic Messages API through the ``anthropic`` SDK."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import SecretStr
from typing_extensions import Unpack

from leanchain.errors import ProviderConfigurationError
from leanchain.messages import AIMessage, BaseMessage

from ._aliases import (
    ANTHROPIC_ALIASES,
    ANTHROPIC_PASSTHROUGH,
    ANTHROPIC_UNSUPPORTED,
    AnthropicAliases,
)
from ._anthropic_convert import anthropic_tool_choice, anthropic_tools, to_anthropic_messages
from ._anthropic_reply import AnthropicStreamReader, message_from_anthropic
from ._flow import ProviderFlow
from ._tool_calls import check_tool_pairing

if TYPE_CHECKING:
    from leanchain.language_models import LanguageModelInput, ToolChoice
    from leanchain.runnables import Runnable
    from leanchain.tools import ToolLike

__all__ = ["ChatAnthropic"]

_SAMPLING: Final = ("temperature", "top_p", "top_k")
# Above this, with the SDK's default timeout, the SDK refuses a non-stream call for some models
# (and above ~21,333 for all): such calls stream instead (provider-wire.md §3.1).
_NON_STREAMING_MAX_TOKENS: Final = 8192
_OWN_PARAMS: Final = frozenset(
    {"max_tokens", "messages", "model", "stop_sequences", "stream", "system", "tool_choice"}
    | {"tools", *_SAMPLING}
)


class ChatAnthropic(ProviderFlow):
    """A chat model served by the Anthropic Messages API.

    Example::

        model = ChatAnthropic(model="claude-sonnet-4-6", max_tokens=2048)  # ANTHROPIC_API_KEY

    Args:
        model: the model name (required: Anthropic retires models, so no default is safe).
        api_key: the API key (default: ``ANTHROPIC_API_KEY``); kept as a `SecretStr`.
        base_url: the API root *without* ``/v1`` (default: ``ANTHROPIC_BASE_URL``, else
            Anthropic's).
        max_tokens: the reply's token limit (the API requires one). Above 8,192, a call made
            with the SDK's default timeout streams internally, as the SDK requires.
        temperature: the sampling temperature. SDK 2.x has no arguments for the sampling
            settings and the current API version may reject them, so each is sent only when
            set, in the request body.
        top_p: nucleus sampling: the probability mass to sample from (sent only when set).
        top_k: sample only from the K likeliest tokens (sent only when set).
        stop_sequences: default stop sequences, used when a call passes none.
        timeout: seconds per attempt (default: the SDK's 600 s, 5 s to connect).
        max_retries: retries the SDK makes on 408/409/429/5xx/529 and connection errors;
            leanchain adds none of its own.
        default_headers: more HTTP headers sent with every request (``anthropic-beta``...).
        streaming: ``invoke`` streams whenever a callback handler listens, so that it sees
            every token (LangChain's setting); the reply is the same.
        parallel_tool_calls: ``False`` sends ``disable_parallel_tool_use`` with tools.
        extra_body: more JSON fields for the request body.
        model_kwargs: more ``create()`` parameters (``metadata``, ``thinking``, ...).
        name: the name shown in callbacks and events.
        disable_streaming: as for `BaseChatModel`.
        **aliases: LangChain's names for these arguments (``model_name``,
            ``anthropic_api_key``, ``anthropic_api_url``, ``default_request_timeout``,
            ``max_tokens_to_sample``, ``stop``) and ``thinking``/``service_tier``, sent as
            they are: see docs/migration.md.

    Raises:
        ProviderConfigurationError: no model or API key, a key HTTP cannot carry, an invalid
            base URL or one ending in ``/v1``, or conflicting settings (a `ValueError`).
        TypeError: an unknown keyword argument (the message names the closest one).
        ImportError: the ``anthropic`` package is not installed.
    """

    __slots__ = (
        "max_tokens",
        "parallel_tool_calls",
        "stop_sequences",
        "temperature",
        "top_k",
        "top_p",
    )

    _provider = "anthropic"
    _sdk_name = "anthropic"
    _clients = ("Anthropic", "AsyncAnthropic")
    _own_params = _OWN_PARAMS
    _key_env = "ANTHROPIC_API_KEY"
    _url_env = "ANTHROPIC_BASE_URL"
    _aliases = ANTHROPIC_ALIASES
    _passthrough = ANTHROPIC_PASSTHROUGH
    _unsupported = ANTHROPIC_UNSUPPORTED
    _reason_key = "stop_reason"
    _stream_end = "message_stop"
    _endpoint = attrgetter("messages.create")
    _message = staticmethod(message_from_anthropic)
    _reader = AnthropicStreamReader
    _request_id_header = "request-id"

    def __init__(
        self,
        *,
        model: str = "",
        api_key: str | SecretStr | None = None,
        base_url: str | None = None,
        max_tokens: int = 4096,
        temperature: float | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        stop_sequences: Sequence[str] | None = None,
        timeout: float | None = None,
        max_retries: int = 2,
        default_headers: Mapping[str, str] | None = None,
        streaming: bool = False,
        parallel_tool_calls: bool | None = None,
        extra_body: Mapping[str, Any] | None = None,
        model_kwargs: Mapping[str, Any] | None = None,
        name: str | None = None,
        disable_streaming: bool | Literal["tool_calling"] = False,
        **aliases: Unpack[AnthropicAliases],
    ) -> None:
        if aliases:
            given = self._resolve(
                {
                    "model": model,
                    "api_key": api_key,
                    "base_url": base_url,
                    "timeout": timeout,
                    "max_tokens": max_tokens,
                    "stop_sequences": stop_sequences,
                    "model_kwargs": model_kwargs,
                },
                aliases,
            )
            model, api_key, base_url = given["model"], given["api_key"], given["base_url"]
            timeout, max_tokens = given["timeout"], given["max_tokens"]
            stop_sequences, model_kwargs = given["stop_sequences"], given["model_kwargs"]
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ProviderConfigurationError(
                f"max_tokens must be an int >= 1, got {max_tokens!r}", provider=self._provider
            )
        super().__init__(
            model=model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            extra_body=extra_body,
            model_kwargs=model_kwargs,
            streaming=streaming,
            name=name,
            disable_streaming=disable_streaming,
        )
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.top_k = top_k
        self.stop_sequences = list(stop_sequences) if stop_sequences else None
        self.parallel_tool_calls = parallel_tool_calls

    def _checked_url(self, url: str | None) -> str | None:
        if url is not None and url.rstrip("/").endswith("/v1"):
            raise ProviderConfigurationError(
                f"base_url {url!r} ends in /v1, but the SDK adds /v1/messages itself: "
                "give the root, e.g. 'http://127.0.0.1:8080'",
                provider=self._provider,
            )
        return url

    def _derive(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The parameters of every call, and the sampling settings (sent in the body)."""
        sampling = {
            key: value
            for key, value in (
                ("temperature", self.temperature),
                ("top_p", self.top_p),
                ("top_k", self.top_k),
            )
            if value is not None
        }
        return {"max_tokens": self.max_tokens, **self.model_kwargs}, sampling

    @property
    def _llm_type(self) -> str:
        return "anthropic-chat"

    @property
    def _identifying_params(self) -> Mapping[str, Any]:
        defaults, sampling = self._request_defaults()
        return {"model_name": self.model, **defaults, **sampling}

    def _client_stop(self, stop: list[str] | None) -> list[str] | None:
        return stop if stop is not None else self.stop_sequences

    # -- requests -------------------------------------------------------------------------

    def _params(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """The ``create()`` arguments for one call (`kwargs` is the call's own dict)."""
        check_tool_pairing(messages)
        system, wire = to_anthropic_messages(messages)
        defaults, own_sampling = self._request_defaults()
        params: dict[str, Any] = {"model": self.model, "messages": wire, **defaults}
        if system is not None:
            params["system"] = system
        stop = stop if stop is not None else self.stop_sequences
        if stop:
            params["stop_sequences"] = list(stop)
        tools = kwargs.pop("tools", None)
        tool_choice = kwargs.pop("tool_choice", None)
        parallel = kwargs.pop("parallel_tool_calls", self.parallel_tool_calls)
        if tools:
            formatted = anthropic_tools(tools)
            params["tools"] = formatted
            choice = anthropic_tool_choice(tool_choice, formatted, parallel)
            if choice is not None:
                params["tool_choice"] = choice
        # SDK 2.x takes no sampling arguments: what is set goes in the body.
        sampling = {key: kwargs.pop(key) for key in _SAMPLING if key in kwargs}
        extra = kwargs.pop("extra_body", None)
        if own_sampling or sampling or self.extra_body or extra:
            params["extra_body"] = {
                **own_sampling,
                **sampling,
                **(self.extra_body or {}),
                **(extra or {}),
            }
        params.update(kwargs)
        return params

    def _must_stream(self, params: dict[str, Any]) -> bool:
        return self.timeout is None and params["max_tokens"] > _NON_STREAMING_MAX_TOKENS

    # -- tools ----------------------------------------------------------------------------

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: ToolChoice | None = None,
        strict: bool | None = None,
        parallel_tool_calls: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """This model with `tools` offered on every call.

        Args:
            tools: tools, pydantic models, TypedDicts, functions or schema dicts (OpenAI or
                Anthropic form; server tools pass unchanged).
            tool_choice: a tool's name, ``"auto"``, ``"none"``, ``"any"``/``"required"``,
                ``True`` (= any) or an Anthropic ``tool_choice`` dict; ``None`` or ``False``
                send none, which leaves the model free to call a tool (as in LangChain).
            strict: ``True`` asks for guaranteed schema validation (``"strict": true``).
            parallel_tool_calls: ``False`` asks for at most one call per reply
                (``disable_parallel_tool_use``).
            **kwargs: more arguments bound for every call.

        Raises:
            ValueError: `tool_choice` names no bound tool.
        """
        formatted = anthropic_tools(tools, strict=strict)
        if tool_choice is not None and tool_choice is not False:
            anthropic_tool_choice(tool_choice, formatted, parallel_tool_calls)  # fail early
            kwargs["tool_choice"] = tool_choice
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        return self.bind(tools=formatted, **kwargs)
