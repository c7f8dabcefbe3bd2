"""Agent middleware: what governs an `AgentExecutor` run beyond its loop (DESIGN §3.1).

``AgentExecutor(..., middleware=[LoopGuard(), UsageLimits(request_limit=20)])``. Each
middleware is a small class whose hooks are all optional (`AgentMiddleware`); the executor
reads which hooks a class overrides once, when it is built, and calls only those.
"""

from __future__ import annotations

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
