"""Formatting a ``ChatPromptTemplate`` of system + placeholder + human (3 templates) per call.

Goal (issue 3): at most 15 µs per ``invoke``. The placeholder gets a two-message history, so
each call produces four messages. ``format_messages`` is shown for reference.
Run: ``python -m benchmarks parts_prompt`` (``make bench`` runs every benchmark).
"""

from __future__ import annotations

from benchmarks._util import median_time, print_table, row, scaled
from leanchain.messages import AIMessage, HumanMessage, SystemMessage
from leanchain.prompts import ChatPromptTemplate

GOAL_US = 15.0
US = 1e6


def main() -> None:
    """Print the medians of ``invoke`` and ``format_messages`` against the goal."""
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You are a {role} assistant. Answer in {language}."),
            ("placeholder", "{history}"),
            ("human", "{input}"),
        ]
    )
    history = [HumanMessage("Hi!"), AIMessage("Hello, how can I help?")]
    values = {"role": "helpful", "language": "English", "history": history, "input": "2 + 2?"}
    assert prompt.invoke(values).to_messages() == [
        SystemMessage("You are a helpful assistant. Answer in English."),
        *history,
        HumanMessage("2 + 2?"),
    ]

    number = scaled(20_000, 20)
    invoked = median_time(lambda: prompt.invoke(values), number=number) * US
    formatted = median_time(lambda: prompt.format_messages(**values), number=number) * US
    print_table(
        "ChatPromptTemplate: system + placeholder + human",
        [
            row("prompt.invoke(dict)", invoked, None, "µs", at_most=GOAL_US),
            row("prompt.format_messages(**values)", formatted, None, "µs", at_most=GOAL_US),
        ],
    )


if __name__ == "__main__":
    main()
