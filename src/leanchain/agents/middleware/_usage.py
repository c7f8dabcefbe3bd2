"""`UsageLimits`: cap what one run may spend — model requests, tool calls, tokens and cost.

Usage is counted from every model call of the run's planning calls and of its "generate"
final answer, through the model-call interception point (`intercept_model_calls`), from each
reply's ``usage_metadata``; a reply without it is counted with `count_tokens_approximately`
and the usage is marked approximate. No callback handler is needed, and nothing is counted
when no `UsageLimits` is set.

When a limit would be crossed: "raise" raises `UsageLimitExceeded` (with the usage, the limit
and the steps so far); "force" ends the run with a stopped answer, "generate" with one
final-answer call. A request limit is checked before each call (with "generate", one request is
kept for the final answer); token and cost limits after each call, so at most one call
overshoots them; a tool-call limit is never overshot: the calls of a step beyond it are not run
and the model is told why in their observations.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from leanchain.agents.middleware._base import (
    AgentMiddleware,
    ModelHandler,
    ModelRequest,
    Plan,
    StopRun,
    ToolCallRequest,
    ToolHandler,
)
from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep
from leanchain.errors import AgentConfigurationError, UsageLimitExceeded
from leanchain.language_models import ModelCall, ModelInterceptor, intercept_model_calls
from leanchain.messages import AIMessage, AIMessageChunk, count_tokens_approximately

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun
    from leanchain.agents.executor import AgentExecutor
    from leanchain.agents.middleware._base import AModelHandler, AToolHandler

__all__ = ["UsageLimits"]

OnExceed = Literal["raise", "force", "generate"]
EVENT = "leanchain.usage_limits"
_TOKEN_LIMITS = ("input_tokens", "output_tokens", "total_tokens")


def _new_usage() -> dict[str, Any]:
    return {
        "requests": 0,
        "tool_calls": 0,
        "tool_calls_by_tool": {},
        "input_tokens": 0,
        "output_tokens": 0,
        "total_tokens": 0,
        "cost": 0.0,
        "approximate": False,
    }


def _model_name(call: ModelCall, reply: AIMessage) -> str:
    name = reply.response_metadata.get("model_name") or getattr(call.model, "model_name", None)
    return str(name) if name else call.model.get_name()


def _limit(name: str, value: Any, kind: type | tuple[type, ...] = int) -> Any:
    if value is None:
        return None
    valid = not isinstance(value, bool) and isinstance(value, kind)
    if not valid or value < 0:
        raise AgentConfigurationError(f"UsageLimits {name} must be None or >= 0, got {value!r}")
    return value


def _prices(prices: Mapping[str, Mapping[str, float]] | None) -> dict[str, tuple[float, float]]:
    table: dict[str, tuple[float, float]] = {}
    for model, price in (prices or {}).items():
        try:
            pair = (float(price["input"]), float(price["output"]))
        except (KeyError, TypeError, ValueError):
            raise AgentConfigurationError(
                f"UsageLimits prices[{model!r}] must be a mapping with 'input' and 'output' "
                f"prices per million tokens, got {price!r}"
            ) from None
        table[model] = pair
    return table


class _Counter(ModelInterceptor):
    """Counts every model call it sees into one run's usage."""

    __slots__ = ("limits", "usage")

    def __init__(self, limits: UsageLimits, usage: dict[str, Any]) -> None:
        self.limits = limits
        self.usage = usage

    def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
        self.usage["requests"] += 1
        reply = proceed()
        self.limits.count(self.usage, call, reply)
        return reply

    async def ainvoke(
        self, call: ModelCall, proceed: Callable[[], Awaitable[AIMessage]]
    ) -> AIMessage:
        self.usage["requests"] += 1
        reply = await proceed()
        self.limits.count(self.usage, call, reply)
        return reply

    def stream(
        self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
    ) -> Iterator[AIMessageChunk]:
        self.usage["requests"] += 1
        total: AIMessageChunk | None = None
        try:
            for chunk in proceed():
                total = chunk if total is None else total + chunk
                yield chunk
        finally:
            if total is not None:
                self.limits.count(self.usage, call, total)

    async def astream(
        self, call: ModelCall, proceed: Callable[[], AsyncIterator[AIMessageChunk]]
    ) -> AsyncIterator[AIMessageChunk]:
        self.usage["requests"] += 1
        total: AIMessageChunk | None = None
        try:
            async for chunk in proceed():
                total = chunk if total is None else total + chunk
                yield chunk
        finally:
            if total is not None:
                self.limits.count(self.usage, call, total)


