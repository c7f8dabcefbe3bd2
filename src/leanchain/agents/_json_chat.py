"""`create_json_chat_agent`: a JSON-blob agent whose tool responses come back as chat messages.

It is the structured-chat agent's sibling (LangChain's sixth factory): the same JSON blob and
parser, but the scratchpad is a message exchange (`format_log_to_messages`): each reply as an
`AIMessage`, then the tool's response in a `HumanMessage` written with
``template_tool_response``. It is assembled like every other factory (`_assembly.assemble`),
so ``early_stopping_method="generate"`` works with it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Final

from leanchain.agents._agent_runnable import AgentRunnable
from leanchain.agents._assembly import (
    SingleDecision,
    ToolsRenderer,
    assemble,
    missing_variables,
    with_stop,
)
from leanchain.agents.format_scratchpad import format_log_to_messages
from leanchain.agents.output_parsers import JSONAgentOutputParser
from leanchain.agents.prompts import TEMPLATE_TOOL_RESPONSE
from leanchain.errors import AgentConfigurationError
from leanchain.prompts import ChatPromptTemplate, get_template_variables
from leanchain.runnables import Runnable
from leanchain.tools import BaseTool, render_text_description

__all__ = ["JSON_CHAT_FINAL_ANSWER", "create_json_chat_agent"]

JSON_CHAT_FINAL_ANSWER: Final = (
    "You have reached the limit of steps, so you must not use any more tools. Reply now with "
    'the "Final Answer" action, giving your best answer based on the tool responses above.'
)
"""What the final-answer call of ``early_stopping_method="generate"`` says after the steps."""


def create_json_chat_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: ChatPromptTemplate,
    stop_sequence: bool | list[str] = True,
    tools_renderer: ToolsRenderer = render_text_description,
    template_tool_response: str = TEMPLATE_TOOL_RESPONSE,
) -> AgentRunnable[SingleDecision]:
    """A chat agent that picks one tool per step with a JSON blob; each tool's response comes
    back to the model as a human message.

    Args:
        llm: the model.
        tools: the tools, described to the model as text.
        prompt: a chat prompt with ``tools``, ``tool_names`` and an ``agent_scratchpad``
            messages placeholder; ``tools`` and ``tool_names`` are filled in here.
        stop_sequence: True stops the model at ``"\\nObservation"``, a list at those
            sequences, False not at all.
        tools_renderer: tools → the ``tools`` text.
        template_tool_response: the text of the human message after each step;
            ``{observation}`` is replaced by the tool's response, and is its only variable.

    Raises:
        AgentConfigurationError: the prompt lacks a required variable, or
            `template_tool_response` lacks ``{observation}`` or uses another variable.
        TemplateValidationError: `template_tool_response` is not a safe template.
    """
    required = {"tools", "tool_names", "agent_scratchpad"}
    missing_variables(prompt, required)  # before the template, as in LangChain
    _check_tool_response(template_tool_response)
    return assemble(
        llm=llm,
        prompt=prompt,
        required=required,
        llm_step=lambda: with_stop(llm, stop_sequence, "\nObservation"),
        final_llm=lambda: with_stop(llm, stop_sequence, "\nObservation"),
        format_scratchpad=partial(
            format_log_to_messages, template_tool_response=template_tool_response
        ),
        output_parser=JSONAgentOutputParser(),
        final_instruction=JSON_CHAT_FINAL_ANSWER,
        tools=tools,
        tools_renderer=tools_renderer,
        rebuild=lambda chosen: create_json_chat_agent(
            llm, chosen, prompt, stop_sequence, tools_renderer, template_tool_response
        ),
    )


def _check_tool_response(template: str) -> None:
    """Fail when the agent is built, not at its first step, on a template that cannot fill.

    Raises:
        AgentConfigurationError: ``{observation}`` is missing, or another variable is used.
    """
    variables = get_template_variables(template)
    if "observation" not in variables:
        raise AgentConfigurationError(
            "Template tool response missing required variable 'observation'"
        )
    if len(variables) > 1:
        others = ", ".join(repr(name) for name in variables if name != "observation")
        raise AgentConfigurationError(
            f"Template tool response may only use the variable 'observation', got {{{others}}}; "
            "write literal braces doubled: '{{' and '}}'"
        )
