"""The demo's offline model: a `FunctionChatModel` that plays one conversation per agent type.

The model answers one built-in question (`DEMO_QUESTION`) in three tool steps: look the
city up, convert the landmark's height to feet, divide. It is not a fixed list of replies:
before each turn it reads the observations it was given — tool messages for the
tool-calling agent, the ``Observation:`` lines of a text scratchpad, the ``<observation>``
tags of the XML one, the tool-response human messages of the JSON chat one — takes the
numbers it needs from them and builds the next tool call from those numbers. So the demo
truly runs the tools, and a tool that returns something unexpected makes the model say so
instead of playing on.

Each agent type gets its own reply format: native tool calls for tool-calling, ReAct text,
JSON blobs for structured chat, a JSON blob alone in a ``json`` code block for JSON chat, XML
tags for XML. Every reply carries an approximate ``usage_metadata`` (the request's messages
and tool schemas, and the reply, counted by `count_tokens_approximately`), as a provider's
would, so that budgets and the run's report have tokens to show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from leanchain.language_models import ChatRequest, FunctionChatModel, Reply
from leanchain.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    count_tokens_approximately,
)

__all__ = ["AGENT_TYPES", "DEMO_ANSWER", "DEMO_QUESTION", "demo_model", "stuck_model"]

AGENT_TYPES: Final = ("tool-calling", "react", "structured-chat", "json-chat", "xml")
"""The agent types the demo runs, in order."""

DEMO_QUESTION: Final = (
    "What is the population of Paris divided by the height of the Eiffel Tower in feet?"
)
"""The one question the offline model can answer."""

DEMO_ANSWER: Final = (
    "Paris has 2102650 inhabitants and the Eiffel Tower is 330 m (1082.68 ft) tall, so the "
    "answer is about 1942.08 people per foot (2102650 / 1082.68 = 1942.078915)."
)
"""What every agent type answers when the tools behave as built (tests check it)."""

_NUMBER: Final = r"(-?\d+(?:\.\d+)?)"


@dataclass(frozen=True, slots=True)
class _Call:
    """One tool call: structured arguments, and the same input as one string."""

    tool: str
    args: dict[str, Any]
    text: str


@dataclass(frozen=True, slots=True)
class _Turn:
    """What the model says next: a thought and tool calls, or a final answer."""

    thought: str
    calls: tuple[_Call, ...] = ()
    answer: str | None = None


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def _unexpected(tool: str, observation: str) -> _Turn:
    return _Turn(
        "That observation is not what I expected.",
        answer=(
            f"I cannot go on: the {tool} tool returned {observation!r}, which is not what "
            "this offline demo model expects."
        ),
    )


def _plan(turns: list[list[str]], parallel: bool) -> _Turn:
    """The next turn, given the observations of the turns so far (one list per turn)."""
    if not turns:
        thought = "I need the population of Paris and the height of the Eiffel Tower."
        if parallel:
            return _Turn(
                thought,
                (
                    _Call("city_facts", {"city": "Paris", "fact": "population"}, "Paris"),
                    _Call("city_facts", {"city": "Paris", "fact": "landmark_height"}, "Paris"),
                ),
            )
        return _Turn(thought, (_Call("city_facts", {"city": "Paris"}, "Paris"),))
    facts = "; ".join(turns[0])
    population = re.search(r"population:? (\d+)", facts)
    height = re.search(rf"landmark_height:? {_NUMBER} m\b", facts)
    if population is None or height is None:
        return _unexpected("city_facts", facts)
    if len(turns) == 1:
        metres = height[1]
        return _Turn(
            f"Paris has {population[1]} inhabitants and the Eiffel Tower is {metres} m tall. "
            "Next I convert the height to feet.",
            (
                _Call(
                    "convert_units",
                    {"value": _number(metres), "from_unit": "m", "to_unit": "ft"},
                    f"{metres} m to ft",
                ),
            ),
        )
    converted = "; ".join(turns[1])
    feet = re.search(rf"= {_NUMBER} ft\b", converted)
    if feet is None:
        return _unexpected("convert_units", converted)
    expression = f"{population[1]} / {feet[1]}"
    if len(turns) == 2:
        return _Turn(
            f"The tower is {feet[1]} ft tall. Now I divide the population by the height.",
            (_Call("calculator", {"expression": expression}, expression),),
        )
    computed = "; ".join(turns[2]).strip()
    if re.fullmatch(_NUMBER, computed) is None:
        return _unexpected("calculator", computed)
    return _Turn(
        "I now know the final answer.",
        answer=(
            f"Paris has {population[1]} inhabitants and the Eiffel Tower is {height[1]} m "
            f"({feet[1]} ft) tall, so the answer is about {round(float(computed), 2)} people "
            f"per foot ({expression} = {computed})."
        ),
    )


_CANNOT: Final = (
    "I am leanchain's offline demo model and can only answer one question: " + DEMO_QUESTION
)


def _tool_turns(messages: list[BaseMessage]) -> list[list[str]] | None:
    """Observations per turn from a tool-calling history; None if the question is not there."""
    if not any(m.type == "human" and DEMO_QUESTION in m.text for m in messages):
        return None
    turns: list[list[str]] = []
    for message in messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            turns.append([])
        elif isinstance(message, ToolMessage) and turns:
            turns[-1].append(message.text)
    return turns


def _text_turns(messages: list[BaseMessage], pattern: re.Pattern[str]) -> list[list[str]] | None:
    """Observations per turn from the text scratchpad after the question in the last message."""
    text = messages[-1].text if messages else ""
    at = text.rfind(DEMO_QUESTION)
    if at < 0:
        return None
    return [[observation] for observation in pattern.findall(text, at + len(DEMO_QUESTION))]


_REACT_OBSERVATION: Final = re.compile(r"\nObservation: (.*?)\nThought: ", re.DOTALL)
_XML_OBSERVATION: Final = re.compile(r"<observation>(.*?)</observation>", re.DOTALL)


def _tool_calling(messages: list[BaseMessage], request: ChatRequest) -> Reply:
    turns = _tool_turns(messages)
    if turns is None:
        return _CANNOT
    turn = _plan(turns, parallel=True)
    if turn.answer is not None:
        return turn.answer
    missing = sorted({c.tool for c in turn.calls} - set(request.tool_names))
    if missing:
        return f"I need the tools {missing}, but they were not offered to me."
    return FunctionChatModel.tool_calls(
        *((call.tool, call.args) for call in turn.calls), content=turn.thought
    )


def _react(messages: list[BaseMessage], request: ChatRequest) -> Reply:
    # The prompt (and the scratchpad after each observation) ends with "Thought:", which the
    # reply continues.
    turns = _text_turns(messages, _REACT_OBSERVATION)
    if turns is None:
        return f"Final Answer: {_CANNOT}"
    turn = _plan(turns, parallel=False)
    if turn.answer is not None:
        return f"{turn.thought}\nFinal Answer: {turn.answer}"
    [call] = turn.calls
    return f"{turn.thought}\nAction: {call.tool}\nAction Input: {call.text}"


def _blob(action: str, action_input: Any) -> str:
    blob = json.dumps({"action": action, "action_input": action_input}, indent=2)
    return f"Action:\n```\n{blob}\n```"


def _structured_chat(messages: list[BaseMessage], request: ChatRequest) -> Reply:
    turns = _text_turns(messages, _REACT_OBSERVATION)
    if turns is None:
        return _blob("Final Answer", _CANNOT)
    turn = _plan(turns, parallel=False)
    if turn.answer is not None:
        return f"Thought: {turn.thought}\n{_blob('Final Answer', turn.answer)}"
    [call] = turn.calls
    return f"Thought: {turn.thought}\n{_blob(call.tool, call.args)}"


def _tool_responses(messages: list[BaseMessage]) -> list[list[str]] | None:
    """Observations per turn from a JSON chat history; None if the question is not there.

    The scratchpad follows the question's human message: each reply as an AI message, then
    a human message with the tool's response written into ``TEMPLATE_TOOL_RESPONSE``.
    """
    # Imported here: `AGENT_TYPES` is read by every ``leanchain`` command, and the agents
    # package is needed only once a demo runs.
    from leanchain.agents.prompts import TEMPLATE_TOOL_RESPONSE

    before, _, after = TEMPLATE_TOOL_RESPONSE.partition("{observation}")
    start = None
    for at, message in enumerate(messages):
        if (
            isinstance(message, HumanMessage)
            and DEMO_QUESTION in message.text
            and not message.text.startswith(before)
        ):
            start = at + 1
    if start is None:
        return None
    turns: list[list[str]] = []
    for message in messages[start:]:
        if isinstance(message, HumanMessage):
            text = message.text
            if text.startswith(before) and text.endswith(after):
                text = text[len(before) : len(text) - len(after)]
            turns.append([text])
    return turns


def _json_blob(action: str, action_input: Any) -> str:
    blob = json.dumps({"action": action, "action_input": action_input}, indent=2)
    return f"```json\n{blob}\n```"


def _json_chat(messages: list[BaseMessage], request: ChatRequest) -> Reply:
    # The prompt asks for the blob "and nothing else", so the thought stays unsaid.
    turns = _tool_responses(messages)
    if turns is None:
        return _json_blob("Final Answer", _CANNOT)
    turn = _plan(turns, parallel=False)
    if turn.answer is not None:
        return _json_blob("Final Answer", turn.answer)
    [call] = turn.calls
    return _json_blob(call.tool, call.args)


def _xml(messages: list[BaseMessage], request: ChatRequest) -> Reply:
    turns = _text_turns(messages, _XML_OBSERVATION)
    if turns is None:
        return f"<final_answer>{_CANNOT}</final_answer>"
    turn = _plan(turns, parallel=False)
    if turn.answer is not None:
        return f"<final_answer>{turn.answer}</final_answer>"
    [call] = turn.calls
    return f"{turn.thought}\n<tool>{call.tool}</tool><tool_input>{call.text}</tool_input>"


_PLAYERS: Final[dict[str, Callable[[list[BaseMessage], ChatRequest], Reply]]] = {
    "tool-calling": _tool_calling,
    "react": _react,
    "structured-chat": _structured_chat,
    "json-chat": _json_chat,
    "xml": _xml,
}


def _with_usage(reply: Reply, messages: list[BaseMessage], request: ChatRequest) -> AIMessage:
    """`reply` as a message with the approximate tokens of the request and of the reply."""
    message = AIMessage(reply) if isinstance(reply, str) else reply
    if not isinstance(message, AIMessage):
        message = AIMessage(**message)
    sent = count_tokens_approximately(messages, tools=request.tools or None)
    said = count_tokens_approximately([message])
    usage = {"input_tokens": sent, "output_tokens": said, "total_tokens": sent + said}
    return message.model_copy(update={"usage_metadata": usage})


def _player(agent_type: str) -> Callable[[list[BaseMessage], ChatRequest], Reply]:
    player = _PLAYERS.get(agent_type)
    if player is None:
        raise ValueError(f"unknown agent type {agent_type!r}; expected one of {AGENT_TYPES}")
    return player


def demo_model(agent_type: str, *, chunk_delay: float | None = None) -> FunctionChatModel:
    """The offline model for one agent type (see the module docstring).

    Args:
        agent_type: one of `AGENT_TYPES`.
        chunk_delay: seconds between streamed chunks, to watch the tokens arrive.

    Raises:
        ValueError: an unknown agent type.
    """
    player = _player(agent_type)

    def reply(messages: list[BaseMessage], request: ChatRequest) -> AIMessage:
        return _with_usage(player(messages, request), messages, request)

    return FunctionChatModel(reply, chunk_delay=chunk_delay, name="offline-demo-model")


def stuck_model(agent_type: str) -> FunctionChatModel:
    """An offline model stuck in a loop (``leanchain demo --loop``): it answers every turn with
    its first tool call, whatever the observations say, until `LoopGuard` stops it.

    Raises:
        ValueError: an unknown agent type.
    """
    player = _player(agent_type)
    first: list[Reply] = []

    def stuck(messages: list[BaseMessage], request: ChatRequest) -> AIMessage:
        if not first:
            first.append(player(messages, request))
        # The same call again (a fresh tool-call id each time), counted against this request.
        return _with_usage(first[0], messages, request)

    return FunctionChatModel(stuck, name="offline-demo-model")
