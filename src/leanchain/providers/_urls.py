"""Base URLs: checked when a model is built, and named safely in errors and reprs.

A ``base_url`` must be an absolute ``http``/``https`` URL with a host; anything else (an empty
string, a broken IPv6 literal, a NUL byte, a missing scheme) is a `ProviderConfigurationError`
at construction that names the URL, instead of a raw ``InvalidURL`` on the first call or, for
``""``, a silent switch to the provider's public endpoint. Surrounding whitespace is stripped;
an empty ``*_BASE_URL`` environment variable counts as unset.

Wherever a URL is shown (errors, ``repr``), it is shown without a password and without its
query string, which may carry credentials (``?api-key=...``).
"""

from __future__ import annotations

import os
import re
from typing import Any, Final
from urllib.parse import SplitResult, urlsplit, urlunsplit

from leanchain.errors import ProviderConfigurationError

from ._keys import attribute

__all__ = ["check_base_url", "safe_url", "server_label", "tried_url"]

_OFFICIAL_HOSTS: Final = {"openai": "api.openai.com", "anthropic": "api.anthropic.com"}
_CONTROL: Final = re.compile(r"[\x00-\x20\x7f]")
_USERINFO: Final = re.compile(r"//[^/?#]*@")


def check_base_url(value: Any, *, env: str, provider: str, owner: str) -> str | None:
    """The base URL to use: `value`, else the environment variable `env`, else ``None``.

    Raises:
        TypeError: `value` is not a str (or ``None``).
        ProviderConfigurationError: the URL is empty or not an absolute http(s) URL.
    """
    source = "base_url"
    if value is None:
        value = (os.environ.get(env) or "").strip() or None
        source = env
        if value is None:
            return None
    if not isinstance(value, str):
        raise TypeError(f"base_url must be a str, got {type(value).__name__}")
    url = value.strip()
    problem = _problem(url)
    if problem is not None:
        raise ProviderConfigurationError(
            f"{owner}'s {source} {safe_url(value)!r} {problem}: expected an http(s) URL such "
            "as 'http://localhost:8000/v1', or no base_url for the provider's own endpoint",
            provider=provider,
        )
    return url


def _problem(url: str) -> str | None:
    if not url:
        return "is empty"
    found = _CONTROL.search(url)
    if found is not None:
        what = "a space" if found.group() == " " else "a control character"
        return f"has {what} at position {found.start()}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (reading it checks it)
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "has no http:// or https:// scheme"
    if not parts.hostname:
        return "has no host"
    import httpx2  # the SDK's HTTP client, loaded with the SDK already

    try:
        httpx2.URL(url)
    except (httpx2.InvalidURL, ValueError, TypeError) as exc:
        return f"is not a valid URL ({exc})"
    return None


def safe_url(url: str) -> str:
    """`url` without a password, query string or fragment (for errors and reprs)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        base = _USERINFO.sub("//***@", url)
        return base.split("?", 1)[0].split("#", 1)[0] + ("?..." if "?" in base else "")
    return _render(parts) + ("?..." if parts.query else "")


def _render(parts: SplitResult) -> str:
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def server_label(provider: str, label: str, base_url: str | None) -> str:
    """Who answered, for errors: ``"OpenAI"``, or ``"OpenAI-compatible server HOST:PORT"``."""
    if base_url is None:
        return label
    try:
        parts = urlsplit(base_url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return f"{label}-compatible server"
    if host is None or host == _OFFICIAL_HOSTS.get(provider):
        return label
    if ":" in host:
        host = f"[{host}]"
    return f"{label}-compatible server {host}" + (f":{port}" if port is not None else "")


def tried_url(exc: BaseException, base_url: str | None) -> str | None:
    """The URL a failed request went to, shown safely (from the SDK error's request)."""
    request = attribute(exc, "request")
    url = attribute(request, "url") if request is not None else None
    if url is not None:
        try:
            return safe_url(str(url))
        except (TypeError, ValueError):
            pass
    return None if base_url is None else safe_url(base_url)
