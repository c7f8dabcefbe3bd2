"""`AgentRunnable`: the four-stage agent runnable, which keeps its parts for one more call.

Every ``create_*_agent`` factory returns one. It runs exactly as the `RunnableSequence`
``assign(agent_scratchpad=...) | prompt | llm step | parser`` it is; its parts let the executor's
``early_stopping_method="generate"`` make one last model call with no tools
(`AgentRunnable.build_final_answer_chain`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from leanchain.agents.format_scratchpad._steps import RunSteps, Steps
from leanchain.agents.schema import AgentFinish
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage, BaseMessage, HumanMessage
from leanchain.output_parsers import BaseOutputParser
from leanchain.prompts import BasePromptTemplate
from leanchain.runnables import (
    Runnable,
    RunnableBinding,
    RunnableConfig,
    RunnableLambda,
    RunnablePassthrough,
    RunnableSequence,
)
from leanchain.runnables.config import (
    ensure_config,
    reset_config_context,
    set_config_context,
    strip_run_keys,
)

if TYPE_CHECKING:
    from leanchain.tools import BaseTool

__all__ = ["AgentRunnable"]

Decision = TypeVar("Decision")


def _with_instruction(scratchpad: Any, instruction: str) -> Any:
    """The scratchpad followed by the instruction: appended text, or one more human message."""
    if isinstance(scratchpad, str):
        return scratchpad + instruction
    return [*scratchpad, HumanMessage(content=instruction)]


def _inline(func: Callable[[Any], Any], name: str | None = None) -> RunnableLambda[Any, Any]:
    """`func` as a runnable whose async twin runs it inline: it is quick CPU work, and a
    worker thread per agent step would cost more than the work itself."""

    async def afunc(value: Any) -> Any:
        return func(value)

    return RunnableLambda(func, afunc, name=name)


def _reply_text(reply: Any) -> str:
    return reply.text if isinstance(reply, BaseMessage) else str(reply)


class AgentRunnable(RunnableSequence[dict[str, Any], Decision]):
    """An agent: ``assign(agent_scratchpad=...) | prompt | llm step | parser``, parts kept.

    It runs exactly as the four-step `RunnableSequence` it is; the extra attributes are its
    parts, read by `build_final_answer_chain`.

    Args:
        prompt: the prompt (partials filled in).
        llm: the model as given to the factory (no tools or stop bound).
        llm_step: the model as the agent calls it (tools and/or stop bound).
        final_llm: a zero-argument function giving the model for the final answer: no tools
            may be called (built only when asked for).
        format_scratchpad: intermediate steps → the ``agent_scratchpad`` value.
        output_parser: reads the model's reply as the agent's decision.
        final_instruction: what the final-answer call adds to the scratchpad.
        tools: the tools the agent was built with (the executor checks it has them all).
        rebuild: tools → the same agent built for those tools (`with_tools`).
    """

    __slots__ = (
        "_final_llm",
        "_model_call",
        "_parse",
        "_prompt_invoked",
        "_rebuild",
        "final_instruction",
        "format_scratchpad",
        "llm",
        "llm_step",
        "output_parser",
        "prompt",
        "tools",
    )

    def __init__(
        self,
        *,
        prompt: BasePromptTemplate,
        llm: Runnable[Any, Any],
        llm_step: Runnable[Any, Any],
        final_llm: Callable[[], Runnable[Any, Any]],
        format_scratchpad: Callable[[Steps], Any],
        output_parser: BaseOutputParser[Decision],
        final_instruction: str,
        tools: Sequence[BaseTool] = (),
        rebuild: Callable[[Sequence[BaseTool]], AgentRunnable[Decision]] | None = None,
    ) -> None:
        super().__init__(
            RunnablePassthrough.assign(
                agent_scratchpad=_inline(lambda x: format_scratchpad(x["intermediate_steps"]))
            ),
            prompt,
            llm_step,
            output_parser,
        )
        self.prompt = prompt
        self.llm = llm
        self.llm_step = llm_step
        self._final_llm = final_llm
        self.format_scratchpad = format_scratchpad
        self.output_parser = output_parser
        self.final_instruction = final_instruction
        self.tools: tuple[BaseTool, ...] = tuple(tools)
        self._rebuild = rebuild
        # What the unwatched steps call instead of the model's and the parser's `invoke`,
        # read once (``None``: their `invoke` is called).
        self._model_call = llm_step._quiet_call() if isinstance(llm_step, RunnableBinding) else None
        self._parse = output_parser._quiet_parse()
        self._prompt_invoked = type(prompt).invoke is not BasePromptTemplate.invoke
        """The prompt's class has its own `invoke`: the steps call it instead of formatting."""
        if not self._prompt_invoked:
            prompt.prepare_reuse("agent_scratchpad")

    # -- running: the four steps, called directly when no handler listens ------------------

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Decision:
        """Run the four steps, as the sequence does.

        With no callback handler (nothing to tell of the steps), the steps are called one
        after the other without the sequence's and the ``assign``'s own layers, and the
        prompt reuses what it formatted before the scratchpad in the run's memo
        (`BasePromptTemplate.format_prompt_reusing`). The config, ensured and checked once
        here, is not checked again by the model's and the parser's `invoke`: their quiet
        calls are made instead where their classes keep those (`RunnableBinding._quiet_call`,
        `BaseOutputParser._quiet_parse`). The same decision, for less.
        """
        config = ensure_config(config)
        if kwargs or config.get("callbacks") or type(input) is not dict:
            return super().invoke(input, config, **kwargs)
        if "run_name" in config or "run_id" in config:  # (a call less when neither is set)
            config = strip_run_keys(config)
        token = set_config_context(config)
        try:
            prompt_value = self._prompt_value(input, config)
            call = self._model_call
            if call is None:
                reply = self.llm_step.invoke(prompt_value, config)
            else:
                reply = call.quiet(prompt_value, config)
            parse = self._parse
            if parse is not None and (type(reply) is AIMessage or type(reply) is str):
                decision: Decision = parse(reply)
            else:
                decision = self.output_parser.invoke(reply, config)
        finally:
            reset_config_context(token)
        return decision

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Decision:
        """Async `invoke`: the steps awaited directly when no handler listens."""
        config = ensure_config(config)
        if kwargs or config.get("callbacks") or type(input) is not dict:
            return await super().ainvoke(input, config, **kwargs)
        if "run_name" in config or "run_id" in config:  # (a call less when neither is set)
            config = strip_run_keys(config)
        token = set_config_context(config)
        try:
            prompt_value = self._prompt_value(input, config)
            call = self._model_call
            if call is None:
                reply = await self.llm_step.ainvoke(prompt_value, config)
            else:
                reply = await call.aquiet(prompt_value, config)
            parse = self._parse
            if parse is not None and (type(reply) is AIMessage or type(reply) is str):
                decision: Decision = parse(reply)
            else:
                decision = await self.output_parser.ainvoke(reply, config)
        finally:
            reset_config_context(token)
        return decision

    def _prompt_value(self, input: dict[str, Any], config: RunnableConfig) -> Any:
        """The first two steps: the scratchpad, then the prompt (its own `invoke` when its
        class has one; else formatted reusing the run's memo, with `RunSteps`)."""
        steps = input["intermediate_steps"]
        values = {**input, "agent_scratchpad": self.format_scratchpad(steps)}
        if self._prompt_invoked:
            return self.prompt.invoke(values, config)
        if isinstance(steps, RunSteps):
            return self.prompt.format_prompt_reusing(values, steps.memo, "agent_scratchpad")
        return self.prompt.format_prompt(**values)

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools the agent was built with."""
        return [tool.name for tool in self.tools]

    def with_tools(self, tools: Sequence[BaseTool]) -> AgentRunnable[Decision]:
        """The same agent built for `tools` (what a middleware that selects tools asks for).

        Raises:
            NotImplementedError: this agent was not built by a factory that can rebuild it.
        """
        if self._rebuild is None:
            raise NotImplementedError(
                f"{self.get_name()} cannot be rebuilt for other tools: build it with a "
                "create_*_agent factory"
            )
        return self._rebuild(tools)

    def build_final_answer_chain(self) -> Runnable[dict[str, Any], AgentFinish | str]:
        """The one last model call of ``early_stopping_method="generate"``.

        ``assign(agent_scratchpad=scratchpad of all steps + final instruction) | prompt |
        model with no tools | finish-or-text``. Its input is the executor's inputs plus
        ``intermediate_steps``. It returns the parser's `AgentFinish` when the reply parses to
        one; otherwise (a reply that asks for a tool anyway, or does not parse) the reply's
        text, which the executor makes the output. Tool-calling agents keep the tool
        definitions (the history refers to them) with ``tool_choice="none"``; text agents
        keep their stop sequences.
        """
        format_scratchpad = self.format_scratchpad
        instruction = self.final_instruction
        parser = self.output_parser

        def scratchpad(inputs: dict[str, Any]) -> Any:
            return _with_instruction(format_scratchpad(inputs["intermediate_steps"]), instruction)

        def finish_or_text(reply: Any) -> AgentFinish | str:
            try:
                decision = parser.invoke(reply)
            except (OutputParserException, ValueError, TypeError):
                decision = None
            return decision if isinstance(decision, AgentFinish) else _reply_text(reply)

        chain: Runnable[dict[str, Any], AgentFinish | str] = RunnableSequence(
            RunnablePassthrough.assign(agent_scratchpad=_inline(scratchpad)),
            self.prompt,
            self._final_llm(),
            _inline(finish_or_text, name="final_answer"),
        )
        return chain
