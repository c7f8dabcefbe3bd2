"""Parameters a model rejects: asked once more without them, then never sent to it again.

Reasoning models answer 400 ``unsupported_parameter`` to ``stop`` and a few other parameters
(pitfalls.md 1C-2). Where a reply is still right without the parameter (stop sequences are cut
client-side too), the request is sent once more without it, and the model's requests leave it
out from then on; any other 400 stays the caller's error.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from leanchain.errors import BadRequestError

from ._errors import provider_label, unsupported_parameter

__all__ = ["RejectedParameters"]

logger = logging.getLogger("leanchain.providers")


class RejectedParameters:
    """The parameters each model rejected, for one chat model object (and its copies).

    Models are told apart by server and name: a copy configured for another ``base_url``
    learns for itself.

    Args:
        droppable: the parameters that a reply is still right without.
        provider: ``"openai"``, ``"anthropic"``, named in the log line.
    """

    __slots__ = ("_droppable", "_label", "_lock", "by_model")

    def __init__(self, droppable: frozenset[str], provider: str) -> None:
        self._droppable = droppable
        self._label = provider_label(provider)
        self._lock = threading.Lock()
        # (base URL, model name) -> the parameters it answered 400 unsupported_parameter to
        # (empty until one does); replaced, not changed, so that a reader never sees it
        # half-updated.
        self.by_model: dict[tuple[str | None, str], frozenset[str]] = {}

    def known(self, params: dict[str, Any], server: str | None) -> dict[str, Any]:
        """`params` without those its model is known to reject (`params` itself if none)."""
        rejected = self.by_model.get((server, params["model"]))
        if not rejected:
            return params
        return {key: value for key, value in params.items() if key not in rejected}

    def retry(
        self, params: dict[str, Any], error: BadRequestError, server: str | None
    ) -> dict[str, Any] | None:
        """`params` without the one `error` says is unsupported, which is remembered; or
        ``None`` when `error` is another 400 or names a parameter that must not be dropped."""
        param = unsupported_parameter(error)
        if param not in self._droppable or param not in params:
            return None
        model = params["model"]
        with self._lock:
            rejected = self.by_model.get((server, model), frozenset())
            self.by_model = {**self.by_model, (server, model): rejected | {param}}
        logger.info(
            "%s model %r does not support %r: sent without it from now on",
            self._label,
            model,
            param,
        )
        return {key: value for key, value in params.items() if key != param}
