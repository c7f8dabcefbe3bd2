"""Stream an agent's tokens to the terminal while it runs, with `stream_events`.

`AgentExecutor.stream_events` yields LangChain's v2 events as they happen: the model's tokens
(``on_chat_model_stream``) arrive while the model is still answering, between the tool
events. This script renders a live trace from those events alone. The offline model waits a
little before each token so that you can watch them arrive.

    python examples/stream_agent_tokens.py
"""

from __future__ import annotations

import sys

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import tool


@tool
def word_count(text: str) -> int:
    """The number of words in a text."""
    return len(text.split())


def main(delay: float = 0.02) -> None:
    model = ScriptedChatModel(
        [
            ScriptedChatModel.tool_call(
                "word_count",
                {"text": "the quick brown fox jumps over the lazy dog"},
                content="Let me count them.",
            ),
            "The sentence has 9 words, and every letter of the alphabet appears in it.",
        ],
        chunk_delay=delay,
    )
    agent = create_tool_calling_agent(model, [word_count], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[word_count])

    question = "How many words are in 'the quick brown fox jumps over the lazy dog'?"
    out = sys.stdout
    for event in executor.stream_events({"input": question}):
        kind = event["event"]
        if kind == "on_chat_model_start":
            out.write("model: ")
        elif kind == "on_chat_model_stream":
            out.write(event["data"]["chunk"].text)  # a token, as soon as it arrives
        elif kind == "on_chat_model_end":
            out.write("\n")
        elif kind == "on_tool_start":
            out.write(f"tool {event['name']} <- {event['data']['input']}\n")
        elif kind == "on_tool_end":
            out.write(f"tool {event['name']} -> {event['data']['output']}\n")
        elif kind == "on_chain_end" and event["name"] == "AgentExecutor":
            out.write(f"answer: {event['data']['output']['output']}\n")
        out.flush()


if __name__ == "__main__":
    main()
