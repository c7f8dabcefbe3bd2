"""`OpenAIFunctionsAgentOutputParser`: a model message's ``function_call`` as the agent's action.

**leanchain:** a reply that carries native ``tool_calls`` instead of a ``function_call`` (what
today's OpenAI-compatible servers send) is read too: its first call is the action.
"""

from __future__ import annotations

import json
from typing import Any

from leanchain.agents.output_parsers.base import AgentOutputParser, cut_off_error, was_cut_off
from leanchain.agents.schema import AgentAction, AgentActionMessageLog, AgentFinish
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage, BaseMessage
from leanchain.output_parsers import generation_message
from leanchain.outputs import Generation

__all__ = ["OpenAIFunctionsAgentOutputParser", "parse_function_call"]


def _log(name: str, tool_input: Any, content: Any) -> str:
    content_msg = f"responded: {content}\n" if content else "\n"
    return f"\nInvoking: `{name}` with `{tool_input}`\n{content_msg}\n"


def _arguments(name: Any, arguments: Any) -> Any:
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    try:
        value = json.loads(arguments, strict=False)
    except (ValueError, RecursionError) as exc:
        raise OutputParserException(
            f"Could not parse tool input: {{'name': {name!r}, 'arguments': {arguments!r}}} "
            "because the `arguments` is not valid JSON."
        ) from exc
    return value


def parse_function_call(message: BaseMessage) -> AgentAction | AgentFinish:
    """The message's function call as an `AgentActionMessageLog`, or an `AgentFinish`.

    Raises:
        TypeError: `message` is not an `AIMessage`.
        OutputParserException: the call's arguments are not valid JSON.
    """
    if not isinstance(message, AIMessage):
        raise TypeError(f"Expected an AI message got {type(message)}")
    content = message.content
    call = message.additional_kwargs.get("function_call")
    if isinstance(call, dict):
        name = str(call.get("name"))
        args = _arguments(name, call.get("arguments"))
    elif message.tool_calls:
        first = message.tool_calls[0]
        name, args = first["name"], first["args"]
    else:
        return AgentFinish({"output": content}, str(content))
    tool_input = args.get("__arg1", args) if isinstance(args, dict) else args
    return AgentActionMessageLog(
        tool=name,
        tool_input=tool_input,
        log=_log(name, tool_input, content),
        message_log=[message],
    )


class OpenAIFunctionsAgentOutputParser(AgentOutputParser):
    """Reads a model message's ``function_call`` as one action, or its content as the finish.

    Empty arguments are ``{}``; an ``__arg1`` argument is unwrapped; the log is
    ``"\\nInvoking: `{tool}` with `{tool_input}`\\n{content_msg}\\n"``. Only messages can be
    parsed.
    """

    __slots__ = ()

    @property
    def _type(self) -> str:
        return "openai-functions-agent"

    def parse(self, text: str) -> AgentAction | AgentFinish:
        """Not possible: function calls live in messages.

        Raises:
            ValueError: always.
        """
        raise ValueError("Can only parse messages")

    def parse_result(
        self, result: list[Generation], *, partial: bool = False
    ) -> AgentAction | AgentFinish:
        """The first output's function call as an action, or a finish.

        Raises:
            ValueError: the output is text, not a message.
            OutputParserException: bad arguments, or a call in a reply cut off at the output
                token limit.
        """
        message = generation_message(result[0])
        if message is None:
            raise ValueError("This output parser only works on ChatGeneration output")
        decision = parse_function_call(message)
        if isinstance(decision, AgentAction) and was_cut_off(result[0]):
            raise cut_off_error(decision.log)
        return decision
