"""leanchain: lean, fast, typed LLM pipelines and tool-using agents.

The most used names are available here. They are imported on first use, so ``import leanchain``
costs almost nothing and never imports a provider SDK; the subpackages (``leanchain.runnables``,
``leanchain.prompts``, ...) hold the full surface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leanchain._lazy import lazy_face as _lazy_face

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # runnables
    "Runnable": "leanchain.runnables",
    "RunnableBranch": "leanchain.runnables",
    "RunnableConfig": "leanchain.runnables",
    "RunnableGenerator": "leanchain.runnables",
    "RunnableLambda": "leanchain.runnables",
    "RunnableParallel": "leanchain.runnables",
    "RunnablePassthrough": "leanchain.runnables",
    "RunnableSequence": "leanchain.runnables",
    "chain": "leanchain.runnables",
    # chat history (the core knows no messages, so it lives here)
    "InMemoryChatMessageHistory": "leanchain.chat_history",
    "RunnableWithMessageHistory": "leanchain.chat_history",
    "SQLiteChatMessageHistory": "leanchain.chat_history",
    # messages
    "AIMessage": "leanchain.messages",
    "AIMessageChunk": "leanchain.messages",
    "BaseMessage": "leanchain.messages",
    "HumanMessage": "leanchain.messages",
    "SystemMessage": "leanchain.messages",
    "ToolCall": "leanchain.messages",
    "ToolMessage": "leanchain.messages",
    # prompts
    "ChatPromptTemplate": "leanchain.prompts",
    "MessagesPlaceholder": "leanchain.prompts",
    "PromptTemplate": "leanchain.prompts",
    # tools
    "BaseTool": "leanchain.tools",
    "StructuredTool": "leanchain.tools",
    "Tool": "leanchain.tools",
    "tool": "leanchain.tools",
    # output parsers
    "JsonOutputParser": "leanchain.output_parsers",
    "PydanticOutputParser": "leanchain.output_parsers",
    "StrOutputParser": "leanchain.output_parsers",
    # chat models
    "BaseChatModel": "leanchain.language_models",
    "FakeListChatModel": "leanchain.language_models",
    "ScriptedChatModel": "leanchain.language_models",
    # agents
    "AgentAction": "leanchain.agents",
    "AgentExecutor": "leanchain.agents",
    "AgentFinish": "leanchain.agents",
    "create_agent": "leanchain.agents",
    "create_openai_tools_agent": "leanchain.agents",
    "create_react_agent": "leanchain.agents",
    "create_json_chat_agent": "leanchain.agents",
    "create_structured_chat_agent": "leanchain.agents",
    "create_tool_calling_agent": "leanchain.agents",
    "create_xml_agent": "leanchain.agents",
    # providers (their SDKs are imported only when a model object is created)
    "ChatAnthropic": "leanchain.providers",
    "ChatOpenAI": "leanchain.providers",
    # callbacks and errors
    "BaseCallbackHandler": "leanchain.callbacks",
    "ConsoleCallbackHandler": "leanchain.callbacks",
    "StreamEvent": "leanchain.callbacks",
    # scaling out (Ray is imported only when a runner is used)
    "RayRunner": "leanchain.distributed",
    "LeanchainError": "leanchain.errors",
    "OutputParserException": "leanchain.errors",
    "ToolException": "leanchain.errors",
}

__all__ = [
    "AIMessage",
    "AIMessageChunk",
    "AgentAction",
    "AgentExecutor",
    "AgentFinish",
    "BaseCallbackHandler",
    "BaseChatModel",
    "BaseMessage",
    "BaseTool",
    "ChatAnthropic",
    "ChatOpenAI",
    "ChatPromptTemplate",
    "ConsoleCallbackHandler",
    "FakeListChatModel",
    "HumanMessage",
    "InMemoryChatMessageHistory",
    "JsonOutputParser",
    "LeanchainError",
    "MessagesPlaceholder",
    "OutputParserException",
    "PromptTemplate",
    "PydanticOutputParser",
    "RayRunner",
    "Runnable",
    "RunnableBranch",
    "RunnableConfig",
    "RunnableGenerator",
    "RunnableLambda",
    "RunnableParallel",
    "RunnablePassthrough",
    "RunnableSequence",
    "RunnableWithMessageHistory",
    "SQLiteChatMessageHistory",
    "ScriptedChatModel",
    "StrOutputParser",
    "StreamEvent",
    "StructuredTool",
    "SystemMessage",
    "Tool",
    "ToolCall",
    "ToolException",
    "ToolMessage",
    "__version__",
    "chain",
    "create_agent",
    "create_json_chat_agent",
    "create_openai_tools_agent",
    "create_react_agent",
    "create_structured_chat_agent",
    "create_tool_calling_agent",
    "create_xml_agent",
    "tool",
]


__getattr__, __dir__ = _lazy_face(__name__, _EXPORTS)


if TYPE_CHECKING:
    from leanchain.agents import (
        AgentAction,
        AgentExecutor,
        AgentFinish,
        create_agent,
        create_json_chat_agent,
        create_openai_tools_agent,
        create_react_agent,
        create_structured_chat_agent,
        create_tool_calling_agent,
        create_xml_agent,
    )
    from leanchain.callbacks import BaseCallbackHandler, ConsoleCallbackHandler, StreamEvent
    from leanchain.chat_history import (
        InMemoryChatMessageHistory,
        RunnableWithMessageHistory,
        SQLiteChatMessageHistory,
    )
    from leanchain.distributed import RayRunner
    from leanchain.errors import LeanchainError, OutputParserException, ToolException
    from leanchain.language_models import BaseChatModel, FakeListChatModel, ScriptedChatModel
    from leanchain.messages import (
        AIMessage,
        AIMessageChunk,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolCall,
        ToolMessage,
    )
    from leanchain.output_parsers import JsonOutputParser, PydanticOutputParser, StrOutputParser
    from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
    from leanchain.providers import ChatAnthropic, ChatOpenAI
    from leanchain.runnables import (
        Runnable,
        RunnableBranch,
        RunnableConfig,
        RunnableGenerator,
        RunnableLambda,
        RunnableParallel,
        RunnablePassthrough,
        RunnableSequence,
        chain,
    )
    from leanchain.tools import BaseTool, StructuredTool, Tool, tool
