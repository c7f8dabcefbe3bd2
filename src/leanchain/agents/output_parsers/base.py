"""The agent parser bases: model output in, the agent's decision out.

A reply the model did not finish never becomes a tool call. Text cannot always show that it
was cut off (a ReAct ``Action Input:`` or an XML ``<tool_input>`` just ends), but the reply's
metadata can: a ``finish_reason`` of ``"length"`` (OpenAI's, and Anthropic's ``max_tokens``
under its neutral name) means the model ran out of output tokens mid-reply. Every agent parser
then refuses to act on it (`cut_off_error`); a final answer is still returned as written.
"""

from __future__ import annotations

from typing import Any, Final

from leanchain.agents.schema import AgentAction, AgentFinish, agent_action, agent_finish
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage, BaseMessage
from leanchain.output_parsers import (
    BaseOutputParser,
    generation_message,
    generation_text,
)
from leanchain.outputs import Generation

__all__ = [
    "CUT_OFF_OBSERVATION",
    "AgentOutputParser",
    "MultiActionAgentOutputParser",
    "agent_action",
    "agent_finish",
    "cut_off_error",
    "reads_directly",
    "was_cut_off",
]


CUT_OFF_OBSERVATION: Final = (
    "Your last reply was cut off at the output token limit before it was complete, so no "
    "tool was run. Reply again, more briefly."
)
"""What the model is told when its cut-off reply is sent back (``handle_parsing_errors``)."""


_METADATA_ONLY: set[type[BaseMessage]] = set()
"""Message classes seen without a ``generation_info`` (nearly all): only metadata is read."""


def was_cut_off(generation: Any) -> bool:
    """Whether a model output says it stopped at its output token limit.

    Reads ``finish_reason`` from the message's ``response_metadata``, then from a generation's
    ``generation_info``; a string (no metadata) was never cut off as far as anyone can tell.
    """
    cls = type(generation)
    if cls in _METADATA_ONLY:
        metadata = generation.response_metadata
        return bool(metadata) and _says_length(metadata)
    if cls is str:
        return False
    message = generation_message(generation)
    if _says_length(getattr(message, "response_metadata", None)):
        return True
    if message is generation and not (
        "generation_info" in cls.model_fields or hasattr(cls, "generation_info")
    ):
        # A pydantic model takes ~2 µs to report a missing attribute: ask its class, once.
        _METADATA_ONLY.add(cls)
        return False
    return _says_length(getattr(generation, "generation_info", None))


def _says_length(metadata: Any) -> bool:
    return isinstance(metadata, dict) and metadata.get("finish_reason") == "length"


def reads_directly(cls: type[Any], base: type[Any]) -> None:
    """Choose, once when `cls` is made, what its `_parse_one` (which ``invoke`` calls on a
    string or a message) is: its `_decide` when it reads outputs as `base` does (no
    ``parse_result`` of its own), a call less on every parse; else the generic one, which
    goes through the overriding ``parse_result`` with the output as a generation. A
    `_parse_one` written by hand, in `cls` or a class between it and `base`, is kept. (A
    ``parse_result`` set on a class after it is made is not seen: override it in a subclass.)
    """
    generic = BaseOutputParser._parse_one
    owner = next(klass for klass in cls.__mro__ if "_parse_one" in vars(klass))
    inherited = vars(owner)["_parse_one"]
    if inherited is not generic and inherited is not getattr(owner, "_decide", None):
        return
    cls._parse_one = cls._decide if cls.parse_result is base.parse_result else generic


def cut_off_error(text: str) -> OutputParserException:
    """The error for a tool call read from a reply the model did not finish."""
    return OutputParserException(
        "The model's reply was cut off at its output token limit (finish_reason 'length'), so "
        f"its tool call may be incomplete and was not run: {text}",
        observation=CUT_OFF_OBSERVATION,
        llm_output=text,
        send_to_llm=True,
    )


class AgentOutputParser(BaseOutputParser[AgentAction | AgentFinish]):
    """Reads one decision from a model reply: an `AgentAction` to run, or an `AgentFinish`.

    Invalid replies raise `OutputParserException`, which the executor's
    ``handle_parsing_errors`` can send back to the model. So does an action read from a reply
    the model did not finish (see the module docstring).
    """

    __slots__ = ()

    def parse_result(
        self, result: list[Generation], *, partial: bool = False
    ) -> AgentAction | AgentFinish:
        """The decision in the first model output of `result`.

        Args:
            result: model outputs (strings, messages or generations); the first is read.
            partial: ignored: a decision is only read from a whole reply.

        Raises:
            OutputParserException: the reply is not a decision, or it is an action from a
                reply cut off at the output token limit.
        """
        return self._decide(result[0])

    def _decide(self, output: Any) -> AgentAction | AgentFinish:
        """`parse_result` of one output: a string, a message or a generation."""
        cls = type(output)
        if cls is str:  # text says nothing of being cut off
            return self.parse(output)
        if cls is AIMessage:  # the usual reply: its text and metadata read in place
            content = output.content
            decision = self.parse(content if type(content) is str else output.text)
            # `_says_length`, inline (a call fewer), and empty metadata, the usual, tested
            # first: no isinstance calls.
            metadata = output.response_metadata
            cut_off = False
            if metadata and isinstance(metadata, dict):
                cut_off = metadata.get("finish_reason") == "length" and isinstance(
                    decision, AgentAction
                )
        else:
            decision = self.parse(generation_text(output))
            cut_off = isinstance(decision, AgentAction) and was_cut_off(output)
        if cut_off:
            raise cut_off_error(decision.log)
        return decision

    # A bare string or message reads as the generation that would wrap it: `invoke` calls
    # `_decide` itself (`reads_directly`).
    _parse_one = _decide

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        reads_directly(cls, AgentOutputParser)


class MultiActionAgentOutputParser(BaseOutputParser[list[AgentAction] | AgentFinish]):
    """Reads several actions at once (one per native tool call), or an `AgentFinish`."""

    __slots__ = ()
