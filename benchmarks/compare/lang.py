"""The LangChain implementation of every workload (langchain-core, -classic, -openai).

Imported only by the runner in the comparison environment: the main environment has no
LangChain. The agents get the same prompt text, the same replies and the same tool as the
leanchain side; the scripted model is the same minimal subclass of each library's
``BaseChatModel``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Final

from langchain_classic.agents import (
    AgentExecutor,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    create_xml_agent,
)
from langchain_core.callbacks import BaseCallbackHandler, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
from langchain_core.runnables import (
    Runnable,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)
from langchain_core.tools import BaseTool, tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from benchmarks.compare.fake_server import API_KEY, MODEL, script_one_run, start_server
from benchmarks.compare.shared import (
    AGENT_INPUT,
    AGENT_OUTPUT,
    REACT_TEMPLATE,
    STRUCTURED_CHAT_HUMAN,
    STRUCTURED_CHAT_SYSTEM,
    TEXT_REPLIES,
    TOOL_CALL_ARGS,
    TOOL_CALLING_SYSTEM,
    XML_TEMPLATE,
    Cycle,
    aidentity,
    anap,
    count_events,
    double,
    echo_text,
    identity,
    nap,
    relay,
    source,
    triple,
)
from benchmarks.compare.spec import (
    CONCURRENT_TIMEOUT,
    EVENT_STEPS,
    EVENT_STREAMS,
    Call,
    Case,
    CaseFactory,
    Concurrent,
    Import,
    Settings,
)

__all__ = ["CASES", "CycleChatModel", "concurrent_agent"]

_PARTS: Final = (
    "from langchain_core.prompts import ChatPromptTemplate\n"
    "from langchain_core.output_parsers import StrOutputParser\n"
    "from langchain_core.runnables import RunnableLambda\n"
)

IMPORTS: Final = {
    "runnables": "from langchain_core.runnables import RunnableLambda, RunnableParallel, "
    "RunnablePassthrough",
    "parts": _PARTS,
    "openai": _PARTS + "from langchain_openai import ChatOpenAI\n",
    "agent": "from langchain_classic.agents import AgentExecutor, create_tool_calling_agent\n"
    "from langchain_core.prompts import ChatPromptTemplate\n"
    "from langchain_core.tools import tool\n"
    "from langchain_openai import ChatOpenAI\n"
    f"ChatOpenAI(model={MODEL!r}, api_key={API_KEY!r})\n",
}
"""What each import workload runs in a fresh interpreter (no equivalent of `import leanchain`)."""

ECHO: Final[BaseTool] = tool(echo_text)

TOOL_CALLING_PROMPT: Final = ChatPromptTemplate.from_messages(
    [
        ("system", TOOL_CALLING_SYSTEM),
        MessagesPlaceholder("chat_history", optional=True),
        ("human", "{input}"),
        MessagesPlaceholder("agent_scratchpad"),
    ]
)
REACT_PROMPT: Final = PromptTemplate.from_template(REACT_TEMPLATE)
STRUCTURED_CHAT_PROMPT: Final = ChatPromptTemplate.from_messages(
    [
        ("system", STRUCTURED_CHAT_SYSTEM),
        MessagesPlaceholder("chat_history", optional=True),
        ("human", STRUCTURED_CHAT_HUMAN),
    ]
)
XML_PROMPT: Final = PromptTemplate.from_template(
    XML_TEMPLATE, partial_variables={"chat_history": ""}
)


class CountingHandler(BaseCallbackHandler):
    """The callback handler: counts chain starts and ends."""

    def __init__(self) -> None:
        self.starts = 0
        self.ends = 0

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        """Count a start."""
        self.starts += 1

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """Count an end."""
        self.ends += 1


class CycleChatModel(BaseChatModel):
    """A minimal chat model: answers each call with the script's next reply (AIMessage fields)."""

    script: Any
    """The `Cycle` of replies."""

    @property
    def _llm_type(self) -> str:
        return "cycle"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = AIMessage(**self.script.answer(messages))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Offer the tools' OpenAI schemas on every call (the script ignores them)."""
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)


def _import(what: str) -> CaseFactory:
    return lambda _settings: Import(IMPORTS[what])


def _chain(n: int) -> Runnable[Any, Any]:
    chain: Runnable[Any, Any] = RunnableLambda(identity)
    for _ in range(n - 1):
        chain = chain | RunnableLambda(identity)
    return chain


def _invoke(n: int, traced: bool) -> CaseFactory:
    def build(settings: Settings) -> Case:
        chain = _chain(n)
        if not traced:
            return Call(lambda: chain.invoke(1), 1)
        config: Any = {"callbacks": [CountingHandler()]}
        return Call(lambda: chain.invoke(1, config), 1)

    return build


def _parallel(settings: Settings) -> Case:
    parallel: Runnable[Any, Any] = RunnableParallel({k: identity for k in "abcd"})
    return Call(lambda: parallel.invoke(1), dict.fromkeys("abcd", 1))


def _assign_1(settings: Settings) -> Case:
    assign = RunnablePassthrough.assign(b=double)
    value = {"a": 1}
    return Call(lambda: assign.invoke(value), {"a": 1, "b": 2})


def _assign_2(settings: Settings) -> Case:
    assign = RunnablePassthrough.assign(b=double, c=triple)
    value = {"a": 1}
    return Call(lambda: assign.invoke(value), {"a": 1, "b": 2, "c": 3})


