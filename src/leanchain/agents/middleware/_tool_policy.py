"""`ToolPolicy`: a timeout per tool call, retries of passing failures, and tools that fail too
often switched off for the rest of the run.

A policy governs the calls of every tool, or of the tools it names; several may be stacked
(the first in ``middleware=[...]`` wraps the others, so its timeout bounds their retries).
Each kind of error a call raises has one outcome:

- invalid arguments (`ToolInputValidationError`): an observation, the validation error, so the
  model can fix its call; no retry is spent and the tool has not failed;
- a passing failure, one of ``retry_on`` (by default timeouts, `ToolTimeoutError` included,
  connection errors and `ToolRetryableError`): the tool is called again, up to ``retries``
  times, when that is safe; then the error is raised;
- the tool's own, expected failure (`ToolException`): an observation, its message;
- anything else: raised.

A raised error meets the executor's ``handle_tool_errors``, which applies outside every
middleware: an observation and the run goes on, or the run ends with the error, carrying a note
that names the tool and the iteration.

Calling a tool again is safe when it is idempotent (`BaseTool.idempotent`, the default) or
when the error says it came before the tool did anything
(``ToolRetryableError(before_side_effect=True)``). A tool marked ``idempotent=False`` is
therefore called once after a timeout or a dropped connection, never twice: its effect may
have happened already. A retry first waits ``backoff`` seconds (doubled for each further
retry, and at least an error's ``retry_after``); none starts when the run's time limit would
strike during that wait.

After ``disable_after`` failed calls in one run (a call counts once, however many times it was
tried) the tool is switched off for the rest of that run: the model is no longer offered it (a
factory-built agent is rebuilt without it) and a call to it is answered that it is unavailable,
without running.

Every timeout, retry, giving up, switch-off and unavailable call is an ``on_custom_event``
named ``"leanchain.tool_policy"`` (a span event of the agent's OpenTelemetry span) whose data
is plain: ``action``, ``tool``, ``iteration``, ``attempt`` (for a call), ``message``.

Threads: `wrap_tool_call` runs on the step's worker threads. It writes to the run's state only
by appending a failed tool's name to a journal, which `after_step` folds into the counts on the
loop's thread (`_tool_budget`). The events of a call are sent from its thread, as the tool's
own callbacks are. A sync call under a timeout runs on a daemon thread of its own
(`call_within`) that the policy stops waiting for: a hung tool keeps that thread until it
returns. An async call is cancelled.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

from leanchain.agents._deadline import call_within
from leanchain.agents.middleware._base import AgentMiddleware, ModelRequest, ToolCallRequest
from leanchain.agents.middleware._tool_budget import FailureBudget
from leanchain.agents.schema import AgentStep
from leanchain.errors import (
    AgentConfigurationError,
    ProviderConnectionError,
    ToolException,
    ToolInputValidationError,
    ToolRetryableError,
    ToolTimeoutError,
)
from leanchain.tools import handle_tool_error

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun
    from leanchain.agents.executor import AgentExecutor
    from leanchain.agents.middleware._base import AToolHandler, ToolHandler

__all__ = ["DEFAULT_RETRY_ON", "ToolPolicy"]

EVENT = "leanchain.tool_policy"
DEFAULT_RETRY_ON: tuple[type[Exception], ...] = (
    TimeoutError,
    ConnectionError,
    ProviderConnectionError,
    ToolRetryableError,
)
"""The errors worth another call: timeouts (`ToolTimeoutError` is one), connection errors
(the builtin ones and a provider's), and `ToolRetryableError`, which a tool raises to ask."""

Backoff: TypeAlias = float | Callable[[int], float]
"""Seconds before the first retry (doubled for each further one), or a function of the retry
number (1 for the first) that gives the seconds."""

_THREAD_NAME = "leanchain-tool-call"


def _note(exc: BaseException, text: str) -> None:
    if text not in getattr(exc, "__notes__", ()):
        exc.add_note(text)


def _why(exc: BaseException) -> str:
    text = str(exc)
    if len(text) > 200:
        text = text[:199] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _number(name: str, value: Any, *, minimum: float, inclusive: bool) -> float:
    valid = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not valid or value < minimum or (not inclusive and value == minimum):
        bound = f">= {minimum:g}" if inclusive else f"> {minimum:g}"
        raise AgentConfigurationError(f"ToolPolicy {name} must be a number {bound}, got {value!r}")
    return float(value)


def _count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise AgentConfigurationError(
            f"ToolPolicy {name} must be an int >= {minimum}, got {value!r}"
        )
    return value


def _retry_on(value: Any) -> tuple[type[Exception], ...]:
    types = (value,) if isinstance(value, type) else value
    try:
        found = tuple(types)
    except TypeError:
        found = ()
    if not found or not all(isinstance(t, type) and issubclass(t, Exception) for t in found):
        raise AgentConfigurationError(
            f"ToolPolicy retry_on must be an exception class or a tuple of them, got {value!r}"
        )
    return found


def _tool_names(value: Iterable[str] | None) -> frozenset[str] | None:
    if value is None:
        return None
    names = [value] if isinstance(value, str) else list(value)
    if isinstance(value, str) or not names or not all(isinstance(n, str) for n in names):
        raise AgentConfigurationError(
            f"ToolPolicy tools must be a list of tool names (or None: every tool), got {value!r}"
        )
    return frozenset(names)


class _Outcome:
    """What a call's error comes to: a step (an observation), a retry after `delay` seconds,
    or neither (the error is raised); and the events to send."""

    __slots__ = ("delay", "events", "step")

    def __init__(
        self,
        step: AgentStep | None = None,
        *,
        delay: float | None = None,
        events: list[dict[str, Any]] | None = None,
    ) -> None:
        self.step = step
        self.delay = delay
        self.events = events or []


class ToolPolicy(AgentMiddleware):
    """Timeouts, retries and a failure budget for tool calls (see the module's rules).

    Args:
        timeout: seconds one call of a tool may take (each retry gets as long again); a call
            over it raises `ToolTimeoutError` (``None``: no timeout).
        retries: how many times a call that failed with one of `retry_on` is made again.
        retry_on: the errors worth another call (`DEFAULT_RETRY_ON`: timeouts, connection
            errors, `ToolRetryableError`).
        backoff: seconds before the first retry, doubled for each further one; or a function
            of the retry number (1 for the first) giving the seconds. An error's
            ``retry_after`` is waited at least.
        disable_after: failed calls after which a tool is switched off for the rest of the
            run (``None``: never).
        tools: the names of the tools the policy governs (``None``: every tool).
        name: this middleware's key in the run's state (default ``"ToolPolicy"``).

    Raises:
        AgentConfigurationError: a setting out of range or of the wrong type; when the
            executor is built, a named tool it does not have.
    """

    def __init__(
        self,
        *,
        timeout: float | None = None,
        retries: int = 0,
        retry_on: type[Exception] | Iterable[type[Exception]] = DEFAULT_RETRY_ON,
        backoff: Backoff = 0.5,
        disable_after: int | None = None,
        tools: Iterable[str] | None = None,
        name: str | None = None,
    ) -> None:
        self.timeout = (
            None if timeout is None else _number("timeout", timeout, minimum=0, inclusive=False)
        )
        self.retries = _count("retries", retries, 0)
        self.retry_on = _retry_on(retry_on)
        self.backoff: Backoff = (
            backoff if callable(backoff) else _number("backoff", backoff, minimum=0, inclusive=True)
        )
        self.disable_after = (
            None if disable_after is None else _count("disable_after", disable_after, 1)
        )
        self.tools = _tool_names(tools)
        self._budget = None if self.disable_after is None else FailureBudget(self.disable_after)
        if name is not None:
            self.name = name

    def __repr__(self) -> str:
        settings: list[str] = []
        if self.timeout is not None:
            settings.append(f"timeout={self.timeout:g}")
        if self.retries:
            settings.append(f"retries={self.retries}")
        if self.disable_after is not None:
            settings.append(f"disable_after={self.disable_after}")
        if self.tools is not None:
            settings.append(f"tools={sorted(self.tools)!r}")
        return f"ToolPolicy({', '.join(settings)})"

    def setup(self, executor: AgentExecutor) -> None:
        unknown = sorted((self.tools or set()) - set(executor.tool_names))
        if unknown:
            raise AgentConfigurationError(
                f"ToolPolicy names tools the executor does not have: {unknown} (it has "
                f"{list(executor.tool_names)})"
            )

    # -- the failure budget (`_tool_budget`) ---------------------------------------------------

    def _state(self, run: AgentRun) -> dict[str, Any] | None:
        state: dict[str, Any] | None = run.state.get(run.executor.hooks.keys[id(self)])
        return state

    def _record_failure(self, run: AgentRun, name: str) -> None:
        if self._budget is not None:
            self._budget.record(run.state, run.executor.hooks.keys[id(self)], name)

    def _fold(self, run: AgentRun) -> list[dict[str, Any]]:
        if self._budget is None:
            return []
        return self._budget.fold(self._state(run), run.iterations + 1)

    # -- one call ------------------------------------------------------------------------------

    def _applies(self, request: ToolCallRequest) -> bool:
        return request.tool is not None and (
            self.tools is None or request.action.tool in self.tools
        )

    def _timed_out(self, request: ToolCallRequest, attempt: int) -> dict[str, Any]:
        timeout = self.timeout
        assert timeout is not None
        return {
            "action": "timeout",
            "tool": request.action.tool,
            "iteration": request.iteration,
            "attempt": attempt,
            "timeout": timeout,
            "message": (
                f"{request.action.tool!r} got no result within {timeout:g} s (attempt {attempt})"
            ),
        }

    def _delay(self, retry: int, exc: Exception) -> float:
        """Seconds to wait before retry number `retry` (1 for the first)."""
        backoff = self.backoff
        delay = float(backoff(retry)) if callable(backoff) else backoff * 2 ** (retry - 1)
        hint = getattr(exc, "retry_after", None)
        if isinstance(hint, (int, float)) and not isinstance(hint, bool):
            delay = max(delay, float(hint))
        return max(delay, 0.0)

    def _no_retry(
        self, run: AgentRun, request: ToolCallRequest, exc: Exception, attempt: int, delay: float
    ) -> str | None:
        """Why the call that failed with `exc` is not made again (``None``: it is)."""
        tool = request.tool
        before = isinstance(exc, ToolRetryableError) and exc.before_side_effect
        if tool is not None and not tool.idempotent and not before:
            return "it is not idempotent, and the error may have come after its effect"
        if attempt > self.retries:
            return f"{attempt} attempts failed (retries={self.retries})"
        remaining = run.remaining()
        if remaining is not None and remaining <= delay:
            return "the run's time limit leaves no time for another attempt"
        return None

    def _failed(
        self, run: AgentRun, request: ToolCallRequest, exc: Exception, attempt: int
    ) -> _Outcome:
        """What attempt number `attempt` failing with `exc` comes to (the kinds of errors)."""
        action = request.action
        name = action.tool
        if isinstance(exc, ToolInputValidationError):
            return _Outcome(AgentStep(action, str(exc)))
        if isinstance(exc, self.retry_on):
            delay = self._delay(attempt, exc)
            reason = self._no_retry(run, request, exc, attempt, delay)
            data = {"tool": name, "iteration": request.iteration, "attempt": attempt}
            if reason is None:
                retry = {
                    "action": "retry",
                    **data,
                    "error": type(exc).__name__,
                    "delay": delay,
                    "message": (
                        f"{name!r} failed ({_why(exc)}); attempt {attempt + 1} of "
                        f"{self.retries + 1} in {delay:g} s"
                    ),
                }
                return _Outcome(delay=delay, events=[retry])
            self._record_failure(run, name)
            if not self.retries:
                return _Outcome()
            _note(exc, f"ToolPolicy: {name!r} was not called again: {reason}.")
            give_up = {
                "action": "give_up",
                **data,
                "error": type(exc).__name__,
                "message": f"{name!r} failed ({_why(exc)}) and is not called again: {reason}",
            }
            return _Outcome(events=[give_up])
        self._record_failure(run, name)
        if isinstance(exc, ToolException):
            return _Outcome(AgentStep(action, handle_tool_error(exc, True)))
        return _Outcome()

    def _within(
        self, run: AgentRun, request: ToolCallRequest, handler: ToolHandler, attempt: int
    ) -> AgentStep:
        timeout = self.timeout
        assert timeout is not None
        in_time, step = call_within(
            lambda: handler(request), time.monotonic() + timeout, thread_name=_THREAD_NAME
        )
        if not in_time or step is None:
            run.emit(EVENT, self._timed_out(request, attempt))
            raise ToolTimeoutError(request.action.tool, timeout)
        return step

    async def _awithin(
        self, run: AgentRun, request: ToolCallRequest, handler: AToolHandler, attempt: int
    ) -> AgentStep:
        timeout = self.timeout
        assert timeout is not None
        scope = asyncio.timeout(timeout)
        try:
            async with scope:
                return await handler(request)
        except TimeoutError:
            if not scope.expired():
                raise
        await run.aemit(EVENT, self._timed_out(request, attempt))
        raise ToolTimeoutError(request.action.tool, timeout)

    # -- the hooks -----------------------------------------------------------------------------

    def before_model(self, run: AgentRun, request: ModelRequest) -> ModelRequest | None:
        if self._budget is None:
            return None
        kept = self._budget.offered(self._state(run), request.tools)
        if kept is None or not callable(getattr(run.executor.agent, "with_tools", None)):
            return None  # an agent that cannot be rebuilt: its calls are answered instead
        return request.replace(tools=kept)

    def wrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: ToolHandler
    ) -> AgentStep:
        if not self._applies(request):
            return handler(request)
        if self._budget is not None:
            off = self._budget.unavailable(self._state(run), request)
            if off is not None:
                run.emit(EVENT, off[1])
                return off[0]
        attempt = 1
        while True:
            try:
                if self.timeout is None:
                    return handler(request)
                return self._within(run, request, handler, attempt)
            except Exception as exc:
                outcome = self._failed(run, request, exc, attempt)
                for event in outcome.events:
                    run.emit(EVENT, event)
                if outcome.step is not None:
                    return outcome.step
                if outcome.delay is None:
                    raise
                if outcome.delay > 0:
                    time.sleep(outcome.delay)
            attempt += 1

    async def awrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: AToolHandler
    ) -> AgentStep:
        if not self._applies(request):
            return await handler(request)
        if self._budget is not None:
            off = self._budget.unavailable(self._state(run), request)
            if off is not None:
                await run.aemit(EVENT, off[1])
                return off[0]
        attempt = 1
        while True:
            try:
                if self.timeout is None:
                    return await handler(request)
                return await self._awithin(run, request, handler, attempt)
            except Exception as exc:
                outcome = self._failed(run, request, exc, attempt)
                for event in outcome.events:
                    await run.aemit(EVENT, event)
                if outcome.step is not None:
                    return outcome.step
                if outcome.delay is None:
                    raise
                if outcome.delay > 0:
                    await asyncio.sleep(outcome.delay)
            attempt += 1

    def after_step(self, run: AgentRun, steps: list[AgentStep]) -> None:
        for event in self._fold(run):
            run.emit(EVENT, event)

    async def aafter_step(self, run: AgentRun, steps: list[AgentStep]) -> None:
        for event in self._fold(run):
            await run.aemit(EVENT, event)
