"""A tool-calling agent with custom tools: native tool calls, two of them in one step.

`create_tool_calling_agent` binds the tools to the model (``bind_tools``); the model answers
with tool calls, which `AgentExecutor` runs concurrently and feeds back as tool messages.
Offline, a `ScriptedChatModel` plays the model's side. With a real model, replace it by
``ChatOpenAI(model="gpt-4o-mini")`` (or ``ChatAnthropic``) and delete the script.

    python examples/agent_tool_calling.py
"""

from __future__ import annotations

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.errors import ToolException
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import ToolMessage
from leanchain.tools import tool

ORDERS = {"A-1001": ("shipped", "Norway"), "A-1002": ("packing", "Portugal")}
SHIPPING_DAYS = {"Norway": 4, "Portugal": 2}


@tool
def order_status(order_id: str) -> str:
    """The status of an order and the country it ships to."""
    if order_id not in ORDERS:
        raise ToolException(f"no order {order_id!r}")
    status, country = ORDERS[order_id]
    return f"{order_id}: {status}, ships to {country}"


@tool
def delivery_days(country: str) -> int:
    """How many days delivery takes to a country."""
    return SHIPPING_DAYS[country]


order_status.handle_tool_error = True  # a ToolException becomes what the model sees


def main() -> None:
    model = ScriptedChatModel(
        [
            # Step 1: two calls in one reply; the executor runs them at the same time.
            ScriptedChatModel.tool_calls(
                ("order_status", {"order_id": "A-1001"}),
                ("order_status", {"order_id": "A-1002"}),
            ),
            # Step 2: one call, built from what step 1 returned.
            ScriptedChatModel.tool_call("delivery_days", {"country": "Portugal"}),
            "A-1001 has shipped. A-1002 is being packed and takes 2 days once it ships.",
        ]
    )
    tools = [order_status, delivery_days]
    agent = create_tool_calling_agent(model, tools, TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)

    result = executor.invoke({"input": "Where are my orders A-1001 and A-1002?"})
    for action, observation in result["intermediate_steps"]:
        print(f"{action.tool}({action.tool_input}) -> {observation}")
    print("Answer:", result["output"])

    # The second model call saw the tool results as tool messages, ids matched to the calls.
    seen = model.requests[1].messages
    print("tool messages:", [(m.tool_call_id, m.text) for m in seen if isinstance(m, ToolMessage)])


if __name__ == "__main__":
    main()
