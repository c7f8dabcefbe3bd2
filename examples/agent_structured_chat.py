"""A structured-chat agent with a multi-argument tool: the model writes JSON blobs.

Structured chat suits a model that cannot call tools natively when the tools take several
typed arguments: each step is one ``{"action": ..., "action_input": {...}}`` blob, and the
arguments are validated against the tool's schema. This example walks the run with
`AgentExecutor.iter`, one iteration at a time.

    python examples/agent_structured_chat.py
"""

from __future__ import annotations

import json

from leanchain.agents import AgentExecutor, create_structured_chat_agent
from leanchain.agents.prompts import STRUCTURED_CHAT_PROMPT
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import tool

BUSY = {("tuesday", 10), ("tuesday", 11)}


@tool
def free_hours(day: str) -> list[int]:
    """The hours (9 to 16) still free on a weekday."""
    return [hour for hour in range(9, 17) if (day.lower(), hour) not in BUSY]


@tool
def book_meeting(day: str, hour: int, attendees: list[str], topic: str = "") -> str:
    """Book a one-hour meeting on a weekday at an hour, with attendees and an optional topic."""
    BUSY.add((day.lower(), hour))
    return f"Booked {topic or 'a meeting'} on {day} at {hour}:00 with {', '.join(attendees)}."


def blob(action: str, action_input: object) -> str:
    """How the model writes one step: a thought, then one JSON blob."""
    body = json.dumps({"action": action, "action_input": action_input})
    return f"Thought: next step.\nAction:\n```\n{body}\n```"


def main() -> None:
    model = ScriptedChatModel(
        [
            blob("free_hours", {"day": "Tuesday"}),
            blob(
                "book_meeting",
                {"day": "Tuesday", "hour": 9, "attendees": ["Ada", "Linus"], "topic": "planning"},
            ),
            blob("Final Answer", "Booked planning with Ada and Linus on Tuesday at 9:00."),
        ]
    )
    tools = [free_hours, book_meeting]
    agent = create_structured_chat_agent(model, tools, STRUCTURED_CHAT_PROMPT)
    executor = AgentExecutor(agent=agent, tools=tools)

    for chunk in executor.iter({"input": "Book an hour with Ada and Linus on Tuesday."}):
        if "intermediate_step" in chunk:
            for action, observation in chunk["intermediate_step"]:
                print(f"{action.tool} {json.dumps(action.tool_input)} -> {observation}")
        else:
            print("Answer:", chunk["output"])


if __name__ == "__main__":
    main()
