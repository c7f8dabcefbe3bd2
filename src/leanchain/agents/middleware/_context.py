"""Bounded context for long runs: `ClearToolResults` and `Summarization`.

Both rewrite what the agent *sees* of its steps (``request.inputs["intermediate_steps"]``) once
that passes a size in tokens; the run's own steps, and its output, keep everything. Both work
with every agent type, since each agent writes the edited steps with its own scratchpad
formatter, and both cut only between whole turns (`_history.turn_starts`), so a tool call and
its result are never separated.

- `ClearToolResults` replaces the observations of all but the last `keep` steps with a short
  placeholder. No model call. It works in `before_model` (and in `wrap_model_call` for the
  final-answer call of a "generate" stop, which has no `before_model`).
- `Summarization` replaces the oldest steps with one summary a model writes, kept in the run's
  state and extended (not redone) when the scratchpad grows past the size again. It works in
  `wrap_model_call`, so its model call runs inside the wrappers listed before it: a
  `UsageLimits` listed first counts it, and the run's time limit holds for it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from leanchain.agents.middleware._base import AgentMiddleware, ModelRequest, Plan
from leanchain.agents.middleware._history import (
    APPROXIMATE,
    Pair,
    StepSizer,
    as_pairs,
    cut_point,
    formatter_of,
    turn_starts,
)
from leanchain.agents.middleware._summary import SummaryBlock, SummaryWriter, span
from leanchain.errors import AgentConfigurationError
from leanchain.messages import TokenCounter

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun
    from leanchain.agents.executor import AgentExecutor
    from leanchain.agents.middleware._base import AModelHandler, ModelHandler
    from leanchain.prompts import BasePromptTemplate
    from leanchain.runnables import Runnable

__all__ = ["ClearToolResults", "Summarization"]

CLEAR_EVENT = "leanchain.clear_tool_results"
SUMMARY_EVENT = "leanchain.summarization"


def _count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise AgentConfigurationError(f"{name} must be an int >= {minimum}, got {value!r}")
    return value


def _with_steps(request: ModelRequest, steps: list[Pair]) -> ModelRequest:
    return request.replace(inputs={**request.inputs, "intermediate_steps": steps})


class ClearToolResults(AgentMiddleware):
    """Clear old tool results from what the agent sees once its steps pass `trigger_tokens`.

    While the steps the agent is shown take more than `trigger_tokens` tokens, the observation
    of every step but the last `keep` is replaced by `placeholder` (the call itself stays, so
    the model knows what it did). Clearing only grows as the run goes on, so the start of the
    prompt stays the same from one call to the next and provider prompt caches keep hitting.

    Args:
        trigger_tokens: the size of the steps, in tokens, past which results are cleared.
        keep: how many of the most recent steps keep their results.
        placeholder: what a cleared result becomes.
        exclude_tools: tools whose results are never cleared.
        token_counter: how tokens are counted: ``"approximate"``
            (`count_tokens_approximately`), a function of a list of messages or of one
            message, or a model with ``get_num_tokens_from_messages``.
        name: the key of its state in a run.

    Raises:
        AgentConfigurationError: a bad setting.
    """

    PLACEHOLDER = "[result cleared to save space]"
    """The default placeholder."""

    def __init__(
        self,
        *,
        trigger_tokens: int = 100_000,
        keep: int = 3,
        placeholder: str = PLACEHOLDER,
        exclude_tools: Collection[str] = (),
        token_counter: TokenCounter = APPROXIMATE,
        name: str | None = None,
    ) -> None:
        self.trigger_tokens = _count("ClearToolResults trigger_tokens", trigger_tokens, 1)
        self.keep = _count("ClearToolResults keep", keep, 0)
        if not isinstance(placeholder, str):
            raise AgentConfigurationError(
                f"ClearToolResults placeholder must be a str, got {placeholder!r}"
            )
        self.placeholder = placeholder
        self.exclude_tools = frozenset(exclude_tools)
        self.token_counter = token_counter
        self._sizer = StepSizer(token_counter, "ClearToolResults")
        self.name = name

    def __repr__(self) -> str:
        return f"ClearToolResults(trigger_tokens={self.trigger_tokens}, keep={self.keep})"

    def cleared(self, run: AgentRun, request: ModelRequest) -> ModelRequest | None:
        """`request` with the old results cleared, or ``None`` while the steps fit."""
        steps = as_pairs(request.inputs.get("intermediate_steps"))
        edge = len(steps) - self.keep
        if edge <= 0:
            return None
        starts = turn_starts(steps)
        formatter = formatter_of(run.executor.agent)
        before = self._sizer.steps(formatter, steps, starts)
        if before <= self.trigger_tokens:
            return None
        placeholder, cleared = self.placeholder, 0
        for index in range(edge):
            action, observation = steps[index]
            if action.tool in self.exclude_tools or observation is placeholder:
                continue
            if isinstance(observation, str) and len(observation) <= len(placeholder):
                continue
            steps[index] = (action, placeholder)
            cleared += 1
        state = run.state_for(self)
        if state.get("edge", 0) < edge:
            state["edge"] = edge
            after = self._sizer.steps(formatter, steps, starts)
            run.emit(
                CLEAR_EVENT,
                {
                    "action": "clear",
                    "message": (
                        f"Cleared old tool results: the agent sees the results of its last "
                        f"{self.keep} steps only ({before} -> {after} tokens of steps)"
                    ),
                    "cleared": cleared,
                    "tokens_before": before,
                    "tokens_after": after,
                },
            )
        return _with_steps(request, steps)

    def before_model(self, run: AgentRun, request: ModelRequest) -> ModelRequest | None:
        return self.cleared(run, request)

    def wrap_model_call(self, run: AgentRun, request: ModelRequest, handler: ModelHandler) -> Plan:
        if request.final:
            request = self.cleared(run, request) or request
        return handler(request)

    async def awrap_model_call(
        self, run: AgentRun, request: ModelRequest, handler: AModelHandler
    ) -> Plan:
        if request.final:
            request = self.cleared(run, request) or request
        return await handler(request)


class Summarization(AgentMiddleware):
    """Summarise the oldest steps with a model once the steps pass `trigger_tokens`.

    Before a planning call whose steps (as the agent would see them) take more than
    `trigger_tokens` tokens, the steps before the last `keep` (rounded to whole turns: more
    may be kept, never a call without its result) are summarised by `model` into one block
    that the agent sees in their place. The summary lives in the run's state (``"summary"``,
    and ``"steps"``: how many of the first steps it covers), so it is made once and, when
    the steps pass the size again, extended with the steps since (the model gets the summary
    so far and the new steps), never redone. The run's steps and its output keep everything.

    What the agent sees in the summarised steps' place is one step of its own:
    ``AgentAction("_Summary", "steps 1-N", log="I have already taken N steps on this task;
    they are summarised below.")`` whose observation is ``"Summary of steps 1-N:\\n"`` and the
    summary. Each agent writes it with its own scratchpad formatter: a tool-calling agent as
    an AI message and a human message (no tool call, so nothing can be left unanswered), a
    ReAct or structured-chat agent as a thought and an observation (the log then starts
    with a space, as a model's thought after ``Thought:`` does), an XML agent as a
    ``<tool>_Summary</tool>`` block. For a formatter that does not show a plain step's
    observation (the OpenAI functions agent's), the summary goes into the log instead.

    The summary call runs in `wrap_model_call`, with the run's config (its run is named
    ``"Summarization"``), so a `UsageLimits` listed before this middleware counts it and the
    run's time limit holds for it; the final-answer call of a "generate" stop sees the
    summary too.

    Args:
        model: any chat model (or runnable that takes a prompt value and returns a message
            or a string) that writes the summaries.
        trigger_tokens: the size of the steps, in tokens, past which they are summarised.
        keep: how many of the most recent steps stay as they are (at least).
        prompt: the summary prompt: a template string (one human message) or a prompt with
            the variables ``steps`` (required), ``summary`` (the summary so far) and ``task``
            (the run's input); `Summarization.PROMPT` by default.
        token_counter: how tokens are counted (see `ClearToolResults`).
        name: the key of its state in a run.

    Raises:
        AgentConfigurationError: a bad setting; in `setup`, an executor that trims the steps
            itself (``trim_intermediate_steps``).
    """

    PROMPT = SummaryWriter.PROMPT
    """The default summary prompt (leanchain's own words)."""

    def __init__(
        self,
        model: Runnable[Any, Any],
        *,
        trigger_tokens: int = 100_000,
        keep: int = 6,
        prompt: str | BasePromptTemplate = PROMPT,
        token_counter: TokenCounter = APPROXIMATE,
        name: str | None = None,
    ) -> None:
        self.trigger_tokens = _count("Summarization trigger_tokens", trigger_tokens, 1)
        self.keep = _count("Summarization keep", keep, 0)
        self.writer = SummaryWriter(model, prompt)
        self.model = model
        self.prompt = self.writer.prompt
        self.token_counter = token_counter
        self._sizer = StepSizer(token_counter, "Summarization")
        self.name = name

    def __repr__(self) -> str:
        return (
            f"Summarization({self.model!r}, trigger_tokens={self.trigger_tokens}, keep={self.keep})"
        )

    def setup(self, executor: AgentExecutor) -> None:
        if executor.trim_intermediate_steps != -1:
            raise AgentConfigurationError(
                "Summarization works on all the steps of a run, but this executor also trims "
                f"them (trim_intermediate_steps={executor.trim_intermediate_steps!r}); "
                "use one or the other"
            )

    def _due(self, run: AgentRun, steps: list[Pair]) -> tuple[int, int, int] | None:
        """``(covered, cut, tokens)`` when steps ``covered:cut`` are to be summarised now."""
        state = run.state_for(self)
        covered: int = min(state.get("steps", 0), len(steps))
        starts = turn_starts(steps)
        formatter = formatter_of(run.executor.agent)
        tokens = state.get("tokens", 0) + self._sizer.steps(formatter, steps, starts, covered)
        if tokens <= self.trigger_tokens:
            return None
        cut = cut_point(starts, len(steps), self.keep)
        return (covered, cut, tokens) if cut > covered else None

    def _shown(self, run: AgentRun, request: ModelRequest, steps: list[Pair]) -> ModelRequest:
        state = run.state_for(self)
        covered = min(state.get("steps", 0), len(steps))
        if not covered:
            return request
        block = SummaryBlock(covered, state["summary"])
        return _with_steps(request, [block.step(run.executor.agent), *steps[covered:]])

    def _keep(self, run: AgentRun, due: tuple[int, int, int], summary: str) -> dict[str, Any]:
        """Keep the new summary in the run's state; the event that tells the callbacks."""
        covered, cut, before = due
        agent = run.executor.agent
        step = SummaryBlock(cut, summary).step(agent)
        tokens = self._sizer.written(formatter_of(agent)([step]))
        state = run.state_for(self)
        state.update(summary=summary, steps=cut, tokens=tokens)
        state["summaries"] = state.get("summaries", 0) + 1
        extended = f" (extending the summary of {span(covered)})" if covered else ""
        return {
            "action": "summarize",
            "message": f"Summarised {span(cut)}{extended}: {before} -> {tokens} tokens of steps",
            "steps": cut,
            "tokens_before": before,
            "tokens_after": tokens,
        }

    def summarized(self, run: AgentRun, request: ModelRequest) -> ModelRequest:
        """`request` as the agent sees it: summarising first if the steps are due."""
        steps = as_pairs(request.inputs.get("intermediate_steps"))
        due = self._due(run, steps)
        if due is not None:
            covered, cut, _ = due
            summary = self.writer.write(run, steps, covered, cut, run.state_for(self))
            run.emit(SUMMARY_EVENT, self._keep(run, due, summary))
        return self._shown(run, request, steps)

    async def asummarized(self, run: AgentRun, request: ModelRequest) -> ModelRequest:
        """Async `summarized`."""
        steps = as_pairs(request.inputs.get("intermediate_steps"))
        due = self._due(run, steps)
        if due is not None:
            covered, cut, _ = due
            summary = await self.writer.awrite(run, steps, covered, cut, run.state_for(self))
            await run.aemit(SUMMARY_EVENT, self._keep(run, due, summary))
        return self._shown(run, request, steps)

    def wrap_model_call(self, run: AgentRun, request: ModelRequest, handler: ModelHandler) -> Plan:
        return handler(self.summarized(run, request))

    async def awrap_model_call(
        self, run: AgentRun, request: ModelRequest, handler: AModelHandler
    ) -> Plan:
        return await handler(await self.asummarized(run, request))
