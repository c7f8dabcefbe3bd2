"""The record a FakeProviderServer keeps of every request, with credentials redacted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from leanchain.testing._script import Provider

__all__ = ["REDACTED", "RecordedRequest", "redact_headers"]

REDACTED = "[REDACTED]"
"""What a credential header's value is replaced with in a record."""

_SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie"}
)


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the server received it, for assertions in tests."""

    provider: Provider | None
    """The wire format of the route hit; ``None`` for a path the server does not serve."""
    method: str
    """The HTTP method, e.g. ``"POST"``."""
    path: str
    """The request path, query string included."""
    headers: Mapping[str, str]
    """Lower-cased header names; credential values are :data:`REDACTED`."""
    body: Any
    """The parsed JSON body; ``None`` when the body was empty or not JSON."""

    @property
    def model(self) -> str | None:
        """The ``model`` field of the body, if any."""
        model = self.body.get("model") if isinstance(self.body, dict) else None
        return model if isinstance(model, str) else None

    @property
    def stream(self) -> bool:
        """Whether the body asked for a streamed answer."""
        return isinstance(self.body, dict) and self.body.get("stream") is True

    @property
    def retry_count(self) -> int | None:
        """The SDK's ``x-stainless-retry-count``: 0 for a first attempt, 1 for a first retry."""
        value = self.headers.get("x-stainless-retry-count")
        return int(value) if value is not None and value.isdigit() else None


def redact_headers(items: list[tuple[str, str]]) -> dict[str, str]:
    """Lower-case header names and hide credential values, keeping a ``Bearer`` scheme visible.

    Repeated headers are joined with ``", "`` as HTTP allows.
    """
    headers: dict[str, str] = {}
    for name, value in items:
        key = name.lower()
        if key in _SECRET_HEADERS:
            scheme, _, _ = value.partition(" ")
            value = f"{scheme} {REDACTED}" if scheme.lower() == "bearer" else REDACTED
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return headers
