"""`RunnablePassthrough.assign` and `RunnableParallel`: add keys to a dict, run branches at once.

A small "review a text" pipeline: compute statistics with plain functions, ask a model for a
summary and a title in parallel, then format a report. Runs offline.

    python examples/assign_and_parallel.py
"""

from __future__ import annotations

from typing import Any

from leanchain.language_models import FunctionChatModel
from leanchain.messages import BaseMessage
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate
from leanchain.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

TEXT = (
    "leanchain composes LLM pipelines from small runnables. Every part is typed, "
    "every agent type runs offline in tests, and the overhead per step is tiny."
)


def fake_llm(messages: list[BaseMessage], request: Any) -> str:
    """An offline model: answers from the instruction in the last message."""
    ask = messages[-1].text
    if ask.startswith("Summarise"):
        return "leanchain builds typed, testable LLM pipelines with little overhead."
    return "Small Parts, Fast Chains"


def main() -> None:
    model = FunctionChatModel(fake_llm)
    summary = ChatPromptTemplate.from_template("Summarise: {text}") | model | StrOutputParser()
    title = ChatPromptTemplate.from_template("Title for: {text}") | model | StrOutputParser()

    pipeline = (
        # assign keeps the input keys and adds computed ones.
        RunnablePassthrough.assign(
            words=lambda x: len(x["text"].split()),
            sentences=lambda x: x["text"].count(". ") + 1,
        )
        # RunnableParallel runs its branches concurrently (a dict in a chain means the same).
        | RunnablePassthrough.assign(ai=RunnableParallel(summary=summary, title=title))
        | RunnableLambda(report)
    )
    print(pipeline.invoke({"text": TEXT}))

    # Streaming an assign yields the passed-through keys first, then each computed key.
    keys = [list(chunk) for chunk in RunnablePassthrough.assign(n=lambda x: 1).stream({"a": 0})]
    print("assign streams:", keys)


def report(x: dict[str, Any]) -> str:
    """The pipeline's output: a small markdown report."""
    return (
        f"# {x['ai']['title']}\n"
        f"{x['ai']['summary']}\n"
        f"({x['words']} words, {x['sentences']} sentences)"
    )


if __name__ == "__main__":
    main()
