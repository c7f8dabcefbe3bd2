"""A JSON chat agent: each step is one JSON blob in a ```json fence.

`create_json_chat_agent` with the stock `JSON_CHAT_PROMPT` asks the model to answer with a
``{"action": ..., "action_input": ...}`` blob, either a tool to call or ``"Final Answer"``;
tool results go back to the model as human messages. `AgentExecutor` runs the loop. Runs
offline: the model is a `ScriptedChatModel` that plays the blobs in order.

    python examples/agent_json_chat.py
"""

from __future__ import annotations

import json

from leanchain.agents import AgentExecutor, create_json_chat_agent
from leanchain.agents.prompts import JSON_CHAT_PROMPT
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import tool

CAPITALS = {"france": "Paris", "japan": "Tokyo"}


@tool
def capital(country: str) -> str:
    """The capital city of a country."""
    return CAPITALS.get(country.lower(), "unknown")


@tool
def distance_km(a: str, b: str) -> int:
    """The distance in kilometres between two capital cities."""
    return 9712 if {a, b} == {"Paris", "Tokyo"} else 0


def blob(action: str, action_input: object) -> str:
    """How the model writes one step: a JSON blob in a ```json fence."""
    return f"```json\n{json.dumps({'action': action, 'action_input': action_input})}\n```"


def main() -> None:
    model = ScriptedChatModel(
        [
            blob("capital", "France"),
            blob("capital", "Japan"),
            blob("distance_km", {"a": "Paris", "b": "Tokyo"}),
            blob("Final Answer", "Paris and Tokyo are 9712 km apart."),
        ]
    )
    tools = [capital, distance_km]
    agent = create_json_chat_agent(model, tools, JSON_CHAT_PROMPT)
    executor = AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)

    result = executor.invoke({"input": "How far apart are the capitals of France and Japan?"})
    for action, observation in result["intermediate_steps"]:
        print(f"{action.tool} {json.dumps(action.tool_input)} -> {observation}")
    print("Answer:", result["output"])

    # The tool's result went back as a human message, after the model's own blob.
    print("last turn the model saw:", [m.type for m in model.requests[-1].messages])


if __name__ == "__main__":
    main()
