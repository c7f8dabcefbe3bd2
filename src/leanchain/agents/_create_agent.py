"""`create_agent`: LangChain 1.x's entry point, as a thin face over the classic pieces.

``create_agent(model, tools, system_prompt=..., middleware=[...])`` returns a runnable with
LangChain 1.x's messages-in, messages-out contract: invoke it with ``{"messages": [...]}`` and
get ``{"messages": [...]}`` back: the input messages, then each tool-calling reply with its
`ToolMessage` results, then the final `AIMessage`. Underneath it is
`create_tool_calling_agent` run by an `AgentExecutor` with the given middleware, so limits,
callbacks, events and middleware behave as they do there.

Not provided: LangGraph's state schemas, checkpointers and stores, ``stream_mode`` (streams
yield the final state once; use ``stream_events`` for tokens and steps) and model strings
(agents never import providers: pass ``init_chat_model("openai:...")``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from leanchain.agents.executor import AgentExecutor
from leanchain.agents.factories import create_tool_calling_agent
from leanchain.agents.format_scratchpad import format_to_tool_messages
from leanchain.agents.middleware import AgentMiddleware
from leanchain.language_models import BaseChatModel
from leanchain.messages import AIMessage, BaseMessage, convert_to_messages
from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder
from leanchain.runnables import Runnable, RunnableConfig
from leanchain.tools import BaseTool, tool

__all__ = ["MessagesAgent", "create_agent"]


class MessagesAgent(Runnable[dict[str, Any], dict[str, Any]]):
    """An agent over ``{"messages": [...]}``: the state in, the state with the turn added out.

    Attributes:
        executor: the `AgentExecutor` that runs it (its middleware, limits, tools).
    """

    __slots__ = ("executor", "name")

    def __init__(self, executor: AgentExecutor, name: str | None = None) -> None:
        self.executor = executor
        self.name = name

    @staticmethod
    def _messages(input: Any) -> list[BaseMessage]:
        if not isinstance(input, dict) or "messages" not in input:
            raise TypeError(
                'create_agent\'s agent takes {"messages": [...]}, '
                f"got {type(input).__name__}: {input!r:.80}"
            )
        return convert_to_messages(input["messages"])

    @staticmethod
    def _state(messages: list[BaseMessage], result: dict[str, Any]) -> dict[str, Any]:
        steps = result.get("intermediate_steps", [])
        turn = [*format_to_tool_messages(steps), AIMessage(str(result["output"]))]
        return {"messages": [*messages, *turn]}

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run one turn on the conversation in ``input["messages"]``.

        Raises:
            TypeError: the input is not ``{"messages": [...]}``.
        """
        messages = self._messages(input)
        return self._state(messages, self.executor.invoke({"messages": messages}, config))

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Async `invoke`."""
        messages = self._messages(input)
        result = await self.executor.ainvoke({"messages": messages}, config)
        return self._state(messages, result)


def create_agent(
    model: BaseChatModel,
    tools: Sequence[BaseTool | Callable[..., Any]] | None = None,
    *,
    system_prompt: str | None = None,
    middleware: Sequence[AgentMiddleware] = (),
    name: str | None = None,
    max_iterations: int | None = 15,
) -> MessagesAgent:
    """A tool-calling agent with LangChain 1.x's ``{"messages": [...]}`` contract.

    Args:
        model: a chat model that implements ``bind_tools``.
        tools: tools, or plain typed functions with docstrings (made tools with ``@tool``).
        system_prompt: the system message put before the conversation.
        middleware: `AgentMiddleware` for the run (`LoopGuard`, `UsageLimits`, ...).
        name: the agent's name in callbacks and events.
        max_iterations: the executor's step limit (``None``: none).

    Raises:
        TypeError: `model` is not a chat model (a model string: use ``init_chat_model``).
    """
    if not isinstance(model, BaseChatModel):
        hint = (
            " (make it with leanchain.chat_models.init_chat_model)"
            if isinstance(model, str)
            else ""
        )
        raise TypeError(f"create_agent needs a chat model, got {type(model).__name__}{hint}")
    made = [t if isinstance(t, BaseTool) else tool(t) for t in tools or ()]
    parts: list[Any] = [("system", system_prompt)] if system_prompt else []
    prompt = ChatPromptTemplate.from_messages(
        [*parts, MessagesPlaceholder("messages"), MessagesPlaceholder("agent_scratchpad")]
    )
    agent = create_tool_calling_agent(model, made, prompt)
    executor = AgentExecutor(
        agent=agent,
        tools=made,
        middleware=list(middleware),
        return_intermediate_steps=True,
        max_iterations=max_iterations,
    )
    return MessagesAgent(executor, name)
