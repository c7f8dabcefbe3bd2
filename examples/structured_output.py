"""Structured output: a pydantic model out of a chat model, whole or as it streams.

`model.with_structured_output(Schema)` makes the model call a tool shaped like `Schema` and
returns the validated instance; streamed, it yields a new instance each time the arguments so
far validate to a different one. `model.bind_tools([...]) | PydanticToolsParser(tools=[...])`
does the same by hand, for a model offered several tools. Runs offline: the model is a
`ScriptedChatModel` whose replies are tool calls.

    python examples/structured_output.py
"""

from __future__ import annotations

from pydantic import BaseModel

from leanchain.language_models import ScriptedChatModel
from leanchain.output_parsers import PydanticToolsParser


class Movie(BaseModel):
    """A movie; only the title is required."""

    title: str
    year: int | None = None


class Search(BaseModel):
    """Search the web."""

    query: str
    limit: int = 10


def main() -> None:
    reply = ScriptedChatModel.tool_call("Movie", {"title": "Up in the air", "year": 2009})
    model = ScriptedChatModel([reply, reply])
    structured = model.with_structured_output(Movie)

    print("invoke:", repr(structured.invoke("Which film has George Clooney fire people?")))

    # The arguments stream cut at whitespace; each piece that validates anew yields a value.
    for movie in structured.stream("Same question, streamed."):
        print("  partial:", repr(movie))

    tools_model = ScriptedChatModel(
        [
            ScriptedChatModel.tool_calls(
                ("Search", {"query": "hot tea", "limit": 3}), ("Movie", {"title": "Tea"})
            )
        ]
    )
    chain = tools_model.bind_tools([Search, Movie]) | PydanticToolsParser(tools=[Search, Movie])
    print("tools:", chain.invoke("Find tea, and a film about it."))


if __name__ == "__main__":
    main()