def _batch(settings: Settings) -> Case:
    items = list(range(settings.batch_inputs))
    runnable = RunnableLambda(nap)
    return Call(lambda: runnable.batch(items, {"max_concurrency": 100}), items)


def _abatch(settings: Settings) -> Case:
    items = list(range(settings.batch_inputs))
    runnable = RunnableLambda(anap)
    loop = asyncio.new_event_loop()
    return Call(
        lambda: loop.run_until_complete(runnable.abatch(items, {"max_concurrency": 100})),
        items,
        loop.close,
    )


def _events(settings: Settings) -> Case:
    chain: Runnable[Any, Any] = RunnableLambda(aidentity)
    for _ in range(EVENT_STEPS - 1):
        chain = chain | RunnableLambda(aidentity)
    loop = asyncio.new_event_loop()

    def stream() -> AsyncIterator[Any]:
        return chain.astream_events(1, version="v2")

    return Call(
        lambda: loop.run_until_complete(count_events(stream)),
        (3 * EVENT_STEPS + 3) * EVENT_STREAMS,
        loop.close,
    )


def _stream(steps: int) -> CaseFactory:
    def build(settings: Settings) -> Case:
        n = settings.stream_chunks
        chain: Runnable[Any, Any] = RunnableGenerator(source)
        for _ in range(steps):
            chain = chain | RunnableGenerator(relay)
        return Call(lambda: deque(chain.stream(n), maxlen=1)[0], n - 1)

    return build


_AGENTS: Final[dict[str, Callable[[BaseChatModel], Any]]] = {
    "tool_calling": lambda llm: create_tool_calling_agent(llm, [ECHO], TOOL_CALLING_PROMPT),
    "react": lambda llm: create_react_agent(llm, [ECHO], REACT_PROMPT),
    "structured_chat": lambda llm: create_structured_chat_agent(
        llm, [ECHO], STRUCTURED_CHAT_PROMPT
    ),
    "xml": lambda llm: create_xml_agent(llm, [ECHO], XML_PROMPT),
}

REPLIES: Final[dict[str, tuple[dict[str, Any], dict[str, Any]]]] = {
    "tool_calling": (
        {
            "content": "",
            "tool_calls": [
                {"name": "echo_text", "args": TOOL_CALL_ARGS, "id": "call_1", "type": "tool_call"}
            ],
        },
        {"content": AGENT_OUTPUT},
    ),
    **{
        kind: ({"content": call}, {"content": answer})
        for kind, (call, answer) in TEXT_REPLIES.items()
    },
}


def _agent(kind: str) -> CaseFactory:
    def build(settings: Settings) -> Case:
        model = CycleChatModel(script=Cycle(*REPLIES[kind]))
        executor = AgentExecutor(agent=_AGENTS[kind](model), tools=[ECHO])
        return Call(lambda: executor.invoke({"input": AGENT_INPUT})["output"], AGENT_OUTPUT)

    return build


def _openai_executor(base_url: str, timeout: float | None = None) -> AgentExecutor:
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    model = ChatOpenAI(model=MODEL, api_key=SecretStr(API_KEY), base_url=base_url, timeout=timeout)
    agent = create_tool_calling_agent(model, [ECHO], TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=agent, tools=[ECHO])


def _openai_agent(settings: Settings) -> Case:
    server = start_server()
    executor = _openai_executor(server.openai_base_url)

    def run() -> Any:
        script_one_run(server)
        return executor.invoke({"input": AGENT_INPUT})["output"]

    return Call(run, AGENT_OUTPUT, server.stop)


def _openai_agent_async(settings: Settings) -> Case:
    server = start_server()
    executor = _openai_executor(server.openai_base_url)
    loop = asyncio.new_event_loop()

    async def run() -> Any:
        script_one_run(server)
        return (await executor.ainvoke({"input": AGENT_INPUT}))["output"]

    def close() -> None:
        loop.run_until_complete(loop.shutdown_asyncgens())  # the model's pooled connections
        loop.close()
        server.stop()

    return Call(lambda: loop.run_until_complete(run()), AGENT_OUTPUT, close)


def concurrent_agent(base_url: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The concurrent workload's agent: classic's AgentExecutor.ainvoke."""
    executor = _openai_executor(base_url, CONCURRENT_TIMEOUT)

    async def run() -> Any:
        return (await executor.ainvoke({"input": AGENT_INPUT}))["output"]

    async def close() -> None:
        return None

    return run, close


CASES: Final[dict[str, CaseFactory]] = {
    **{f"import_{what}_{kind}": _import(what) for what in IMPORTS for kind in ("time", "memory")},
    **{f"invoke_{n}": _invoke(n, traced=False) for n in (1, 10, 100)},
    **{f"invoke_{n}_cb": _invoke(n, traced=True) for n in (1, 10, 100)},
    "parallel_4": _parallel,
    "assign_1": _assign_1,
    "assign_2": _assign_2,
    "batch": _batch,
    "abatch": _abatch,
    "stream_1": _stream(1),
    "stream_3": _stream(3),
    "events_10": _events,
    **{f"agent_{kind}": _agent(kind) for kind in _AGENTS},
    "agent_openai": _openai_agent,
    "agent_openai_async": _openai_agent_async,
    "concurrent_time": lambda _settings: Concurrent("langchain"),
    "concurrent_memory": lambda _settings: Concurrent("langchain"),
}
"""Workload key → case factory."""
