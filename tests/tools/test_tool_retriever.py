"""create_retriever_tool: LangChain's schema, text, separator, prompt and artifact."""

from __future__ import annotations

from typing import Any

import pytest

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.documents import Document
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import ToolMessage
from leanchain.prompts import PromptTemplate
from leanchain.retrievers import InMemoryRetriever
from leanchain.tools import StructuredTool, convert_to_openai_tool, create_retriever_tool

PETS = [Document("cats purr", metadata={"s": 1}), Document("dogs bark and cats hide")]
RETRIEVER = InMemoryRetriever(documents=PETS)


def test_schema_and_text_match_langchain() -> None:
    search = create_retriever_tool(RETRIEVER, "search_pets", "Search pets.")
    assert isinstance(search, StructuredTool)
    assert search.args == {
        "query": {
            "description": "query to look up in retriever",
            "title": "Query",
            "type": "string",
        }
    }
    assert convert_to_openai_tool(search) == {
        "type": "function",
        "function": {
            "name": "search_pets",
            "description": "Search pets.",
            "parameters": {
                "properties": {
                    "query": {"description": "query to look up in retriever", "type": "string"}
                },
                "required": ["query"],
                "type": "object",
            },
        },
    }
    assert search.invoke({"query": "cats"}) == "cats purr\n\ndogs bark and cats hide"
    assert search.invoke("dogs") == "dogs bark and cats hide"
    assert search.invoke("fish") == ""


def test_prompt_separator_and_artifact() -> None:
    search = create_retriever_tool(
        RETRIEVER,
        "s2",
        "d",
        document_prompt=PromptTemplate.from_template("[{s}] {page_content}"),
        document_separator="|",
        response_format="content_and_artifact",
    )
    message = search.invoke(
        {"type": "tool_call", "name": "s2", "id": "c", "args": {"query": "purr"}}
    )
    assert message == ToolMessage(
        content="[1] cats purr", name="s2", tool_call_id="c", artifact=[PETS[0]]
    )
    with pytest.raises(ValueError, match=r"missing metadata: \['s'\]"):
        search.invoke({"query": "dogs"})


async def test_async_tool_and_the_retriever_run_under_the_tool() -> None:
    search = create_retriever_tool(RETRIEVER, "search_pets", "Search pets.")
    assert await search.ainvoke({"query": "purr"}) == "cats purr"
    events = [
        (e["event"], e["name"], e["parent_ids"] != [])
        async for e in search.astream_events({"query": "purr"})
    ]
    assert events == [
        ("on_tool_start", "search_pets", False),
        ("on_retriever_start", "InMemoryRetriever", True),
        ("on_retriever_end", "InMemoryRetriever", True),
        ("on_tool_end", "search_pets", False),
    ]


def test_rejects_what_is_not_a_retriever() -> None:
    with pytest.raises(TypeError, match="needs a BaseRetriever, got list"):
        create_retriever_tool([], "x", "y")  # type: ignore[arg-type]


def test_a_retrieval_agent_ports() -> None:
    search = create_retriever_tool(RETRIEVER, "search_pets", "Search the pet notes.")
    model = ScriptedChatModel(
        [ScriptedChatModel.tool_calls(("search_pets", {"query": "purr"})), "Cats purr."]
    )
    agent = create_tool_calling_agent(model, [search], TOOL_CALLING_PROMPT)
    result: dict[str, Any] = AgentExecutor(
        agent=agent, tools=[search], return_intermediate_steps=True
    ).invoke({"input": "what do cats do?"})
    assert result["output"] == "Cats purr."
    assert [obs for _, obs in result["intermediate_steps"]] == ["cats purr"]
