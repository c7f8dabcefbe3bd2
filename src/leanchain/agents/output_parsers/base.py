"""The agent parser bases: model output in, the agent's decision out."""

from __future__ import annotations

from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.output_parsers import BaseOutputParser

__all__ = ["AgentOutputParser", "MultiActionAgentOutputParser"]


class AgentOutputParser(BaseOutputParser[AgentAction | AgentFinish]):
    """Reads one decision from a model reply: an `AgentAction` to run, or an `AgentFinish`.

    Invalid replies raise `OutputParserException`, which the executor's
    ``handle_parsing_errors`` can send back to the model.
    """

    __slots__ = ()


class MultiActionAgentOutputParser(BaseOutputParser[list[AgentAction] | AgentFinish]):
    """Reads several actions at once (one per native tool call), or an `AgentFinish`."""

    __slots__ = ()
