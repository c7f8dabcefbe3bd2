"""`ChatOpenAI`: OpenAI Chat Completions (or any compatible server) through the ``openai`` SDK."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import SecretStr
from typing_extensions import Unpack

from leanchain.errors import ProviderConfigurationError
from leanchain.language_models.adapters import check_method, json_reply_output, tool_call_output
from leanchain.messages import AIMessage, BaseMessage

from ._aliases import OPENAI_ALIASES, OPENAI_PASSTHROUGH, OPENAI_UNSUPPORTED, OpenAIAliases
from ._flow import ProviderFlow
from ._openai_convert import (
    openai_response_format,
    openai_tool_choice,
    openai_tools,
    to_openai_messages,
)
from ._openai_reply import OpenAIStreamReader, message_from_openai
from ._tool_calls import check_tool_pairing

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.language_models import LanguageModelInput, ToolChoice
    from leanchain.runnables import Runnable
    from leanchain.tools import ToolLike

__all__ = ["ChatOpenAI"]

_OWN_PARAMS: Final = frozenset(
    {
        "max_completion_tokens",
        "max_tokens",
        "messages",
        "model",
        "parallel_tool_calls",
        "seed",
        "stop",
        "stream",
        "stream_options",
        "temperature",
        "tool_choice",
        "tools",
        "top_p",
    }
)

_STRUCTURED_METHODS: Final = ("function_calling", "json_schema", "json_mode")

_DROPPABLE: Final = frozenset({"parallel_tool_calls", "stop", "stream_options"})
"""What is sent again without when a model answers 400 ``unsupported_parameter`` for it: a
reply without them is still right (stop sequences are applied client-side)."""


class ChatOpenAI(ProviderFlow):
    """A chat model served by the OpenAI Chat Completions API, or any compatible server.

    Example::

        model = ChatOpenAI(model="gpt-4o-mini")            # key from OPENAI_API_KEY
        local = ChatOpenAI(model="llama3", base_url="http://localhost:11434/v1", api_key="EMPTY")

    Only the settings that are given are sent; the server's defaults apply to the rest.

    Args:
        model: the model name.
        api_key: the API key (default: ``OPENAI_API_KEY``); kept as a `SecretStr`.
        base_url: the API root including ``/v1`` (default: ``OPENAI_BASE_URL``, else OpenAI).
        temperature: the sampling temperature.
        top_p: nucleus sampling: the probability mass to sample from.
        seed: the seed for sampling, where the server supports it.
        max_tokens: the reply's token limit, sent as ``max_tokens`` (what most compatible
            servers know).
        max_completion_tokens: the same limit sent under OpenAI's newer name (required by
            o-series models); give one of the two.
        stop: default stop sequences, used when a call passes none. Replies are cut at them
            client-side too; a model that rejects ``stop`` (o-series, gpt-5) is asked again
            without it, and not sent it again.
        timeout: seconds per attempt (default: the SDK's 600 s, 5 s to connect).
        max_retries: retries the SDK makes on 408/409/429/5xx and connection errors;
            leanchain adds none of its own.
        organization: the OpenAI organization id sent with every request.
        default_headers: more HTTP headers sent with every request (a gateway's, say).
        streaming: ``invoke`` streams whenever a callback handler listens, so that it sees
            every token (LangChain's setting); the reply is the same.
        stream_usage: ask for the usage chunk when streaming (``stream_options``); turn off
            for servers that reject ``stream_options``.
        parallel_tool_calls: sent with tool calls when set.
        extra_body: more JSON fields for the request body (server-specific parameters).
        model_kwargs: more ``create()`` parameters (``frequency_penalty``, ``response_format``...).
        tool_call_content: the content sent for an AI message with tool calls and no text:
            ``None`` (null, the OpenAI spec) or ``""`` (for servers that reject null).
        name: the name shown in callbacks and events.
        disable_streaming: as for `BaseChatModel`.
        **aliases: LangChain's names for these arguments (``model_name``, ``openai_api_key``,
            ``openai_api_base``, ``request_timeout``, ...) and the ``create()`` parameters
            it takes as arguments (``frequency_penalty``, ...): see docs/migration.md.

    Raises:
        ProviderConfigurationError: no API key, a key HTTP cannot carry, an invalid
            ``base_url``, or conflicting settings (a `ValueError`).
        TypeError: an unknown keyword argument (the message names the closest one).
        ImportError: the ``openai`` package is not installed.
    """

    __slots__ = (
        "max_completion_tokens",
        "max_tokens",
        "organization",
        "parallel_tool_calls",
        "seed",
        "stop",
        "stream_usage",
        "temperature",
        "tool_call_content",
        "top_p",
    )

    _provider = "openai"
    _sdk_name = "openai"
    _clients = ("OpenAI", "AsyncOpenAI")
    _own_params = _OWN_PARAMS
    _key_env = "OPENAI_API_KEY"
    _url_env = "OPENAI_BASE_URL"
    _droppable = _DROPPABLE
    _args_as_text = True
    _aliases = OPENAI_ALIASES
    _passthrough = OPENAI_PASSTHROUGH
    _unsupported = OPENAI_UNSUPPORTED
    _reason_key = "finish_reason"
    _stream_end = "finish_reason"
    _endpoint = attrgetter("chat.completions.create")
    _message = staticmethod(message_from_openai)
    _reader = OpenAIStreamReader
    _request_id_header = "x-request-id"

    def __init__(
        self,
        *,
        model: str = "gpt-4o-mini",
        api_key: str | SecretStr | None = None,
        base_url: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        max_completion_tokens: int | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        stop: Sequence[str] | None = None,
        timeout: float | None = None,
        max_retries: int = 2,
        organization: str | None = None,
        default_headers: Mapping[str, str] | None = None,
        streaming: bool = False,
        stream_usage: bool = True,
        parallel_tool_calls: bool | None = None,
        extra_body: Mapping[str, Any] | None = None,
        model_kwargs: Mapping[str, Any] | None = None,
        tool_call_content: Literal[""] | None = None,
        name: str | None = None,
        disable_streaming: bool | Literal["tool_calling"] = False,
        **aliases: Unpack[OpenAIAliases],
    ) -> None:
        if aliases:
            given = self._resolve(
                {
                    "model": model,
                    "api_key": api_key,
                    "base_url": base_url,
                    "timeout": timeout,
                    "stop": stop,
                    "organization": organization,
                    "model_kwargs": model_kwargs,
                },
                aliases,
            )
            model, api_key, base_url = given["model"], given["api_key"], given["base_url"]
            timeout, stop, organization = given["timeout"], given["stop"], given["organization"]
            model_kwargs = given["model_kwargs"]
        if max_tokens is not None and max_completion_tokens is not None:
            raise ProviderConfigurationError(
                "Give max_tokens or max_completion_tokens, not both: they are one limit "
                "under two wire names",
                provider=self._provider,
            )
        self.organization = organization
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
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_completion_tokens = max_completion_tokens
        self.top_p = top_p
        self.seed = seed
        self.stop = list(stop) if stop else None
        self.stream_usage = stream_usage
        self.parallel_tool_calls = parallel_tool_calls
        self.tool_call_content = tool_call_content

    def _derive(self) -> dict[str, Any]:
        settings = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "max_completion_tokens": self.max_completion_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
        }
        return {
            **{key: value for key, value in settings.items() if value is not None},
            **self.model_kwargs,
        }

    def _client_options(self) -> dict[str, Any]:
        options = super()._client_options()
        if self.organization is not None:
            options["organization"] = self.organization
        return options

    @property
    def _llm_type(self) -> str:
        return "openai-chat"

    @property
    def _identifying_params(self) -> Mapping[str, Any]:
        return {"model_name": self.model, **self._request_defaults()}

    def _client_stop(self, stop: list[str] | None) -> list[str] | None:
        return stop if stop is not None else self.stop

    # -- requests -------------------------------------------------------------------------

    def _params(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """The ``create()`` arguments for one call (`kwargs` is the call's own dict)."""
        check_tool_pairing(messages)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(messages, tool_call_content=self.tool_call_content),
            **self._request_defaults(),
        }
        stop = stop if stop is not None else self.stop
        if stop:
            params["stop"] = list(stop)
        tools = kwargs.pop("tools", None)
        tool_choice = kwargs.pop("tool_choice", None)
        parallel = kwargs.pop("parallel_tool_calls", self.parallel_tool_calls)
        if tools:
            # tool_choice and parallel_tool_calls without tools are 400s: they go with tools.
            formatted = openai_tools(tools)
            params["tools"] = formatted
            choice = openai_tool_choice(tool_choice, formatted)
            if choice is not None:
                params["tool_choice"] = choice
            if parallel is not None:
                params["parallel_tool_calls"] = parallel
        extra = kwargs.pop("extra_body", None)
        if self.extra_body or extra:
            params["extra_body"] = {**(self.extra_body or {}), **(extra or {})}
        params.update(kwargs)
        return params

    def _stream_params(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        stream_usage = kwargs.pop("stream_usage", self.stream_usage)
        params = super()._stream_params(messages, stop, kwargs)
        if stream_usage:
            params["stream_options"] = {"include_usage": True}
        return params

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
            tools: tools, pydantic models, TypedDicts, functions or schema dicts.
            tool_choice: a tool's name, ``"auto"``, ``"none"``, ``"required"``/``"any"``,
                ``True`` (= required) or an OpenAI ``tool_choice`` dict; ``None`` or ``False``
                send none, which leaves the model free to call a tool (as in LangChain).
            strict: ``True`` asks for OpenAI's strict schema adherence (schemas rewritten to
                its rules); ``None`` leaves it out.
            parallel_tool_calls: ``False`` asks for at most one call per reply.
            **kwargs: more arguments bound for every call.

        Raises:
            ValueError: `tool_choice` names no bound tool.
        """
        from leanchain.tools import convert_to_openai_tool

        formatted = [convert_to_openai_tool(tool, strict=strict) for tool in tools]
        choice = openai_tool_choice(tool_choice, formatted)
        if choice is not None:
            kwargs["tool_choice"] = choice
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        return self.bind(tools=formatted, **kwargs)

    def with_structured_output(
        self,
        schema: type[BaseModel] | type[Any] | Mapping[str, Any] | None = None,
        *,
        include_raw: bool = False,
        method: str = "function_calling",
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, Any]:
        """This model answering with an instance of `schema` (see `BaseChatModel`).

        Args:
            schema: a pydantic model, a TypedDict or a JSON schema dict (for ``json_schema``
                also a ready-made ``response_format``); ``None`` only with ``json_mode``,
                for the parsed JSON as it is.
            include_raw: return ``{"raw", "parsed", "parsing_error"}`` instead of raising.
            method: ``"function_calling"`` (a call of the schema's tool, named in
                ``tool_choice``, with ``parallel_tool_calls: false``), ``"json_schema"`` (a JSON
                reply, asked for with ``response_format``; a refusal is a parsing error) or
                ``"json_mode"`` (``response_format={"type": "json_object"}``: any JSON
                object, no schema sent, so the prompt itself must ask for JSON and describe
                it; the reply is validated against `schema` when one is given).
            strict: ``True`` asks for OpenAI's strict schema adherence (schema rewritten to
                its rules); ``None`` leaves it out. Not taken by ``json_mode``.

        Raises:
            ValueError: unknown keyword arguments, method or schema, `strict` with
                ``json_mode``, or no schema for a method other than ``json_mode``.
        """
        if kwargs:
            raise ValueError(f"Received unsupported arguments {kwargs}")
        check_method(self, method, _STRUCTURED_METHODS)
        if method == "json_mode":
            if strict is not None:
                raise ValueError(
                    "strict is not applied with method='json_mode': it sends no schema to "
                    "adhere to; use method='json_schema' instead"
                )
            return json_reply_output(
                self, schema, include_raw=include_raw, request=_json_object_request
            )
        if schema is None:
            raise ValueError(
                f"with_structured_output needs a schema for method={method!r}: only "
                "method='json_mode' takes schema=None"
            )
        if method == "json_schema":
            request = partial(openai_response_format, strict=strict)
            return json_reply_output(self, schema, include_raw=include_raw, request=request)
        from leanchain.tools import convert_to_openai_tool

        # As LangChain: the tool named, one call only, which every compatible server honours
        # ("required" is not supported everywhere).
        name = convert_to_openai_tool(schema)["function"]["name"]
        return tool_call_output(
            self,
            schema,
            include_raw=include_raw,
            strict=strict,
            tool_choice=name,
            parallel_tool_calls=False,
        )


def _json_object_request(schema: Any) -> tuple[str, dict[str, Any]]:
    """``json_mode``'s request, which carries no schema, and the name its errors give `schema`."""
    if isinstance(schema, Mapping):
        name = str(schema.get("title", "JSON"))
    else:
        name = getattr(schema, "__name__", "JSON")  # None: any JSON value
    return name, {"response_format": {"type": "json_object"}}
