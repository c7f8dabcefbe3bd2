"""A LangChain support-desk app, ported: only the imports changed.

It has what a real app has: its own chat-model class (annotated fields, a masked API key),
its own tool class whose ``user_id`` argument the model never sees (an injected argument,
filled from the session's config), a retriever tool over the help pages, and a conversation
kept in SQLite across turns by `RunnableWithMessageHistory` around an `AgentExecutor`. Runs
offline: the chat model is a small rule-based class, written the way a LangChain user writes a
wrapper around an in-house model.

    python examples/ported_app.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.chat_history import RunnableWithMessageHistory, SQLiteChatMessageHistory
from leanchain.documents import Document
from leanchain.language_models import BaseChatModel
from leanchain.language_models._results import ChatGeneration, ChatResult
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder
from leanchain.retrievers import InMemoryRetriever
from leanchain.tools import BaseTool, InjectedToolArg, create_retriever_tool

ORDERS = {"ada": ["A-1 (shipped)", "A-7 (packing)"], "bob": ["B-3 (delivered)"]}
HELP_PAGES = [
    Document("Returns are free within 30 days of delivery.", metadata={"page": "returns"}),
    Document("Orders ship within 2 working days.", metadata={"page": "shipping"}),
]


class DeskModel(BaseChatModel):
    """An in-house model behind a wrapper class, as LangChain users write them."""

    model_name: str = "desk-1"
    api_key: SecretStr = SecretStr("")
    temperature: float = Field(default=0.0, description="sampling temperature")

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self._bind_openai_tools(tools, tool_choice, kwargs)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            reply = AIMessage(f"Here is what I found: {last.text}")
        elif "order" in last.text:
            reply = AIMessage("", tool_calls=[_call("my_orders", {"status": "any"}, len(messages))])
        elif "return" in last.text:
            reply = AIMessage(
                "", tool_calls=[_call("search_help", {"query": "returns"}, len(messages))]
            )
        else:
            earlier = [m.text for m in messages if isinstance(m, HumanMessage)][:-1]
            reply = AIMessage(f"You asked me before: {earlier}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _call(name: str, args: dict[str, Any], n: int) -> Any:
    return {"name": name, "args": args, "id": f"call_{n}", "type": "tool_call"}


class MyOrders(BaseTool):
    """A tool class; the session's user is injected, never chosen by the model."""

    name: str = "my_orders"
    description: str = "The current user's orders."

    def _run(self, status: str, user_id: Annotated[str, InjectedToolArg]) -> str:
        return ", ".join(ORDERS.get(user_id, [])) or "no orders"


def main() -> None:
    model = DeskModel(api_key="sk-in-house")
    print("model:", model)
    search = create_retriever_tool(
        InMemoryRetriever(HELP_PAGES, k=1), "search_help", "Search the help pages."
    )
    tools = [MyOrders(), search]
    print("the model sees my_orders args:", tools[0].args)
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You help customers of a shop."),
            MessagesPlaceholder("chat_history", optional=True),
            ("human", "{input}"),
            MessagesPlaceholder("agent_scratchpad"),
        ]
    )
    agent = create_tool_calling_agent(model, tools, prompt)
    executor = AgentExecutor(agent=agent, tools=tools)
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "chat.db"
        desk = RunnableWithMessageHistory(
            executor,
            lambda session_id: SQLiteChatMessageHistory(session_id, database),
            input_messages_key="input",
            history_messages_key="chat_history",
            output_messages_key="output",
        )
        session = {"configurable": {"session_id": "ada-1", "user_id": "ada"}}
        for question in ["Where is my order?", "Can I return it?", "What did I ask?"]:
            answer = desk.invoke({"input": question}, session)  # type: ignore[arg-type]
            print(f"{question} -> {answer['output']}")
        stored = SQLiteChatMessageHistory("ada-1", database).messages
        print("stored in SQLite:", [m.type for m in stored])


if __name__ == "__main__":
    main()
