"""Every exception leanchain raises on purpose.

The tree (builtin bases in brackets, where the meaning matches)::

    LeanchainError
    ├── OutputParserException [ValueError]   model output that a parser cannot read
    ├── ToolException                        a tool's own, expected failure: becomes an observation
    ├── ToolInputValidationError [ValueError]  arguments that do not match a tool's schema
    │                                          (wraps pydantic's error; also in leanchain.tools)
    ├── ToolRetryableError                   a passing failure: a ToolPolicy may call the tool again
    ├── ToolTimeoutError [TimeoutError]      no result within a ToolPolicy timeout: call abandoned
    ├── PromptError
    │   ├── TemplateValidationError [ValueError]   a template field that is not a plain name
    │   └── MissingPromptVariablesError [KeyError] a variable not supplied at format time
    ├── ScriptExhaustedError [RuntimeError]  a scripted model was asked for more replies than it has
    ├── ContentEncodingError [ValueError]    a value text or JSON cannot carry, met in a conversion
    ├── ProviderError                        a model provider failed; carries status and retry hints
    │   ├── ProviderConfigurationError [ValueError]  a key, URL or setting a model cannot use
    │   ├── UnencodableContentError [ContentEncodingError]  content JSON cannot carry (nothing sent)
    │   ├── ProviderConnectionError          the provider could not be reached
    │   │   └── ProviderTimeoutError [TimeoutError]
    │   └── ProviderStatusError              the provider answered with an error status
    │       ├── BadRequestError              400, 404, 409, 413, 422: fix the request
    │       ├── AuthenticationError          401, 403
    │       ├── RateLimitError               429
    │       ├── ServerError                  5xx and 529 (overloaded)
    │       └── StreamError                  an error event or a broken stream mid-answer
    ├── AgentError
    │   ├── AgentConfigurationError [ValueError]   a factory or executor set up wrongly
    │   ├── AgentLoopError                   LoopGuard stopped a run that kept repeating itself
    │   ├── UsageLimitExceeded               UsageLimits stopped a run that would cross a limit
    │   ├── ApprovalError [ValueError]       a decision HumanApproval cannot apply (nothing ran)
    │   └── RunStateError [ValueError]       a saved run state that cannot be read or resumed
    └── DistributedItemError                 an item failed on a Ray worker with an exception
                                             that cannot be rebuilt here (names its type)

Errors say what was wrong and what was expected. None of them ever contains an API key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "AgentConfigurationError",
    "AgentError",
    "AgentLoopError",
    "ApprovalError",
    "AuthenticationError",
    "BadRequestError",
    "ContentEncodingError",
    "DistributedItemError",
    "LeanchainError",
    "MissingPromptVariablesError",
    "OutputParserException",
    "PromptError",
    "ProviderConfigurationError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderStatusError",
    "ProviderTimeoutError",
    "RateLimitError",
    "RunStateError",
    "ScriptExhaustedError",
    "ServerError",
    "StreamError",
    "TemplateValidationError",
    "ToolException",
    "ToolInputValidationError",
    "ToolRetryableError",
    "ToolTimeoutError",
    "UnencodableContentError",
    "UsageLimitExceeded",
]


class LeanchainError(Exception):
    """The root of every exception leanchain raises on purpose."""


class OutputParserException(LeanchainError, ValueError):
    """Model output that a parser could not turn into the expected value.

    Args:
        error: what was wrong, as text or as the underlying exception.
        observation: what to tell the model when the error is sent back to it.
        llm_output: the raw model output that failed to parse.
        send_to_llm: whether an agent executor should show ``observation`` and
            ``llm_output`` to the model instead of the error's text.
    """

    def __init__(
        self,
        error: object,
        observation: str | None = None,
        llm_output: str | None = None,
        send_to_llm: bool = False,
    ) -> None:
        super().__init__(error)
        if send_to_llm and (observation is None or llm_output is None):
            raise ValueError(
                "Arguments 'observation' & 'llm_output' are required if 'send_to_llm' is True"
            )
        self.observation = observation
        self.llm_output = llm_output
        self.send_to_llm = send_to_llm


class ToolException(LeanchainError):
    """A tool's expected failure; with ``handle_tool_error`` it becomes the observation."""


_MAX_VALUE_REPR = 80


