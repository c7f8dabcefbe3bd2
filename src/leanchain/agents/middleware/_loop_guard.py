"""`LoopGuard`: notice an agent that repeats itself, warn it, and stop it when it persists.

Three signals, all on what the run's tool calls returned (a call whose result changed is
progress, so polling a tool until its answer changes never trips them):

- repeat: a call with the same tool and the same arguments (compared as normalised JSON) as
  an earlier call of the run, that got the same observation, `repeat_limit` times in all;
- cycle: a sequence of two or more different calls that repeats back to back (A, B, A, B)
  with the same observations, `cycle_limit` times;
- no progress: the same observation, or an empty one, `no_progress_limit` times in a row
  (from any tool; an unparsable reply's error step counts too).

A signal first earns the model a warning, appended to the observation it sees (`warnings` of
them); the next signal stops the run: "force" answers with a stopped text, "generate" makes
one final-answer call, "raise" raises `AgentLoopError` carrying the steps so far. Each warning
and stop is an ``on_custom_event`` named ``"leanchain.loop_guard"``.

The guard remembers, per run, a short fingerprint of each call and observation — plain data in
the run's state, never the observations themselves.
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING, Any, Literal

from leanchain.agents.middleware._base import AgentMiddleware, StopRun
from leanchain.agents.schema import AgentStep, observation_text
from leanchain.errors import AgentConfigurationError, AgentLoopError

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun
    from leanchain.agents.executor import AgentExecutor

__all__ = ["LoopGuard"]

OnLoop = Literal["force", "generate", "raise"]
EVENT = "leanchain.loop_guard"
_ERROR_TOOL = "_Exception"


def _fingerprint(text: str) -> str:
    """A short, stable (across processes) fingerprint of `text`: 64 bits of two checksums."""
    data = text.encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


_SCALARS = (str, int, float, bool, type(None))


def _arguments(tool_input: Any) -> str:
    """The call's arguments in a normal form: key order and spacing do not matter."""
    if isinstance(tool_input, str):
        return tool_input.strip()
    if isinstance(tool_input, dict) and all(
        type(k) is str and isinstance(v, _SCALARS) for k, v in tool_input.items()
    ):
        return repr(sorted(tool_input.items()))  # the common case, without a JSON encoder
    try:
        return json.dumps(tool_input, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(tool_input)


def _label(tool: str, tool_input: Any) -> str:
    """How a call reads in a message: ``search('cats')``, ``lookup(city='Paris')``."""
    if isinstance(tool_input, dict):
        inner = ", ".join(f"{k}={v!r}" for k, v in tool_input.items())
    else:
        inner = repr(tool_input)
    return f"{tool}({_short(inner, 60)})"


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _int_setting(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise AgentConfigurationError(
            f"LoopGuard {name} must be an int >= {minimum}, got {value!r}"
        )
    return value


class LoopGuard(AgentMiddleware):
    """Warns, then stops, an agent that repeats a call, cycles, or makes no progress.

    Args:
        repeat_limit: identical calls with identical results that make a repeat (>= 2).
        cycle_limit: back-to-back repetitions of a call sequence that make a cycle (>= 2).
        max_cycle_length: the longest sequence of calls looked for as a cycle (>= 2).
        no_progress_limit: same-or-empty observations in a row that make no progress (>= 2).
        warnings: how many warnings the model gets before a signal stops the run (>= 0).
        on_loop: how a stopped run ends: "force" (a stopped answer), "generate" (one
            final-answer call; factory-built agents), or "raise" (`AgentLoopError`).
        exempt_tools: tool names never counted (a status tool that is polled on purpose).

    Raises:
        AgentConfigurationError: a setting out of range, or "generate" with an agent that
            cannot write a final answer (when the executor is built).
    """

    def __init__(
        self,
        *,
        repeat_limit: int = 2,
        cycle_limit: int = 2,
        max_cycle_length: int = 4,
        no_progress_limit: int = 3,
        warnings: int = 1,
        on_loop: OnLoop = "force",
        exempt_tools: tuple[str, ...] | list[str] = (),
        name: str | None = None,
    ) -> None:
        self.repeat_limit = _int_setting("repeat_limit", repeat_limit, 2)
        self.cycle_limit = _int_setting("cycle_limit", cycle_limit, 2)
        self.max_cycle_length = _int_setting("max_cycle_length", max_cycle_length, 2)
        self.no_progress_limit = _int_setting("no_progress_limit", no_progress_limit, 2)
        self.warnings = _int_setting("warnings", warnings, 0)
        if on_loop not in ("force", "generate", "raise"):
            raise AgentConfigurationError(
                f"LoopGuard on_loop must be 'force', 'generate' or 'raise', got {on_loop!r}"
            )
        self.on_loop: OnLoop = on_loop
        self.exempt_tools = frozenset(exempt_tools)
        self.name = name

    def __repr__(self) -> str:
        return (
            f"LoopGuard(repeat_limit={self.repeat_limit}, cycle_limit={self.cycle_limit}, "
            f"no_progress_limit={self.no_progress_limit}, warnings={self.warnings}, "
            f"on_loop={self.on_loop!r})"
        )

    def setup(self, executor: AgentExecutor) -> None:
        if self.on_loop == "generate":
            executor.enable_generate("LoopGuard(on_loop='generate')")

    def after_step(self, run: AgentRun, steps: list[AgentStep]) -> list[AgentStep] | StopRun | None:
        state = run.state_for(self)
        if not state:
            state.update(counts={}, calls=[], last=None, streak=0, warned=0, warned_at=0)
        iteration = run.iterations + 1
        kept: list[AgentStep] = []
        changed = False
        for step in steps:
            signal = self._observe(state, step)
            # One step is one decision of the model: a second signal in the iteration that
            # was just warned about is the same loop, not a sign the warning went unheeded.
            if signal is None or state["warned_at"] == iteration:
                kept.append(step)
                continue
            kind, warning, stopped = signal
            if state["warned"] < self.warnings:
                state["warned"] += 1
                state["warned_at"] = iteration
                run.emit(EVENT, self._event("warn", kind, warning, step, iteration))
                warned = f"{observation_text(step.observation)}\n\n[LoopGuard] {warning}"
                kept.append(AgentStep(step.action, warned))
                changed = True
                continue
            run.emit(EVENT, self._event("stop", kind, stopped, step, iteration))
            if self.on_loop == "raise":
                done = [*run.steps, *((s.action, s.observation) for s in [*kept, step])]
                raise AgentLoopError(f"LoopGuard stopped the run: {stopped}", kind=kind, steps=done)
            return StopRun(
                "loop_guard",
                f"Agent stopped by LoopGuard: {stopped}",
                generate=self.on_loop == "generate",
            )
        return kept if changed else None

    def _observe(self, state: dict[str, Any], step: AgentStep) -> tuple[str, str, str] | None:
        """Remember `step`; the signal it raises, if any: (kind, warning, stop message)."""
        action = step.action
        if action.tool in self.exempt_tools:
            return None
        text = observation_text(step.observation)
        seen = _fingerprint(text)
        no_news = not text.strip() or seen == state["last"]
        state["streak"] = state["streak"] + 1 if no_news else 1
        state["last"] = seen
        change = (
            "Change your approach: use different arguments or another tool, or give your "
            "final answer."
        )
        if action.tool != _ERROR_TOOL:
            key = f"{action.tool}\x00{_fingerprint(_arguments(action.tool_input))}\x00{seen}"
            counts: dict[str, int] = state["counts"]
            counts[key] = count = counts.get(key, 0) + 1
            calls: list[list[Any]] = state["calls"]
            calls.append([key, action.tool, action.tool_input])
            del calls[: -self.max_cycle_length * self.cycle_limit]
            cycle = self._cycle(calls)
            if cycle is not None:
                names = " → ".join(cycle)
                return (
                    "cycle",
                    f"You keep repeating the same calls ({names}) and getting the same "
                    f"results. {change}",
                    f"the agent kept repeating the calls {names} with the same results.",
                )
            if count >= self.repeat_limit:
                return (
                    "repeat",
                    f"You already called {action.tool} with these arguments and got the same "
                    f"result ({_short(text)!r}). {change}",
                    f"the agent called {action.tool} {count} times with the same arguments "
                    "and got the same result.",
                )
        if state["streak"] >= self.no_progress_limit:
            return (
                "no_progress",
                f"The last {state['streak']} results were the same or empty: you are making "
                "no progress. Change your approach, or give your final answer.",
                f"the agent's last {state['streak']} results were the same or empty.",
            )
        return None

    def _cycle(self, calls: list[list[Any]]) -> list[str] | None:
        """The labels of the repeating sequence the calls end with, if they end with one."""
        keys = [call[0] for call in calls]
        if keys[-1] not in keys[-1 - self.max_cycle_length : -1]:
            return None  # the last call is new to the window: no cycle ends with it
        for length in range(2, self.max_cycle_length + 1):
            span = length * self.cycle_limit
            if len(keys) < span:
                break
            pattern = keys[-length:]
            if len(set(pattern)) < 2:
                continue
            tail = keys[-span:]
            if all(tail[i] == pattern[i % length] for i in range(span)):
                return [_label(tool, tool_input) for _, tool, tool_input in calls[-length:]]
        return None

    def _event(
        self, action: str, kind: str, message: str, step: AgentStep, iteration: int
    ) -> dict[str, Any]:
        return {
            "action": action,
            "kind": kind,
            "message": message,
            "tool": step.action.tool,
            "iteration": iteration,
        }
