"""Agent middleware: what governs an `AgentExecutor` run beyond its loop (DESIGN §3.1).

``AgentExecutor(..., middleware=[LoopGuard(), UsageLimits(request_limit=20)])``. Each
middleware is a small class whose hooks are all optional (`AgentMiddleware`); the executor
reads which hooks a class overrides once, when it is built, and calls only those.

The names are imported on first use (module ``__getattr__``), so an executor, which needs only
the base class, does not import every middleware a program may never use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leanchain._lazy import lazy_face as _lazy_face

_EXPORTS: dict[str, str] = {
    "AgentMiddleware": "leanchain.agents.middleware._base",
    "AgentRun": "leanchain.agents._run",
    "ApprovalRequest": "leanchain.agents.middleware._approval",
    "ClearToolResults": "leanchain.agents.middleware._context",
    "Decision": "leanchain.agents.middleware._approval",
    "HumanApproval": "leanchain.agents.middleware._approval",
    "Interrupt": "leanchain.agents.middleware._base",
    "LoopGuard": "leanchain.agents.middleware._loop_guard",
    "ModelRequest": "leanchain.agents.middleware._base",
    "Plan": "leanchain.agents.middleware._base",
    "StopRun": "leanchain.agents.middleware._base",
    "Summarization": "leanchain.agents.middleware._context",
    "ToolCallRequest": "leanchain.agents.middleware._base",
    "ToolPolicy": "leanchain.agents.middleware._tool_policy",
    "ToolSelector": "leanchain.agents.middleware._tool_selector",
    "UsageLimits": "leanchain.agents.middleware._usage",
}

__all__ = [
    "AgentMiddleware",
    "AgentRun",
    "ApprovalRequest",
    "ClearToolResults",
    "Decision",
    "HumanApproval",
    "Interrupt",
    "LoopGuard",
    "ModelRequest",
    "Plan",
    "StopRun",
    "Summarization",
    "ToolCallRequest",
    "ToolPolicy",
    "ToolSelector",
    "UsageLimits",
]


__getattr__, __dir__ = _lazy_face(__name__, _EXPORTS)


if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun
    from leanchain.agents.middleware._approval import ApprovalRequest, Decision, HumanApproval
    from leanchain.agents.middleware._base import (
        AgentMiddleware,
        Interrupt,
        ModelRequest,
        Plan,
        StopRun,
        ToolCallRequest,
    )
    from leanchain.agents.middleware._context import ClearToolResults, Summarization
    from leanchain.agents.middleware._loop_guard import LoopGuard
    from leanchain.agents.middleware._tool_policy import ToolPolicy
    from leanchain.agents.middleware._tool_selector import ToolSelector
    from leanchain.agents.middleware._usage import UsageLimits
