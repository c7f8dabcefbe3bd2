"""``leanchain demo``: each agent type answers a multi-step question with the example tools.

Offline (the default) every agent type gets its own `demo_model`; with ``--model`` they all
share one real chat model. Either way the run is streamed through `Trace`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TextIO, TypeAlias

from leanchain.agents import (
    AgentExecutor,
    HumanApproval,
    LoopGuard,
    create_json_chat_agent,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    create_xml_agent,
)
from leanchain.agents.middleware import AgentMiddleware, ApprovalRequest
from leanchain.agents.prompts import (
    JSON_CHAT_PROMPT,
    REACT_PROMPT,
    STRUCTURED_CHAT_PROMPT,
    TOOL_CALLING_PROMPT,
    XML_PROMPT,
)
from leanchain.callbacks import BaseCallbackHandler
from leanchain.cli._demo_models import AGENT_TYPES, DEMO_QUESTION, demo_model, stuck_model
from leanchain.cli._demo_tools import demo_tools
from leanchain.cli._errors import CliError
from leanchain.cli._models import ModelSpec, make_model
from leanchain.cli._trace import Trace, use_colour
from leanchain.errors import (
    ApprovalError,
    AuthenticationError,
    ProviderConnectionError,
    ProviderError,
)
from leanchain.runnables import Runnable, RunnableConfig
from leanchain.tools import BaseTool

__all__ = ["build_agent", "build_executor", "run_demo"]

_Factory: TypeAlias = Callable[[Any, Sequence[BaseTool]], Runnable[Any, Any]]

_FACTORIES: Final[dict[str, tuple[str, _Factory]]] = {
    "tool-calling": (
        "create_tool_calling_agent",
        lambda llm, tools: create_tool_calling_agent(llm, tools, TOOL_CALLING_PROMPT),
    ),
    "react": (
        "create_react_agent",
        lambda llm, tools: create_react_agent(llm, tools, REACT_PROMPT),
    ),
    "structured-chat": (
        "create_structured_chat_agent",
        lambda llm, tools: create_structured_chat_agent(llm, tools, STRUCTURED_CHAT_PROMPT),
    ),
    "json-chat": (
        "create_json_chat_agent",
        lambda llm, tools: create_json_chat_agent(llm, tools, JSON_CHAT_PROMPT),
    ),
    "xml": (
        "create_xml_agent",
        lambda llm, tools: create_xml_agent(llm, tools, XML_PROMPT),
    ),
}


def build_agent(agent_type: str, llm: Any, tools: Sequence[BaseTool]) -> Runnable[Any, Any]:
    """The agent of `agent_type` over `llm`, with leanchain's ready-made prompt for it."""
    return _FACTORIES[agent_type][1](llm, tools)


def build_executor(
    agent_type: str, llm: Any, *, approve: Callable[[ApprovalRequest], Any] | None = None
) -> AgentExecutor:
    """An executor for `agent_type` over `llm` and the demo tools.

    Parsing errors are shown to the model (a real model sometimes slips out of the format),
    a `LoopGuard` warns, then stops, a model that repeats itself, and a run stops after ten
    steps. With `approve`, a `HumanApproval` asks it before every tool call.
    """
    tools = demo_tools()
    middleware: list[AgentMiddleware] = [LoopGuard()]
    if approve is not None:
        middleware.append(HumanApproval([t.name for t in tools], ask=approve))
    return AgentExecutor(
        agent=build_agent(agent_type, llm, tools),
        tools=tools,
        handle_parsing_errors=True,
        max_iterations=10,
        middleware=middleware,
    )


def run_demo(
    agent_types: Sequence[str],
    *,
    question: str | None,
    spec: ModelSpec | None,
    out: TextIO,
    callbacks: Sequence[BaseCallbackHandler] = (),
    loop: bool = False,
    approve: Callable[[ApprovalRequest], Any] | None = None,
) -> dict[str, str]:
    """Run each agent type on the question, tracing it to `out`; the final answers by type.

    `callbacks` observe every run (``--report`` passes a `ReportCallbackHandler`); each run
    is named after its agent type. With `loop` the offline model is stuck on its first tool
    call (``--loop``), to show `LoopGuard` warning it, then stopping the run. With `approve`
    (``--approve``) each tool call waits for its answer (`HumanApproval`).

    Raises:
        CliError: the offline model was asked another question, or a real model could not be
            set up or reached.
    """
    if spec is None and question is not None and question.strip() != DEMO_QUESTION:
        raise CliError(
            "the offline demo model can only answer its built-in question "
            f"({DEMO_QUESTION!r}); use --model PROVIDER:NAME to ask a real model your own"
        )
    asked = DEMO_QUESTION if question is None else question.strip()
    shared = None if spec is None else make_model(spec)
    model_name = "offline demo model" if spec is None else f"{spec.provider}:{spec.name}"
    colour = use_colour(out)
    answers: dict[str, str] = {}
    for number, agent_type in enumerate(agent_types):
        if number:
            out.write("\n")
        if shared is not None:
            llm: Any = shared
        else:
            llm = stuck_model(agent_type) if loop else demo_model(agent_type)
        executor = build_executor(agent_type, llm, approve=approve)
        trace = Trace(out, colour=colour)
        trace.header(f"{agent_type} agent ({_FACTORIES[agent_type][0]}, {model_name})", asked)
        config: RunnableConfig | None = None
        if callbacks:
            config = {"callbacks": list(callbacks), "run_name": f"{agent_type} agent"}
        try:
            for chunk in executor.stream({"input": asked}, config):
                trace.chunk(chunk)
                if "output" in chunk:
                    answers[agent_type] = str(chunk["output"])
        except AuthenticationError as exc:
            raise CliError(f"{model_name} rejected the API key: {exc}") from None
        except ProviderConnectionError as exc:
            url = spec.url if spec is not None else "?"
            raise CliError(f"cannot reach the model server at {url}: {exc}") from None
        except ProviderError as exc:
            raise CliError(f"{model_name} failed: {exc}") from None
        except ApprovalError as exc:
            raise CliError(f"the answer could not be used: {exc}") from None
    return answers


def agent_types_for(choice: str) -> tuple[str, ...]:
    """The agent types ``--agent`` selects (``all``: every one, in order)."""
    return AGENT_TYPES if choice == "all" else (choice,)
