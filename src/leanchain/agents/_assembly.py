"""Assembling an agent: the four stages every ``create_*_agent`` factory joins (DESIGN §3).

``RunnablePassthrough.assign(agent_scratchpad=format(intermediate_steps)) | prompt | llm step |
parser``, as an `AgentRunnable`; a factory chooses the four parts and calls `assemble`, which
checks the prompt (`missing_variables`) and fills in the rendered tools. `with_stop` is the llm
step of the text-protocol agents (ReAct, structured chat, XML, JSON chat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from leanchain.agents._agent_runnable import AgentRunnable, Decision
from leanchain.agents.format_scratchpad._steps import Steps
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.errors import AgentConfigurationError
from leanchain.output_parsers import BaseOutputParser
from leanchain.prompts import BasePromptTemplate
from leanchain.runnables import Runnable
from leanchain.tools import BaseTool

__all__ = [
    "MultiDecision",
    "SingleDecision",
    "ToolsRenderer",
    "assemble",
    "missing_variables",
    "with_stop",
]

MultiDecision: TypeAlias = list[AgentAction] | AgentFinish
"""What a tool-calling agent decides: the calls of one step, or the answer."""
SingleDecision: TypeAlias = AgentAction | AgentFinish
"""What a text-protocol agent decides: one call, or the answer."""
ToolsRenderer: TypeAlias = Callable[[list[BaseTool]], str]
"""Tools → the text the prompt's ``tools`` variable gets."""


def missing_variables(prompt: BasePromptTemplate, required: set[str]) -> None:
    """Raise if `prompt` neither takes nor pre-fills every required variable.

    Raises:
        AgentConfigurationError: "Prompt missing required variables: {...}" (sorted).
    """
    have = {*prompt.input_variables, *prompt.partial_variables, *prompt.optional_variables}
    missing = required - have
    if missing:
        names = ", ".join(repr(name) for name in sorted(missing))
        raise AgentConfigurationError(f"Prompt missing required variables: {{{names}}}")


def with_stop(llm: Runnable[Any, Any], stop_sequence: bool | list[str], default: str) -> Any:
    if not stop_sequence:
        return llm
    return llm.bind(stop=[default] if stop_sequence is True else list(stop_sequence))


def assemble(
    *,
    llm: Runnable[Any, Any],
    prompt: BasePromptTemplate,
    required: set[str],
    llm_step: Callable[[], Runnable[Any, Any]],
    final_llm: Callable[[], Runnable[Any, Any]],
    format_scratchpad: Callable[[Steps], Any],
    output_parser: BaseOutputParser[Decision],
    final_instruction: str,
    tools: Sequence[BaseTool] | None = None,
    tools_renderer: ToolsRenderer | None = None,
    rebuild: Callable[[Sequence[BaseTool]], AgentRunnable[Decision]] | None = None,
) -> AgentRunnable[Decision]:
    """The one assembly every factory uses: check the prompt, fill partials, join the stages.

    With `tools_renderer`, ``tools`` is filled in with the rendered tools, and ``tool_names``
    with their names joined by ", " when the prompt uses it. `tools` are the tools the agent
    knows (the executor checks it has them); `rebuild` builds the agent for other tools.
    """
    missing_variables(prompt, required)
    if tools_renderer is not None:
        tool_list = list(tools or ())
        partials: dict[str, Any] = {"tools": tools_renderer(tool_list)}
        if "tool_names" in required:
            partials["tool_names"] = ", ".join(t.name for t in tool_list)
        prompt = prompt.partial(**partials)
    return AgentRunnable(
        prompt=prompt,
        llm=llm,
        llm_step=llm_step(),
        final_llm=final_llm,
        format_scratchpad=format_scratchpad,
        output_parser=output_parser,
        final_instruction=final_instruction,
        tools=tools or (),
        rebuild=rebuild,
    )
