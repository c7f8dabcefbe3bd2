"""`ToolsAgentOutputParser`: turn a model message's native tool calls into agent actions.

A malformed tool call (``invalid_tool_calls``: arguments that are not a JSON object, as a
provider may send) is a parse error that goes back to the model: the parser raises
`OutputParserException` with ``send_to_llm=True``, an ``observation`` that names each bad call
and its JSON error and asks for the call again, and an ``llm_output`` that reads like the log
of the calls the model tried. Raw arguments longer than `ECHO_LIMIT` characters are cut short
in the message and the log (a model that wrote megabytes of broken JSON need not read them
again). With ``handle_parsing_errors`` the executor records that as an
``_Exception`` step, and `format_to_tool_messages` shows the model its attempt followed by the
observation. No tool of that message runs, so the history never holds a call without a result.
Arguments a stream cut off count as malformed: a streamed reply is read as finished (complete
JSON only, ``parse_tool_call_args``) even when its last chunk never arrived, and a reply whose
``finish_reason`` is ``"length"`` (the model ran out of output tokens) runs none of its calls,
even those that happen to be whole (see `leanchain.agents.output_parsers.base`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from leanchain.agents.output_parsers.base import (
    MultiActionAgentOutputParser,
    agent_finish,
    cut_off_error,
    reads_directly,
    was_cut_off,
)
from leanchain.agents.schema import AgentAction, AgentFinish, ToolAgentAction
from leanchain.errors import OutputParserException
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    InvalidToolCall,
    message_chunk_to_message,
)
from leanchain.output_parsers import generation_message
from leanchain.outputs import Generation

__all__ = [
    "ToolAgentAction",
    "ToolsAgentOutputParser",
    "parse_ai_message_to_tool_action",
]


_new = object.__new__
_set = object.__setattr__

ECHO_LIMIT = 1000
"""How much of a malformed call's raw arguments an error repeats; the rest is counted."""


def _clip(arguments: Any) -> Any:
    """Raw arguments as an error repeats them: whole unless longer than `ECHO_LIMIT`."""
    if isinstance(arguments, str) and len(arguments) > ECHO_LIMIT:
        return f"{arguments[:ECHO_LIMIT]}... ({len(arguments)} characters)"
    return arguments


def _responded(content: Any) -> str:
    """The end of each call's log: what the model said beside its calls, if anything."""
    return f"responded: {content}\n\n" if content else "\n\n"


def _log(name: str, tool_input: Any, responded: str) -> str:
    # (An f-string: a bound ``str.format`` saves the frame but parses its template on every
    # call, which costs more.)
    return f"\nInvoking: `{name}` with `{tool_input}`\n{responded}"


def _tool_action(
    tool: str, tool_input: Any, log: str, message: BaseMessage, call_id: Any
) -> ToolAgentAction:
    """``ToolAgentAction(tool, tool_input, log, [message], call_id)``, built in half the time.

    The frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``; its
    fields go in at once instead (a test keeps this equal to the constructor).
    """
    action = _new(ToolAgentAction)
    _set(
        action,
        "__dict__",
        {
            "tool": tool,
            "tool_input": tool_input,
            "log": log,
            "message_log": [message],
            "tool_call_id": call_id,
        },
    )
    return action


def _not_json(name: Any, arguments: Any) -> str:
    # LangChain's message, with the function dict written as LangChain's raw entry is.
    return (
        f"Could not parse tool input: {{'name': {name!r}, 'arguments': {arguments!r}}} "
        "because the `arguments` is not valid JSON."
    )


def _json_error(call: InvalidToolCall) -> str:
    if call.get("error"):
        return str(call["error"])
    try:
        value = json.loads(call.get("args") or "")
    except (ValueError, RecursionError) as e:
        return str(e)
    return f"expected a JSON object, got {type(value).__name__}"


def _invalid_calls_error(message: AIMessage) -> OutputParserException:
    """The error for a message with malformed tool calls; see the module docstring."""
    invalid = message.invalid_tool_calls
    lines = [
        f"- `{call.get('name')}` (id {call.get('id')}): {_json_error(call)}" for call in invalid
    ]
    observation = (
        "Your tool call arguments were not valid JSON, so no tool of your last reply was run:\n"
        + "\n".join(lines)
        + "\nCall the tools again, with each call's arguments as one valid JSON object."
    )
    attempted: list[tuple[Any, Any]] = [(c["name"], c["args"]) for c in message.tool_calls]
    attempted += [(c.get("name"), _clip(c.get("args"))) for c in invalid]
    responded = _responded(message.content)
    llm_output = "".join(_log(str(name), args, responded) for name, args in attempted)
    first = invalid[0]
    return OutputParserException(
        _not_json(first.get("name"), _clip(first.get("args"))),
        observation=observation,
        llm_output=llm_output,
        send_to_llm=True,
    )