def _location(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_VALUE_REPR else text[: _MAX_VALUE_REPR - 3] + "..."


def _describe(error: Any) -> str:
    where = _location(tuple(error["loc"]))
    text = error["msg"]
    if error["type"] != "missing":
        text = f"{text} (got {_shown(error['input'])})"
    return f"{where!r}: {text}" if where else text


class ToolInputValidationError(LeanchainError, ValueError):
    """A tool was called with arguments that do not match its schema.

    The message names the tool, each wrong argument and what was expected, e.g.
    ``Tool 'multiply' got invalid arguments: 'b': Input should be a valid integer, unable to
    parse string as an integer (got 'x')``. With ``handle_validation_error`` set on the tool it
    becomes the observation instead of being raised. Import it from here or from
    `leanchain.tools` (the same class).

    Attributes:
        tool_name: the tool that was called.
        validation_error: pydantic's error (also the ``__cause__``).
    """

    def __init__(self, tool_name: str, validation_error: ValidationError) -> None:
        details = "; ".join(_describe(e) for e in validation_error.errors())
        super().__init__(f"Tool {tool_name!r} got invalid arguments: {details}")
        self.tool_name = tool_name
        self.validation_error = validation_error

    def errors(self) -> list[Any]:
        """Pydantic's list of errors (for handlers written against ``ValidationError``)."""
        return list(self.validation_error.errors())


class ToolRetryableError(LeanchainError):
    """A tool's passing failure (a busy service, a lost connection): worth calling it again.

    A `ToolPolicy` with ``retries`` calls the tool again after it, with backoff. A tool that
    is not idempotent (``idempotent=False``) is called again only when the error says it came
    before the tool did anything (``before_side_effect=True``): otherwise a second call could
    repeat what the first one did. Without a policy it is an error like any other (the
    executor's ``handle_tool_errors`` decides).

    Args:
        message: what went wrong (the model sees it when no retry is left).
        before_side_effect: the tool had not started its work (nothing to repeat), so even a
            non-idempotent tool may be called again.
        retry_after: seconds to wait at least before the next call, when the tool knows.
    """

    def __init__(
        self,
        message: str = "",
        *,
        before_side_effect: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.before_side_effect = before_side_effect
        self.retry_after = retry_after


class ToolTimeoutError(LeanchainError, TimeoutError):
    """A tool call got no result within its `ToolPolicy` timeout, so the run stopped waiting.

    A sync tool cannot be stopped from outside: its thread may still be working (and may
    still have its effect); an async tool is cancelled.

    Args:
        tool_name: the tool that was called.
        timeout: the timeout, in seconds.
    """

    def __init__(self, tool_name: str, timeout: float) -> None:
        super().__init__(
            f"Tool {tool_name!r} timed out: no result within {timeout:g} s, so the call was "
            "abandoned"
        )
        self.tool_name = tool_name
        self.timeout = timeout


class PromptError(LeanchainError):
    """A prompt template was built or filled in wrongly."""


class TemplateValidationError(PromptError, ValueError):
    """A template field is not a plain variable name (attribute, index, positional, nested)."""


class MissingPromptVariablesError(PromptError, KeyError):
    """Variables a template needs were not supplied."""

    def __str__(self) -> str:
        # KeyError quotes its argument; a message reads better plain.
        return str(self.args[0]) if self.args else ""


class ScriptExhaustedError(LeanchainError, RuntimeError):
    """A scripted model was asked for a reply after its script ran out."""


class ContentEncodingError(LeanchainError, ValueError):
    """A value that text or JSON cannot carry, met while converting messages or tool results.

    A lone surrogate where UTF-8 is needed, an int longer than Python converts to text
    (``sys.get_int_max_str_digits()``, 4,300 digits by default), or nesting deeper than the
    encoder recurses. The message says where the value is and what is wrong with it.
    """


class ProviderError(LeanchainError):
    """A model provider failed.

    Args:
        message: what happened, never containing the API key.
        provider: ``"openai"`` or ``"anthropic"`` (or another adapter's name).
        status_code: the HTTP status, when the provider answered.
        retryable: whether trying the same request again may succeed.
        retry_after: seconds the provider asked to wait, when it said so.
        request_id: the provider's request id, for support tickets.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status_code: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status_code = status_code
        self.retryable = retryable
        self.retry_after = retry_after
        self.request_id = request_id


class ProviderConfigurationError(ProviderError, ValueError):
    """A provider model was given an API key, base URL or setting it cannot use.

    Raised when the model is built (or configured per call), before anything is sent; the
    message names the setting and what was expected, never the key itself.
    """


class UnencodableContentError(ProviderError, ContentEncodingError):
    """A request holds a value JSON cannot carry; nothing was sent.

    A lone surrogate in a string, an int longer than Python converts to text, nesting deeper
    than the JSON encoder goes, or NaN/infinity where the API rejects them. The message says
    where in the messages (or the request) the value is.
    """


class ProviderConnectionError(ProviderError):
    """The provider could not be reached, or the connection dropped."""


class ProviderTimeoutError(ProviderConnectionError, TimeoutError):
    """The provider did not answer within the timeout."""


class ProviderStatusError(ProviderError):
    """The provider answered with an error status."""


class BadRequestError(ProviderStatusError):
    """The request was rejected as invalid (400, 404, 409, 413, 422); retrying will not help."""


class AuthenticationError(ProviderStatusError):
    """The API key was missing, wrong, or lacks permission (401, 403)."""


class RateLimitError(ProviderStatusError):
    """Too many requests (429); ``retry_after`` says how long to wait when known."""


class ServerError(ProviderStatusError):
    """The provider failed on its side (5xx) or is overloaded (529)."""


class StreamError(ProviderStatusError):
    """A streamed answer broke off or carried an error event."""


class AgentError(LeanchainError):
    """An agent could not be built or could not go on."""


class AgentConfigurationError(AgentError, ValueError):
    """An agent factory or executor was given a prompt, model or tools it cannot work with."""


class AgentLoopError(AgentError):
    """`LoopGuard` stopped a run (``on_loop="raise"``): the agent kept repeating itself.

    Args:
        message: what repeated, and how often.
        kind: ``"repeat"``, ``"cycle"`` or ``"no_progress"``.
        steps: the run's ``(action, observation)`` pairs so far (the work is not lost).
    """

    def __init__(self, message: str, *, kind: str, steps: list[tuple[Any, Any]]) -> None:
        super().__init__(message)
        self.kind = kind
        self.steps = steps


class UsageLimitExceeded(AgentError):
    """`UsageLimits` stopped a run (``on_exceed="raise"``): a limit would be crossed.

    Args:
        message: which limit, its value and the usage that crossed it.
        limit: the setting's name (``"request_limit"``, ``"total_tokens_limit"``, ...).
        usage: the run's usage so far (requests, tool calls, tokens, cost), as plain data.
        steps: the run's ``(action, observation)`` pairs so far (the work is not lost).
    """

    def __init__(
        self,
        message: str,
        *,
        limit: str,
        usage: dict[str, object],
        steps: list[tuple[Any, Any]],
    ) -> None:
        super().__init__(message)
        self.limit = limit
        self.usage = usage
        self.steps = steps


class ApprovalError(AgentError, ValueError):
    """`HumanApproval` was given a decision it cannot apply, so no tool ran.

    A decision that is missing, of an unknown kind, not allowed, made for another call (its
    id or its arguments' fingerprint differ) or with edited arguments the tool's schema
    refuses. The message names the call and what was expected.
    """


class RunStateError(AgentError, ValueError):
    """A saved agent run state could not be read or resumed.

    The data is not a run state of a version this leanchain reads, holds a value that is not
    plain data (saving) or a type it does not know (reading), or the run has nothing to
    resume (no saved run on that thread, or it finished). The message says where and why.
    """


class DistributedItemError(LeanchainError):
    """An item failed on a Ray worker with an exception that cannot be rebuilt here.

    Args:
        error_type: the original exception's qualified name (``"mymodule.QuotaError"``;
            builtins without the ``builtins.`` prefix).
        message: the original exception's message (``str(exc)``).
        remote_traceback: the traceback as formatted on the worker.
    """

    def __init__(self, error_type: str, message: str, remote_traceback: str = "") -> None:
        super().__init__(f"{error_type}: {message}" if message else error_type)
        self.error_type = error_type
        self.error_message = message
        self.remote_traceback = remote_traceback
