"""A ReAct agent with custom tools: Thought / Action / Action Input text, one tool per step.

ReAct works with any chat model, tool calling or not: the tools are described in the prompt
and the model writes its choice as text, which `ReActSingleInputOutputParser` reads. Each tool
takes one string. A reply out of format is shown back to the model
(``handle_parsing_errors=True``) so it can correct itself, as the script below does.

    python examples/agent_react.py
"""

from __future__ import annotations

from leanchain.agents import AgentExecutor, create_react_agent
from leanchain.agents.prompts import REACT_PROMPT
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import tool

BOOKS = {
    "dune": "Dune by Frank Herbert, 1965",
    "neuromancer": "Neuromancer by William Gibson, 1984",
}


@tool
def find_book(title: str) -> str:
    """Find a book by its title; returns the author and the year."""
    return BOOKS.get(title.strip().lower(), f"no book called {title!r}")


@tool
def years_since(year: str) -> str:
    """How many years have passed since a year, as of 2025."""
    return str(2025 - int(year))


def main() -> None:
    model = ScriptedChatModel(
        [
            "I should look the book up.\nAction: find_book\nAction Input: Dune",
            "Dune came out in 1965.",  # out of format: no Action and no Final Answer
            "I need the age of the book.\nAction: years_since\nAction Input: 1965",
            "I now know the final answer.\nFinal Answer: Dune (Frank Herbert, 1965) is 60 "
            "years old.",
        ]
    )
    tools = [find_book, years_since]
    agent = create_react_agent(model, tools, REACT_PROMPT)
    executor = AgentExecutor(
        agent=agent, tools=tools, handle_parsing_errors=True, return_intermediate_steps=True
    )

    result = executor.invoke("How old is the novel Dune?")  # a plain string is the "input"
    for action, observation in result["intermediate_steps"]:
        print(f"{action.tool}: {action.tool_input!r} -> {observation}")
    print("Answer:", result["output"])

    # The model is stopped at "\nObservation" so that it never invents a tool's result.
    print("stop sequences:", model.requests[0].stop)


if __name__ == "__main__":
    main()
