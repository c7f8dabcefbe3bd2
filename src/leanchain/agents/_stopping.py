"""When an agent run must stop before the agent finished: the limits and the stopped response.

"force" answers with LangChain's fixed text. "generate" asks the model once more, without
tools, for a final answer from the steps so far: the agent runnable provides that call through
``build_final_answer_chain()`` (every factory-built agent does).
"""

from __future__ import annotations

import logging
from typing import Any

from leanchain.agents.schema import AgentFinish
from leanchain.errors import AgentConfigurationError
from leanchain.runnables.base import Runnable

__all__ = [
    "STOPPED_OUTPUT",
    "final_answer_chain",
    "finish_from_reply",
    "forced_finish",
    "log_stop",
]

logger = logging.getLogger("leanchain.agents")

STOPPED_OUTPUT = "Agent stopped due to iteration limit or time limit."
"""The output of a run stopped by a limit with ``early_stopping_method="force"``."""


def final_answer_chain(agent: Any, method: str) -> Runnable[Any, Any] | None:
    """The runnable that writes the final answer for "generate" (``None`` for "force").

    Raises:
        AgentConfigurationError: `method` is neither "force" nor "generate", or it is "generate"
            and the agent cannot build a final-answer call.
    """
    if method == "force":
        return None
    if method == "generate":
        build = getattr(agent, "build_final_answer_chain", None)
        if callable(build):
            chain = build()
            if isinstance(chain, Runnable):
                return chain
    raise AgentConfigurationError(f"Got unsupported early_stopping_method `{method}`")


def forced_finish() -> AgentFinish:
    """The "force" stopped response."""
    return AgentFinish({"output": STOPPED_OUTPUT}, "")


def finish_from_reply(reply: Any) -> AgentFinish:
    """The "generate" stopped response from the final-answer call's result.

    Raises:
        TypeError: the call returned neither an `AgentFinish` nor text.
    """
    if isinstance(reply, AgentFinish):
        return reply
    if isinstance(reply, str):
        return AgentFinish({"output": reply}, reply)
    raise TypeError(
        "The final-answer chain must return an AgentFinish or a str, "
        f"got {type(reply).__name__}: {reply!r}"
    )


def log_stop() -> None:
    """Say (as LangChain does) that a limit ended the run."""
    logger.warning("Stopping agent prematurely due to triggering stop condition")