def _raw_calls(raw: Sequence[Any]) -> list[dict[str, Any]]:
    """OpenAI-style raw calls (``{"id", "function": {"name", "arguments"}}``) parsed."""
    calls = []
    for entry in raw:
        function = entry.get("function") if isinstance(entry, Mapping) else None
        if not isinstance(function, Mapping):
            raise OutputParserException(f"Could not parse tool call: {entry!r}")
        arguments = function.get("arguments")
        try:
            args = json.loads(arguments or "{}")
        except (TypeError, ValueError, RecursionError) as e:
            raise OutputParserException(_not_json(function.get("name"), arguments)) from e
        if not isinstance(args, dict):
            raise OutputParserException(_not_json(function.get("name"), arguments))
        calls.append({"name": str(function.get("name")), "args": args, "id": entry.get("id")})
    return calls


def parse_ai_message_to_tool_action(message: BaseMessage) -> list[AgentAction] | AgentFinish:
    """The message's tool calls as `ToolAgentAction`s, or an `AgentFinish` if it has none.

    Raises:
        TypeError: `message` is not an `AIMessage` (an `AIMessageChunk` is one).
        OutputParserException: a tool call's arguments are not a JSON object.
    """
    final: AIMessage
    if type(message) is AIMessage:
        final = message  # the common case, told apart from a chunk without subclass checks
    elif not isinstance(message, AIMessage):
        raise TypeError(f"Expected an AI message got {type(message)}")
    elif isinstance(message, AIMessageChunk) and message.chunk_position != "last":
        # A sum of chunks that never saw the stream's last one read its arguments as partial
        # JSON; only the finished reading (cut-off arguments are invalid) may run a tool.
        final = cast(AIMessage, message_chunk_to_message(message))
    else:
        final = message
    if final.invalid_tool_calls:
        raise _invalid_calls_error(final)
    content = message.content
    calls: Sequence[Mapping[str, Any]] = final.tool_calls
    if not calls:
        # A message built without validation may still carry only the raw provider calls.
        raw = message.additional_kwargs.get("tool_calls")
        if not raw:
            return agent_finish({"output": content}, str(content))
        calls = _raw_calls(raw)
    responded = f"responded: {content}\n\n" if content else "\n\n"  # `_responded`, inline
    actions: list[AgentAction] = []
    for call in calls:
        name, args = call["name"], call["args"]
        # Legacy single-input tools get their one argument unwrapped.
        tool_input = args.get("__arg1", args)
        log = _log(name, tool_input, responded)
        actions.append(_tool_action(name, tool_input, log, message, call.get("id")))
    return actions


class ToolsAgentOutputParser(MultiActionAgentOutputParser):
    """Parses a chat model's message into `ToolAgentAction`s (one per tool call) or a finish.

    - Tool calls give a list of ``ToolAgentAction(tool, tool_input, log, message_log=[message],
      tool_call_id=id)``, even for one call; an ``__arg1`` argument is unwrapped as the input.
      The log is ``"\\nInvoking: `{tool}` with `{tool_input}`\\n{content_msg}\\n"``.
    - No tool calls give ``AgentFinish({"output": message.content}, str(message.content))``.
    - Malformed tool-call JSON, or tool calls in a reply cut off at the output token limit,
      raise `OutputParserException` sent back to the model (see the module docstring).
    - Streamed replies work the same: an `AIMessageChunk` is an `AIMessage`.
    - Only messages can be parsed: text raises `ValueError` "Can only parse messages".
    """

    __slots__ = ()

    @property
    def _type(self) -> str:
        return "tools-agent-output-parser"

    def parse(self, text: str) -> list[AgentAction] | AgentFinish:
        """Not possible: tool calls live in messages, not text.

        Raises:
            ValueError: always.
        """
        raise ValueError("Can only parse messages")

    def parse_result(
        self, result: list[Generation], *, partial: bool = False
    ) -> list[AgentAction] | AgentFinish:
        """The first output's tool calls as actions, or a finish.

        Args:
            result: model outputs (messages, or generations holding one); the first is read.
            partial: ignored: a tool call is only run once the whole reply is in.

        Raises:
            ValueError: the output is text, not a message.
            TypeError: the message is not an `AIMessage`.
            OutputParserException: malformed tool-call JSON, or tool calls in a reply cut off
                at the output token limit.
        """
        return self._decide(result[0])

    def _decide(self, output: Any) -> list[AgentAction] | AgentFinish:
        """`parse_result` of one output: a message or a generation (or text, refused)."""
        if type(output) is AIMessage:  # the usual reply: its metadata read in place
            decision = parse_ai_message_to_tool_action(output)
            metadata = output.response_metadata  # `was_cut_off` of a message, inline
            cut_off = (
                type(decision) is list
                and isinstance(metadata, dict)
                and metadata.get("finish_reason") == "length"
            )
        else:
            message = generation_message(output)
            if message is None:
                raise ValueError("This output parser only works on ChatGeneration output")
            decision = parse_ai_message_to_tool_action(message)
            cut_off = type(decision) is list and was_cut_off(output)
        if cut_off and type(decision) is list:
            raise cut_off_error("".join(action.log for action in decision))
        return decision

    # A bare message reads as the generation that would wrap it: `invoke` calls `_decide`
    # itself (`reads_directly`).
    _parse_one = _decide

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        reads_directly(cls, ToolsAgentOutputParser)