class UsageLimits(AgentMiddleware):
    """Limits on what one run may spend (pydantic-ai's names); every one is optional.

    Args:
        request_limit: model requests (planning calls and the final-answer call).
        tool_calls_limit: tool calls, all tools together.
        tool_call_limits: tool calls per tool name (``{"search": 3}``).
        input_tokens_limit: input (prompt) tokens.
        output_tokens_limit: output (completion) tokens.
        total_tokens_limit: input plus output tokens.
        cost_limit: cost, in the currency of `prices`.
        prices: the price per million tokens of each model, by model name:
            ``{"gpt-4o-mini": {"input": 0.15, "output": 0.60}}`` (no built-in price list).
        on_exceed: "raise" (`UsageLimitExceeded`), "force" (a stopped answer) or "generate"
            (one final-answer call; factory-built agents).
        include_usage: add the run's usage to its outputs as ``"usage"``.

    Raises:
        AgentConfigurationError: a negative limit, a malformed price, a cost limit without
            prices, or "generate" with an agent that cannot write a final answer.
    """

    def __init__(
        self,
        *,
        request_limit: int | None = None,
        tool_calls_limit: int | None = None,
        tool_call_limits: Mapping[str, int] | None = None,
        input_tokens_limit: int | None = None,
        output_tokens_limit: int | None = None,
        total_tokens_limit: int | None = None,
        cost_limit: float | None = None,
        prices: Mapping[str, Mapping[str, float]] | None = None,
        on_exceed: OnExceed = "raise",
        include_usage: bool = False,
        name: str | None = None,
    ) -> None:
        self.request_limit = _limit("request_limit", request_limit)
        self.tool_calls_limit = _limit("tool_calls_limit", tool_calls_limit)
        self.tool_call_limits = {
            tool: _limit(f"tool_call_limits[{tool!r}]", n)
            for tool, n in (tool_call_limits or {}).items()
        }
        self.input_tokens_limit = _limit("input_tokens_limit", input_tokens_limit)
        self.output_tokens_limit = _limit("output_tokens_limit", output_tokens_limit)
        self.total_tokens_limit = _limit("total_tokens_limit", total_tokens_limit)
        self.cost_limit = _limit("cost_limit", cost_limit, (int, float))
        self.prices = _prices(prices)
        if self.cost_limit is not None and not self.prices:
            raise AgentConfigurationError(
                "UsageLimits cost_limit needs prices: {model name: {'input': ..., 'output': ...}} "
                "per million tokens"
            )
        if on_exceed not in ("raise", "force", "generate"):
            raise AgentConfigurationError(
                f"UsageLimits on_exceed must be 'raise', 'force' or 'generate', got {on_exceed!r}"
            )
        self.on_exceed: OnExceed = on_exceed
        self.include_usage = include_usage
        self.name = name

    def __repr__(self) -> str:
        set_ = {
            k: v
            for k, v in (
                ("request_limit", self.request_limit),
                ("tool_calls_limit", self.tool_calls_limit),
                ("tool_call_limits", self.tool_call_limits or None),
                ("input_tokens_limit", self.input_tokens_limit),
                ("output_tokens_limit", self.output_tokens_limit),
                ("total_tokens_limit", self.total_tokens_limit),
                ("cost_limit", self.cost_limit),
            )
            if v is not None
        }
        settings = ", ".join(f"{k}={v!r}" for k, v in set_.items())
        return f"UsageLimits({settings}, on_exceed={self.on_exceed!r})"

    def setup(self, executor: AgentExecutor) -> None:
        if self.on_exceed == "generate":
            executor.enable_generate("UsageLimits(on_exceed='generate')")

    # -- counting ---------------------------------------------------------------------------

    def usage(self, run: AgentRun) -> dict[str, Any]:
        """The run's usage so far (plain data: requests, tool calls, tokens, cost)."""
        state = run.state_for(self)
        if not state:
            state.update(usage=_new_usage(), blocked=None)
        usage: dict[str, Any] = state["usage"]
        return usage

    def count(self, usage: dict[str, Any], call: ModelCall, reply: AIMessage) -> None:
        """Add one reply's tokens and cost to `usage`."""
        metadata = reply.usage_metadata
        if metadata:
            tokens_in, tokens_out = metadata["input_tokens"], metadata["output_tokens"]
        else:
            tokens_in = count_tokens_approximately(call.messages)
            tokens_out = count_tokens_approximately([reply])
            usage["approximate"] = True
        usage["input_tokens"] += tokens_in
        usage["output_tokens"] += tokens_out
        usage["total_tokens"] += tokens_in + tokens_out
        if self.prices:
            name = _model_name(call, reply)
            price = self.prices.get(name)
            if price is None:
                if self.cost_limit is not None:
                    raise AgentConfigurationError(
                        f"UsageLimits has a cost_limit but no price for the model {name!r}; "
                        f"prices has {sorted(self.prices)!r}"
                    )
                return
            usage["cost"] += (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000

    # -- limits -----------------------------------------------------------------------------

    def _exceeded(self, run: AgentRun, limit: str, value: Any, used: Any) -> StopRun:
        """The answer to a crossed limit: raise, or stop the run (after telling the callbacks)."""
        usage = self.usage(run)
        message = f"the run reached {limit}={value!r} ({used!r} used)"
        run.emit(EVENT, {"action": "stop", "limit": limit, "message": message, "usage": usage})
        if self.on_exceed == "raise":
            raise UsageLimitExceeded(
                f"UsageLimits: {message}",
                limit=limit,
                usage=dict(usage),
                steps=list(run.steps),
            )
        return StopRun(
            "usage_limit",
            f"Agent stopped by UsageLimits: {message}",
            generate=self.on_exceed == "generate" and not self._spent(usage),
        )

    def _spent(self, usage: dict[str, Any]) -> bool:
        """Whether a token or cost limit is already crossed (then no final call is made)."""
        for kind in _TOKEN_LIMITS:
            limit = getattr(self, f"{kind}_limit")
            if limit is not None and usage[kind] > limit:
                return True
        return self.cost_limit is not None and usage["cost"] > self.cost_limit

    def before_model(self, run: AgentRun, request: ModelRequest) -> StopRun | None:
        limit = self.request_limit
        if limit is None:
            return None
        usage = self.usage(run)
        budget = limit - 1 if self.on_exceed == "generate" else limit
        if usage["requests"] >= budget:
            return self._exceeded(run, "request_limit", limit, usage["requests"])
        return None

    def wrap_model_call(self, run: AgentRun, request: ModelRequest, handler: ModelHandler) -> Plan:
        with intercept_model_calls(_Counter(self, self.usage(run))):
            return handler(request)

    async def awrap_model_call(
        self, run: AgentRun, request: ModelRequest, handler: AModelHandler
    ) -> Plan:
        with intercept_model_calls(_Counter(self, self.usage(run))):
            return await handler(request)

    def after_model(self, run: AgentRun, plan: Plan) -> StopRun | None:
        usage = self.usage(run)
        for kind in _TOKEN_LIMITS:
            limit = getattr(self, f"{kind}_limit")
            if limit is not None and usage[kind] > limit:
                return self._exceeded(run, f"{kind}_limit", limit, usage[kind])
        if self.cost_limit is not None and usage["cost"] > self.cost_limit:
            return self._exceeded(run, "cost_limit", self.cost_limit, round(usage["cost"], 6))
        if isinstance(plan, AgentFinish):
            return None
        return self._allow_tool_calls(run, plan)

    def _allow_tool_calls(self, run: AgentRun, plan: list[AgentAction]) -> StopRun | None:
        """Count the plan's calls that fit the tool-call limits; mark the others not to run.

        With "raise", a plan with a call beyond a limit runs none of its calls, and the usage
        the error carries counts only the calls that ran.
        """
        usage = self.usage(run)
        state = run.state_for(self)
        total = usage["tool_calls"]
        by_tool: dict[str, int] = dict(usage["tool_calls_by_tool"])
        blocked: dict[str, str] = {}
        for index, action in enumerate(plan):
            reason = self._over(total, by_tool.get(action.tool, 0), action.tool)
            if reason is not None:
                blocked[str(index)] = reason
                continue
            total += 1
            by_tool[action.tool] = by_tool.get(action.tool, 0) + 1
        if blocked and self.on_exceed == "raise":
            limit, value = next(iter(blocked.values())).split("=", 1)
            return self._exceeded(run, limit, int(value), usage["tool_calls"])
        usage["tool_calls"] = total
        usage["tool_calls_by_tool"] = by_tool
        state["blocked"] = {"iteration": run.iterations + 1, "calls": blocked} if blocked else None
        return None

    def _over(self, total: int, per_tool: int, tool: str) -> str | None:
        if self.tool_calls_limit is not None and total >= self.tool_calls_limit:
            return f"tool_calls_limit={self.tool_calls_limit}"
        tool_limit = self.tool_call_limits.get(tool)
        if tool_limit is not None and per_tool >= tool_limit:
            return f"tool_call_limits[{tool!r}]={tool_limit}"
        return None

    def _blocked(self, run: AgentRun, request: ToolCallRequest) -> AgentStep | None:
        blocked = run.state_for(self).get("blocked")
        if not blocked or blocked["iteration"] != request.iteration:
            return None
        reason = blocked["calls"].get(str(request.index))
        if reason is None:
            return None
        observation = (
            f"Not run: this call would exceed UsageLimits {reason}. No more tool calls can be "
            "made in this run."
        )
        return AgentStep(request.action, observation)

    def wrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: ToolHandler
    ) -> AgentStep:
        return self._blocked(run, request) or handler(request)

    async def awrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: AToolHandler
    ) -> AgentStep:
        return self._blocked(run, request) or await handler(request)

    def after_step(self, run: AgentRun, steps: list[AgentStep]) -> StopRun | None:
        blocked = run.state_for(self).get("blocked")
        if not blocked or blocked["iteration"] != run.iterations + 1:
            return None
        run.state_for(self)["blocked"] = None
        usage = self.usage(run)
        reason = next(iter(blocked["calls"].values()))
        limit, value = reason.split("=", 1)
        return self._exceeded(run, limit, int(value), usage["tool_calls"])

    def after_agent(self, run: AgentRun, finish: AgentFinish) -> None:
        if self.include_usage:
            run.output_extras["usage"] = dict(self.usage(run))
        return None
