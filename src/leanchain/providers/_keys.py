"""API keys: read once, cleaned, checked, and kept out of every text an error carries.

A key is a `SecretStr` from the moment a model gets it. Surrounding whitespace is stripped
(a key read from a file or pasted from a terminal often ends in a newline, and HTTP strips it
from a header value anyway); a key that still holds a control character or a non-ASCII one
cannot be sent in an HTTP header and is refused with a `ProviderConfigurationError` that says
which kind of character, and where, without the key.

An error built from a provider's answer may quote the key (a 401 that echoes it). `scrub_chain`
masks the key in the error, in every exception chained under it (``__cause__`` and
``__context__``), and in what those carry: messages, JSON bodies, the response text and the
request's credential headers. Keys shorter than `MIN_MASKED` characters are placeholders for
servers that check no key (``"EMPTY"``, ``"none"``): they cannot be told from the words of a
message, so they are not masked.
"""

from __future__ import annotations

import contextlib
import os
import unicodedata
from typing import Any, Final

from pydantic import SecretStr

from leanchain.errors import ProviderConfigurationError

__all__ = [
    "MIN_MASKED",
    "REDACTED",
    "attribute",
    "env_secret",
    "key_problem",
    "scrub",
    "scrub_chain",
]

REDACTED: Final = "**********"
MIN_MASKED: Final = 8
"""Keys at least this long are masked wherever they appear; shorter ones are placeholders."""
_CREDENTIAL_HEADERS: Final = ("authorization", "x-api-key", "api-key", "proxy-authorization")


def key_problem(key: str) -> str | None:
    """What makes `key` unsendable in an HTTP header (never quoting it), or ``None``."""
    for position, char in enumerate(key):
        if not char.isascii():
            # No real key has one, so naming it tells nothing of the key (a pasted quote...).
            name = unicodedata.name(char, "")
            kind = f"a non-ASCII character ({name})" if name else "a non-ASCII character"
            return f"{kind} at position {position}"
        if not char.isprintable():
            return f"a control character (such as a newline or tab) at position {position}"
    return None


def env_secret(
    value: str | SecretStr | None, env: str, *, provider: str, owner: str
) -> SecretStr | None:
    """The key given, else the one in the environment variable `env`, cleaned, as a `SecretStr`.

    An empty key (or one of only whitespace) counts as none given.

    Raises:
        TypeError: `value` is neither a str, a `SecretStr` nor ``None``.
        ProviderConfigurationError: the key holds a character an HTTP header cannot carry.
    """
    source = "api_key"
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if value is not None and not isinstance(value, str):
        raise TypeError(f"api_key must be a str or SecretStr, got {type(value).__name__}")
    value = value.strip() if value else ""
    if not value:
        value = (os.environ.get(env) or "").strip()
        source = env
    if not value:
        return None
    problem = key_problem(value)
    if problem is not None:
        raise ProviderConfigurationError(
            f"{owner}'s {source} has {problem}, which an HTTP header cannot carry: expected "
            "printable ASCII (check for a pasted quote, a non-breaking space or a line break)",
            provider=provider,
        )
    return SecretStr(value)


def scrub(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` masked (keys under `MIN_MASKED` are not)."""
    if not secret or len(secret) < MIN_MASKED:
        return text
    for _ in range(3):
        if secret not in text:
            return text
        # Masking can join the asterisks with what is left into the key again (a key that
        # starts or ends with asterisks): mask once more, and give up on the text if need be.
        text = text.replace(secret, REDACTED)
    return text if secret not in text else REDACTED


def _scrub_value(value: Any, secret: str) -> Any:
    """A JSON-like value (a body) with the secret masked in every string of it."""
    if isinstance(value, str):
        return scrub(value, secret)
    if isinstance(value, dict):
        return {key: _scrub_value(item, secret) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub_value(item, secret) for item in value]
    return value


def scrub_chain(error: BaseException, secret: str | None) -> None:
    """Mask `secret` in `error` and every exception chained under it, and what they carry."""
    if not secret or len(secret) < MIN_MASKED:
        return
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        exc = pending.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        _scrub_one(exc, secret)
        pending.extend((exc.__cause__, exc.__context__))


def _scrub_one(exc: BaseException, secret: str) -> None:
    exc.args = tuple(_scrub_value(arg, secret) for arg in exc.args)
    for name in ("message", "api_message", "body"):
        value = getattr(exc, name, None)
        if value is not None:
            cleaned = _scrub_value(value, secret)
            if cleaned != value:
                _set(exc, name, cleaned)
    response = attribute(exc, "response")
    if response is not None:
        _scrub_response(response, secret)
    request = attribute(exc, "request")
    if request is not None:
        _redact_headers(request)


def attribute(obj: Any, name: str) -> Any:
    """``obj.name``, or ``None``: httpx2's ``.request`` raises RuntimeError when unset."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _set(obj: Any, name: str, value: Any) -> None:
    with contextlib.suppress(AttributeError, TypeError):  # read-only in some exception class
        setattr(obj, name, value)


def _scrub_response(response: Any, secret: str) -> None:
    """Mask the secret in an ``httpx2.Response``'s body (read already) and its request."""
    content = getattr(response, "_content", None)
    if isinstance(content, bytes):
        encoded = secret.encode()
        if encoded in content:
            response._content = content.replace(encoded, REDACTED.encode())
            if hasattr(response, "_text"):
                del response._text
    request = getattr(response, "_request", None)
    if request is not None:
        _redact_headers(request)


def _redact_headers(request: Any) -> None:
    """Replace the credential headers of an ``httpx2.Request`` that was already sent."""
    headers = getattr(request, "headers", None)
    if headers is None:
        return
    for name in _CREDENTIAL_HEADERS:
        try:
            if name in headers:
                headers[name] = REDACTED
        except (TypeError, ValueError):
            pass
