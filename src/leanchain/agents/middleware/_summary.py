"""`Summarization`'s parts: the summary call (`SummaryWriter`) and what the agent sees of a
summary (`SummaryBlock`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from leanchain.agents.format_scratchpad._steps import Steps
from leanchain.agents.middleware._history import Pair, call_text
from leanchain.agents.middleware._prompt import checked_prompt, task_text
from leanchain.agents.schema import AgentAction, observation_text
from leanchain.callbacks.weak import WeakMemo
from leanchain.errors import AgentConfigurationError
from leanchain.messages import BaseMessage
from leanchain.prompts import BasePromptTemplate
from leanchain.runnables import Runnable

if TYPE_CHECKING:
    from collections.abc import Callable

    from leanchain.agents._run import AgentRun

__all__ = ["SUMMARY_TOOL", "SummaryBlock", "SummaryWriter"]

SUMMARY_TOOL: Final = "_Summary"
"""The tool name of the step that stands for summarised steps (no tool has it)."""

INTRO: Final = "I have already taken {taken} on this task; {them} summarised below."
BLOCK: Final = "Summary of {span}:\n{summary}"

PROMPT: Final = """\
You keep the notes of an AI agent that works on a task with tools. Its earlier steps no \
longer fit in what it can read, so it will see your summary in their place.

The task:
{task}

Your summary of the steps before these:
{summary}

The steps to add, oldest first, each a tool call and its result:
{steps}

Write one summary of all the steps so far, for the agent: every fact, number, name and \
identifier it found that the task may need, what it tried that did not work, and what it was \
about to do next. Leave out what does not matter for the task. Answer with the summary only."""

_PROBE: Final = "\x00leanchain-summary-probe\x00"


def steps_text(steps: list[Pair], first: int) -> str:
    """Steps for the summariser, numbered from `first`: the call, then its result."""
    return "\n\n".join(
        f"Step {number}: {call_text(action)}\nResult: {observation_text(observation)}"
        for number, (action, observation) in enumerate(steps, start=first)
    )


def _reply_text(reply: Any) -> str:
    text = reply.text if isinstance(reply, BaseMessage) else str(reply)
    return text.strip()


class SummaryWriter:
    """Writes (and extends) a run's summary with a model and a prompt."""

    PROMPT = PROMPT

    __slots__ = ("model", "prompt", "variables")

    def __init__(self, model: Runnable[Any, Any], prompt: str | BasePromptTemplate) -> None:
        if not isinstance(model, Runnable):
            raise AgentConfigurationError(
                "Summarization model must be a chat model (or a Runnable), got "
                f"{type(model).__name__}: {model!r}"
            )
        self.model = model
        self.prompt = checked_prompt(prompt, "Summarization", "steps", ("summary", "task"))
        self.variables = set(self.prompt.input_variables)

    def _prompt_value(
        self, run: AgentRun, steps: list[Pair], covered: int, cut: int, summary: str | None
    ) -> Any:
        values = {
            "task": task_text(run.inputs),
            "summary": summary or "(none yet)",
            "steps": steps_text(steps[covered:cut], covered + 1),
        }
        return self.prompt.invoke({k: v for k, v in values.items() if k in self.variables})

    def _failed(self, exc: Exception, cut: int) -> None:
        text = (
            f"Summarization: the model failed while summarising steps 1-{cut}; its model: "
            f"{self.model!r}."
        )
        if text not in getattr(exc, "__notes__", ()):
            exc.add_note(text)

    def write(
        self, run: AgentRun, steps: list[Pair], covered: int, cut: int, state: dict[str, Any]
    ) -> str:
        """The summary of steps ``0:cut``: `state`'s summary of ``0:covered`` extended."""
        value = self._prompt_value(run, steps, covered, cut, state.get("summary"))
        try:
            reply = self.model.invoke(value, {**run.config, "run_name": "Summarization"})
        except Exception as exc:
            self._failed(exc, cut)
            raise
        return _reply_text(reply)

    async def awrite(
        self, run: AgentRun, steps: list[Pair], covered: int, cut: int, state: dict[str, Any]
    ) -> str:
        """Async `write`."""
        value = self._prompt_value(run, steps, covered, cut, state.get("summary"))
        try:
            reply = await self.model.ainvoke(value, {**run.config, "run_name": "Summarization"})
        except Exception as exc:
            self._failed(exc, cut)
            raise
        return _reply_text(reply)


_SHAPES: WeakMemo[tuple[bool, bool]] = WeakMemo(limit=256)


def _shape(formatter: Callable[[Steps], Any] | None) -> tuple[bool, bool]:
    """How `formatter` writes a plain step: ``(shows its observation, as text)``.

    The OpenAI functions formatter does not show the observation (only the log); text
    scratchpads follow the prompt's ``Thought:`` or ``Question`` directly.
    """
    if formatter is None:
        return True, False
    known = _SHAPES.get(formatter)
    if known is None:
        written = formatter([(AgentAction(SUMMARY_TOOL, "", "log"), _PROBE)])
        if isinstance(written, str):
            known = _PROBE in written, True
        else:
            shown = any(isinstance(m, BaseMessage) and _PROBE in m.text for m in written or ())
            known = shown, False
        _SHAPES.put(formatter, known)
    return known


def span(steps: int) -> str:
    """``"step 1"`` or ``"steps 1-12"``."""
    return "step 1" if steps == 1 else f"steps 1-{steps}"


class SummaryBlock:
    """What the agent sees in place of the first `steps` steps: one step of its own."""

    __slots__ = ("steps", "summary")

    def __init__(self, steps: int, summary: str) -> None:
        self.steps = steps
        self.summary = summary

    def step(self, agent: Any) -> Pair:
        """The step, for `agent`'s scratchpad formatter."""
        taken = "1 step" if self.steps == 1 else f"{self.steps} steps"
        intro = INTRO.format(taken=taken, them="it is" if self.steps == 1 else "they are")
        text = BLOCK.format(span=span(self.steps), summary=self.summary)
        shows_observation, as_text = _shape(getattr(agent, "format_scratchpad", None))
        if not shows_observation:
            intro = f"{intro}\n\n{text}"
        if as_text:
            intro = " " + intro
        return AgentAction(SUMMARY_TOOL, span(self.steps), intro), text
