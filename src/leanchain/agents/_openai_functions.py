"""`create_openai_functions_agent` (LangChain's legacy OpenAI functions agent).

The model is given the tools as OpenAI *functions* (``llm.bind(functions=[...])``) and answers
with one ``additional_kwargs["function_call"]`` (`OpenAIFunctionsAgentOutputParser`); the
scratchpad replays each call and its result as a `FunctionMessage`
(`format_to_openai_function_messages`). Same four stages as every factory
(`_assembly.assemble`). New code should prefer `create_tool_calling_agent`; this one is here
so that old agents port.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leanchain.agents._agent_runnable import AgentRunnable
from leanchain.agents._assembly import assemble
from leanchain.agents.factories import TOOL_CALLING_FINAL_ANSWER
from leanchain.agents.format_scratchpad.openai_functions import (
    format_to_openai_function_messages,
)
from leanchain.agents.output_parsers.openai_functions import OpenAIFunctionsAgentOutputParser
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.errors import AgentConfigurationError
from leanchain.prompts import ChatPromptTemplate
from leanchain.runnables import Runnable
from leanchain.tools import BaseTool, convert_to_openai_function

__all__ = ["create_openai_functions_agent"]


def create_openai_functions_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: ChatPromptTemplate,
) -> AgentRunnable[AgentAction | AgentFinish]:
    """An agent for models that call OpenAI *functions* (one call per step).

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

    def functions() -> list[dict[str, Any]]:
        return [convert_to_openai_function(t) for t in tools]

    return assemble(
        llm=llm,
        prompt=prompt,
        required={"agent_scratchpad"},
        llm_step=lambda: llm.bind(functions=functions()),
        final_llm=lambda: llm.bind(functions=functions(), function_call="none"),
        format_scratchpad=format_to_openai_function_messages,
        output_parser=OpenAIFunctionsAgentOutputParser(),
        final_instruction=TOOL_CALLING_FINAL_ANSWER,
        tools=tools,
        rebuild=lambda chosen: create_openai_functions_agent(llm, chosen, prompt),
    )
