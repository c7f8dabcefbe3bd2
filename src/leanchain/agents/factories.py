"""The ``create_*_agent`` factories, over one four-stage assembly.

Every agent is ``RunnablePassthrough.assign(agent_scratchpad=format(intermediate_steps)) |
prompt | llm step | parser``; the factories differ only in those four choices (DESIGN §3):

| factory | scratchpad | prompt must have | llm step | parser |
|---|---|---|---|---|
| `create_tool_calling_agent` | tool messages | ``agent_scratchpad`` | ``llm.bind_tools(tools)`` | `ToolsAgentOutputParser` |
| `create_openai_tools_agent` | tool messages | ``agent_scratchpad`` | ``llm.bind(tools=[schemas])`` | `OpenAIToolsAgentOutputParser` |
| `create_openai_functions_agent` | function messages | ``agent_scratchpad`` | ``llm.bind(functions=[schemas])`` | `OpenAIFunctionsAgentOutputParser` |
| `create_react_agent` | text log | ``tools``, ``tool_names``, ``agent_scratchpad`` | stop ``"\\nObservation"`` | `ReActSingleInputOutputParser` |
| `create_structured_chat_agent` | text log | ``tools``, ``tool_names``, ``agent_scratchpad`` | stop ``"\\nObservation"`` | `JSONAgentOutputParser` |
| `create_xml_agent` | XML log | ``tools``, ``agent_scratchpad`` | stop ``"</tool_input>"`` | `XMLAgentOutputParser` |
| `create_json_chat_agent` (in ``_json_chat``) | AI/human messages | ``tools``, ``tool_names``, ``agent_scratchpad`` | stop ``"\\nObservation"`` | `JSONAgentOutputParser` |

The first three are *tool-calling* agents (`_tool_calling_agent`: the model is given the tools'
definitions and must not call them for the final answer); the others are *text-protocol*
agents (`_text_agent`: the tools are rendered into the prompt and the model is stopped where
a tool's result would start). Either way the agent can be rebuilt for other tools with the
same choices (`AgentRunnable.with_tools`).

The result is an `AgentRunnable`: a `RunnableSequence` of those four steps that also keeps
its parts, so that the executor's "generate" early stopping can make one more model call with
no tools (`AgentRunnable.build_final_answer_chain`). The assembly itself, which every factory
(and `create_json_chat_agent`) uses, is `_assembly.assemble`.
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, TypeAlias

from leanchain.agents._agent_runnable import AgentRunnable, Decision
from leanchain.agents._assembly import (
    MultiDecision,
    SingleDecision,
    ToolsRenderer,
    assemble,
    with_stop,
)
from leanchain.agents.format_scratchpad import (
    format_log_to_str,
    format_to_openai_function_messages,
    format_to_openai_tool_messages,
    format_to_tool_messages,
    format_xml,
)
from leanchain.agents.format_scratchpad._steps import Steps
from leanchain.agents.output_parsers import (
    JSONAgentOutputParser,
    OpenAIFunctionsAgentOutputParser,
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
from leanchain.tools import (
    BaseTool,
    convert_to_openai_function,
    convert_to_openai_tool,
    render_text_description,
)
from leanchain.tools import render_text_description_and_args as render_with_args

__all__ = [
    "AgentRunnable",
    "create_openai_functions_agent",
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

Binder: TypeAlias = Callable[[Sequence[BaseTool], bool], Runnable[Any, Any]]
"""``(tools, final) -> model``: the model given the tools, and for the final answer
(``final=True``) forbidden to call them."""


class _TextProtocol(NamedTuple):
    """What a text-protocol factory fixes: a row of the table above."""

    required: frozenset[str]
    stop: str
    format_scratchpad: Callable[[Steps], Any]
    final_instruction: str


_NAMED_TOOLS: Final = frozenset({"tools", "tool_names", "agent_scratchpad"})
_REACT: Final = _TextProtocol(_NAMED_TOOLS, "\nObservation", format_log_to_str, REACT_FINAL_ANSWER)
_STRUCTURED_CHAT: Final = _TextProtocol(
    _NAMED_TOOLS, "\nObservation", format_log_to_str, STRUCTURED_CHAT_FINAL_ANSWER
)
_XML: Final = _TextProtocol(
    frozenset({"tools", "agent_scratchpad"}), "</tool_input>", format_xml, XML_FINAL_ANSWER
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

    def bind(chosen: Sequence[BaseTool], final: bool) -> Runnable[Any, Any]:
        return _without_tool_calls(llm, chosen) if final else _bind_tools(llm, chosen)

    parser = ToolsAgentOutputParser()
    return _tool_calling_agent(message_formatter, parser, bind, llm, tools, prompt)


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

    def bind(chosen: Sequence[BaseTool], final: bool) -> Runnable[Any, Any]:
        schemas = [convert_to_openai_tool(t, strict=strict) for t in chosen]
        return llm.bind(tools=schemas, tool_choice="none") if final else llm.bind(tools=schemas)

    parser = OpenAIToolsAgentOutputParser()
    return _tool_calling_agent(format_to_openai_tool_messages, parser, bind, llm, tools, prompt)


def create_openai_functions_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: ChatPromptTemplate,
) -> AgentRunnable[SingleDecision]:
    """An agent for models that call OpenAI *functions* (LangChain's legacy agent).

    The model answers with one ``additional_kwargs["function_call"]`` a step
    (`OpenAIFunctionsAgentOutputParser`), and the scratchpad replays each call and its result
    as a `FunctionMessage`. New code should prefer `create_tool_calling_agent`; this one is
    here so that old agents port.

    Args:
        llm: a model that accepts OpenAI's ``functions`` argument.
        tools: the tools, bound as functions.
        prompt: a chat prompt with an ``agent_scratchpad`` messages placeholder.

    Raises:
        AgentConfigurationError: the prompt lacks ``agent_scratchpad`` (LangChain's message).
    """
    have = {*prompt.input_variables, *prompt.partial_variables, *prompt.optional_variables}
    if "agent_scratchpad" not in have:
        raise AgentConfigurationError(
            "Prompt must have input variable `agent_scratchpad`, but wasn't found. "
            f"Found {prompt.input_variables} instead."
        )

    def bind(chosen: Sequence[BaseTool], final: bool) -> Runnable[Any, Any]:
        functions = [convert_to_openai_function(t) for t in chosen]
        if final:
            return llm.bind(functions=functions, function_call="none")
        return llm.bind(functions=functions)

    parser = OpenAIFunctionsAgentOutputParser()
    scratchpad = format_to_openai_function_messages
    return _tool_calling_agent(scratchpad, parser, bind, llm, tools, prompt)


def _tool_calling_agent(
    format_scratchpad: Callable[[Steps], Any],
    output_parser: BaseOutputParser[Decision],
    bind: Binder,
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
) -> AgentRunnable[Decision]:
    """A tool-calling agent (the factory's choices, then the user's): the model is given the
    tools by `bind`, and must not call them for the final answer; rebuilt for other tools with
    the same choices."""

    def build(chosen: Sequence[BaseTool]) -> AgentRunnable[Decision]:
        return assemble(
            llm=llm,
            prompt=prompt,
            required={"agent_scratchpad"},
            llm_step=lambda: bind(chosen, False),
            final_llm=lambda: bind(chosen, True),
            format_scratchpad=format_scratchpad,
            output_parser=output_parser,
            final_instruction=TOOL_CALLING_FINAL_ANSWER,
            tools=chosen,
            rebuild=build,
        )

    return build(tools)


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
    parser = output_parser or ReActSingleInputOutputParser()
    return _text_agent(_REACT, llm, tools, prompt, parser, tools_renderer, stop_sequence)


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
        tools_renderer: tools → the ``tools`` text (by default with each tool's arguments).
        stop_sequence: True stops the model at ``"\\nObservation"``, a list at those
            sequences, False not at all.

    Raises:
        AgentConfigurationError: the prompt lacks ``tools``, ``tool_names`` or
            ``agent_scratchpad``.
    """
    parser = JSONAgentOutputParser()
    return _text_agent(_STRUCTURED_CHAT, llm, tools, prompt, parser, tools_renderer, stop_sequence)


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
        stop_sequence: True stops the model at ``"</tool_input>"`` (the end of a call's
            input), a list at those sequences, False not at all.

    Raises:
        AgentConfigurationError: the prompt lacks ``tools`` or ``agent_scratchpad``.
    """
    parser = XMLAgentOutputParser()
    return _text_agent(_XML, llm, tools, prompt, parser, tools_renderer, stop_sequence)


def _text_agent(
    protocol: _TextProtocol,
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    output_parser: BaseOutputParser[SingleDecision],
    tools_renderer: ToolsRenderer,
    stop_sequence: bool | list[str],
) -> AgentRunnable[SingleDecision]:
    """A text-protocol agent: the tools rendered into the prompt, and every model call
    stopped at `protocol`'s stop sequence (or `stop_sequence`'s); rebuilt for other tools
    with the same choices."""

    def step() -> Runnable[Any, Any]:
        return with_stop(llm, stop_sequence, protocol.stop)  # type: ignore[no-any-return]

    def build(chosen: Sequence[BaseTool]) -> AgentRunnable[SingleDecision]:
        return assemble(
            llm=llm,
            prompt=prompt,
            required=set(protocol.required),
            llm_step=step,
            final_llm=step,
            format_scratchpad=protocol.format_scratchpad,
            output_parser=output_parser,
            final_instruction=protocol.final_instruction,
            tools=chosen,
            tools_renderer=tools_renderer,
            rebuild=build,
        )

    return build(tools)
