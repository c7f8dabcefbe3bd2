"""The ``create_*_agent`` factories, over one four-stage assembly.

Every agent is ``RunnablePassthrough.assign(agent_scratchpad=format(intermediate_steps)) |
prompt | llm step | parser``; the factories differ only in those four choices (DESIGN §3):

| factory | scratchpad | prompt must have | llm step | parser |
|---|---|---|---|---|
| `create_tool_calling_agent` | tool messages | ``agent_scratchpad`` | ``llm.bind_tools(tools)`` | `ToolsAgentOutputParser` |
| `create_openai_tools_agent` | tool messages | ``agent_scratchpad`` | ``llm.bind(tools=[schemas])`` | `OpenAIToolsAgentOutputParser` |
| `create_react_agent` | text log | ``tools``, ``tool_names``, ``agent_scratchpad`` | stop ``"\\nObservation"`` | `ReActSingleInputOutputParser` |
| `create_structured_chat_agent` | text log | ``tools``, ``tool_names``, ``agent_scratchpad`` | stop ``"\\nObservation"`` | `JSONAgentOutputParser` |
| `create_xml_agent` | XML log | ``tools``, ``agent_scratchpad`` | stop ``"</tool_input>"`` | `XMLAgentOutputParser` |
| `create_json_chat_agent` (in ``_json_chat``) | AI/human messages | ``tools``, ``tool_names``, ``agent_scratchpad`` | stop ``"\\nObservation"`` | `JSONAgentOutputParser` |

The result is an `AgentRunnable`: a `RunnableSequence` of those four steps that also keeps
its parts, so that the executor's "generate" early stopping can make one more model call with
no tools (`AgentRunnable.build_final_answer_chain`). The assembly itself, which every factory
(and `create_json_chat_agent`, `create_openai_functions_agent`) uses, is `_assembly.assemble`.
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from leanchain.agents._agent_runnable import AgentRunnable
from leanchain.agents._assembly import (
    MultiDecision,
    SingleDecision,
    ToolsRenderer,
    assemble,
    with_stop,
)
from leanchain.agents.format_scratchpad import (
    format_log_to_str,
    format_to_openai_tool_messages,
    format_to_tool_messages,
    format_xml,
)
from leanchain.agents.format_scratchpad._steps import Steps
from leanchain.agents.output_parsers import (
    JSONAgentOutputParser,
    OpenAIToolsAgentOutputParser,
    ReActSingleInputOutputParser,
    ToolsAgentOutputParser,
    XMLAgentOutputParser,
)
from leanchain.errors import AgentConfigurationError
from leanchain.messages import BaseMessage
from leanchain.output_parsers import BaseOutputParser
from leanchain.prompts import BasePromptTemplate, ChatPromptTemplate
from leanchain.runnables import Runnable
from leanchain.tools import BaseTool, convert_to_openai_tool, render_text_description
from leanchain.tools import render_text_description_and_args as render_with_args

__all__ = [
    "AgentRunnable",
    "create_openai_tools_agent",
    "create_react_agent",
    "create_structured_chat_agent",
    "create_tool_calling_agent",
    "create_xml_agent",
]

TOOL_CALLING_FINAL_ANSWER: Final = (
    "You have reached the limit of steps for this task, so no more tools can be called. "
    "Give your best final answer now, based on the tool results above."
)
REACT_FINAL_ANSWER: Final = (
    "I have reached the limit of steps, so I must not use any more tools. I will now give my "
    'best final answer, based on the observations above, on a line that starts with "Final '
    'Answer:".\n'
)
STRUCTURED_CHAT_FINAL_ANSWER: Final = (
    "I have reached the limit of steps, so I must not use any more tools. I will now reply "
    'with the "Final Answer" action, giving my best answer based on the observations above.\n'
)
XML_FINAL_ANSWER: Final = (
    "\nYou have reached the limit of steps, so you must not use any more tools. Give your best "
    "final answer now, based on the observations above, between <final_answer> and "
    "</final_answer>."
)


def create_tool_calling_agent(
    llm: Any,
    tools: Sequence[BaseTool],
    prompt: ChatPromptTemplate,
    *,
    message_formatter: Callable[[Steps], list[BaseMessage]] = format_to_tool_messages,
) -> AgentRunnable[MultiDecision]:
    """An agent that calls tools through the model's native tool calling (``bind_tools``).

    Args:
        llm: a chat model that implements ``bind_tools``.
        tools: the tools the model may call.
        prompt: a chat prompt with an ``agent_scratchpad`` messages placeholder.
        message_formatter: intermediate steps → the scratchpad messages.

    Raises:
        AgentConfigurationError: the prompt lacks ``agent_scratchpad``, or the model has no
            ``bind_tools``.
        NotImplementedError: the model's class does not implement ``bind_tools``.
    """
    return assemble(
        llm=llm,
        prompt=prompt,
        required={"agent_scratchpad"},
        llm_step=lambda: _bind_tools(llm, tools),
        final_llm=lambda: _without_tool_calls(llm, tools),
        format_scratchpad=message_formatter,
        output_parser=ToolsAgentOutputParser(),
        final_instruction=TOOL_CALLING_FINAL_ANSWER,
        tools=tools,
        rebuild=lambda chosen: create_tool_calling_agent(
            llm, chosen, prompt, message_formatter=message_formatter
        ),
    )


def _bind_tools(llm: Any, tools: Sequence[BaseTool]) -> Runnable[Any, Any]:
    if not hasattr(llm, "bind_tools"):
        raise AgentConfigurationError(
            "This function requires a bind_tools() method be implemented on the LLM."
        )
    bound: Runnable[Any, Any] = llm.bind_tools(tools)
    return bound


def _without_tool_calls(llm: Any, tools: Sequence[BaseTool]) -> Runnable[Any, Any]:
    """The model with the tools defined but not callable; the bare model if it cannot."""
    try:
        bound: Runnable[Any, Any] = llm.bind_tools(tools, tool_choice="none")
    except (NotImplementedError, TypeError, ValueError):
        return llm  # type: ignore[no-any-return]
    return bound


def create_openai_tools_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: ChatPromptTemplate,
    strict: bool | None = None,
) -> AgentRunnable[MultiDecision]:
    """An agent for OpenAI-compatible models: the tools' OpenAI schemas bound as ``tools=``.

    Args:
        llm: a model that accepts OpenAI's ``tools`` (and ``tool_choice``) arguments.
        tools: the tools the model may call.
        prompt: a chat prompt with an ``agent_scratchpad`` messages placeholder.
        strict: passed to `convert_to_openai_tool` for each tool.

    Raises:
        AgentConfigurationError: the prompt lacks ``agent_scratchpad``.
    """

    def schemas() -> list[dict[str, Any]]:
        return [convert_to_openai_tool(t, strict=strict) for t in tools]

    return assemble(
        llm=llm,
        prompt=prompt,
        required={"agent_scratchpad"},
        llm_step=lambda: llm.bind(tools=schemas()),
        final_llm=lambda: llm.bind(tools=schemas(), tool_choice="none"),
        format_scratchpad=format_to_openai_tool_messages,
        output_parser=OpenAIToolsAgentOutputParser(),
        final_instruction=TOOL_CALLING_FINAL_ANSWER,
        tools=tools,
        rebuild=lambda chosen: create_openai_tools_agent(llm, chosen, prompt, strict),
    )


def create_react_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    output_parser: BaseOutputParser[SingleDecision] | None = None,
    tools_renderer: ToolsRenderer = render_text_description,
    *,
    stop_sequence: bool | list[str] = True,
) -> AgentRunnable[SingleDecision]:
    """A ReAct agent: Thought / Action / Action Input text, one tool call per step.

    Args:
        llm: the model.
        tools: the tools, described to the model as text.
        prompt: a prompt with ``tools``, ``tool_names`` and ``agent_scratchpad`` (a string);
            ``tools`` and ``tool_names`` are filled in here.
        output_parser: reads the reply; `ReActSingleInputOutputParser` by default.
        tools_renderer: tools → the ``tools`` text.
        stop_sequence: True stops the model at ``"\\nObservation"``, a list at those
            sequences, False not at all.

    Raises:
        AgentConfigurationError: the prompt lacks a required variable.
    """
    return assemble(
        llm=llm,
        prompt=prompt,
        required={"tools", "tool_names", "agent_scratchpad"},
        llm_step=lambda: with_stop(llm, stop_sequence, "\nObservation"),
        final_llm=lambda: with_stop(llm, stop_sequence, "\nObservation"),
        format_scratchpad=format_log_to_str,
        output_parser=output_parser or ReActSingleInputOutputParser(),
        final_instruction=REACT_FINAL_ANSWER,
        tools=tools,
        tools_renderer=tools_renderer,
        rebuild=lambda chosen: create_react_agent(
            llm, chosen, prompt, output_parser, tools_renderer, stop_sequence=stop_sequence
        ),
    )


def create_structured_chat_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: ChatPromptTemplate,
    tools_renderer: ToolsRenderer = render_with_args,
    *,
    stop_sequence: bool | list[str] = True,
) -> AgentRunnable[SingleDecision]:
    """An agent that picks one tool per step with a JSON blob (multi-argument tools work).

    Args:
        llm: the model.
        tools: the tools, described to the model with their arguments.
        prompt: a chat prompt with ``tools``, ``tool_names`` and ``agent_scratchpad`` (a
            string); ``tools`` and ``tool_names`` are filled in here.
        tools_renderer: tools → the ``tools`` text.
        stop_sequence: True stops the model at ``"\\nObservation"``, a list at those
            sequences, False not at all.

    Raises:
        AgentConfigurationError: the prompt lacks a required variable.
    """
    return assemble(
        llm=llm,
        prompt=prompt,
        required={"tools", "tool_names", "agent_scratchpad"},
        llm_step=lambda: with_stop(llm, stop_sequence, "\nObservation"),
        final_llm=lambda: with_stop(llm, stop_sequence, "\nObservation"),
        format_scratchpad=format_log_to_str,
        output_parser=JSONAgentOutputParser(),
        final_instruction=STRUCTURED_CHAT_FINAL_ANSWER,
        tools=tools,
        tools_renderer=tools_renderer,
        rebuild=lambda chosen: create_structured_chat_agent(
            llm, chosen, prompt, tools_renderer, stop_sequence=stop_sequence
        ),
    )


def create_xml_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    tools_renderer: ToolsRenderer = render_text_description,
    *,
    stop_sequence: bool | list[str] = True,
) -> AgentRunnable[SingleDecision]:
    """An agent that calls tools with ``<tool>``/``<tool_input>`` tags and answers in
    ``<final_answer>``.

    Args:
        llm: the model.
        tools: the tools, described to the model as text.
        prompt: a prompt with ``tools`` and ``agent_scratchpad`` (a string); ``tools`` is
            filled in here.
        tools_renderer: tools → the ``tools`` text.
        stop_sequence: True stops the model at ``"</tool_input>"``, a list at those
            sequences, False not at all.

    Raises:
        AgentConfigurationError: the prompt lacks a required variable.
    """
    return assemble(
        llm=llm,
        prompt=prompt,
        required={"tools", "agent_scratchpad"},
        llm_step=lambda: with_stop(llm, stop_sequence, "</tool_input>"),
        final_llm=lambda: with_stop(llm, stop_sequence, "</tool_input>"),
        format_scratchpad=format_xml,
        output_parser=XMLAgentOutputParser(),
        final_instruction=XML_FINAL_ANSWER,
        tools=tools,
        tools_renderer=tools_renderer,
        rebuild=lambda chosen: create_xml_agent(
            llm, chosen, prompt, tools_renderer, stop_sequence=stop_sequence
        ),
    )
