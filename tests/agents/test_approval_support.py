"""Agents, tools and runners for the human-approval and durable-run tests (no tests here).

Every agent type is built over a `ScriptedChatModel` by a `Kind`, which also knows how that
agent's model asks for a tool call and gives its answer, so that one test body covers all.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from leanchain.agents import (
    AgentExecutor,
    create_json_chat_agent,
    create_openai_functions_agent,
    create_openai_tools_agent,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    create_xml_agent,
)
from leanchain.agents.prompts import (
    JSON_CHAT_PROMPT,
    REACT_PROMPT,
    STRUCTURED_CHAT_PROMPT,
    TOOL_CALLING_PROMPT,
    XML_PROMPT,
)
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage
from leanchain.runnables import Runnable, RunnableConfig
from leanchain.tools import BaseTool, StructuredTool

Mode = Literal["sync", "async"]
MODES: tuple[Mode, ...] = ("sync", "async")


def _react(tool: str, args: dict[str, Any]) -> str:
    return f"Thought: I need {tool}\nAction: {tool}\nAction Input: {next(iter(args.values()))}"


def _blob(tool: str, args: dict[str, Any]) -> str:
    blob = json.dumps({"action": tool, "action_input": args})
    return f"Thought: go\nAction:\n```\n{blob}\n```"


def _json_chat(tool: str, args: dict[str, Any]) -> str:
    return f"```json\n{json.dumps({'action': tool, 'action_input': args})}\n```"


def _xml(tool: str, args: dict[str, Any]) -> str:
    return f"<tool>{tool}</tool><tool_input>{next(iter(args.values()))}"


def _function_call(tool: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(
        content="",
        additional_kwargs={"function_call": {"name": tool, "arguments": json.dumps(args)}},
    )


@dataclass(frozen=True)
class Kind:
    """One agent type: how to build it, how its model calls a tool and how it answers."""

    name: str
    build: Callable[[ScriptedChatModel, list[BaseTool]], Runnable[Any, Any]]
    call: Callable[[str, dict[str, Any]], Any]
    answer: Callable[[str], Any]
    text_input: bool
    """Its actions carry the tool input as text (one-argument tools)."""
    multi: bool = False
    """One reply may call several tools."""

    def calls(self, *calls: tuple[str, dict[str, Any]]) -> Any:
        """One reply calling several tools (agents with `multi` only)."""
        assert self.multi
        return ScriptedChatModel.tool_calls(*calls)

    def input_of(self, args: dict[str, Any]) -> Any:
        """The ``tool_input`` an action of this agent has for `args`."""
        return next(iter(args.values())) if self.text_input else args


KINDS = [
    Kind(
        "tool-calling",
        lambda llm, ts: create_tool_calling_agent(llm, ts, TOOL_CALLING_PROMPT),
        lambda t, a: ScriptedChatModel.tool_call(t, a),
        lambda a: a,
        text_input=False,
        multi=True,
    ),
    Kind(
        "openai-tools",
        lambda llm, ts: create_openai_tools_agent(llm, ts, TOOL_CALLING_PROMPT),
        lambda t, a: ScriptedChatModel.tool_call(t, a),
        lambda a: a,
        text_input=False,
        multi=True,
    ),
    Kind(
        "openai-functions",
        lambda llm, ts: create_openai_functions_agent(llm, ts, TOOL_CALLING_PROMPT),
        _function_call,
        lambda a: a,
        text_input=False,
    ),
    Kind(
        "react",
        lambda llm, ts: create_react_agent(llm, ts, REACT_PROMPT),
        _react,
        lambda a: f"Thought: I know it\nFinal Answer: {a}",
        text_input=True,
    ),
    Kind(
        "structured-chat",
        lambda llm, ts: create_structured_chat_agent(llm, ts, STRUCTURED_CHAT_PROMPT),
        _blob,
        lambda a: f'Action:\n```\n{{"action": "Final Answer", "action_input": "{a}"}}\n```',
        text_input=False,
    ),
    Kind(
        "json-chat",
        lambda llm, ts: create_json_chat_agent(llm, ts, JSON_CHAT_PROMPT),
        _json_chat,
        lambda a: f'```json\n{{"action": "Final Answer", "action_input": "{a}"}}\n```',
        text_input=False,
    ),
    Kind(
        "xml",
        lambda llm, ts: create_xml_agent(llm, ts, XML_PROMPT),
        _xml,
        lambda a: f"<final_answer>{a}</final_answer>",
        text_input=True,
    ),
]
IDS = [k.name for k in KINDS]
MULTI = [k for k in KINDS if k.multi]


@dataclass
class Ledger:
    """What the tools did, in order: ``(tool, argument)`` per call that really ran."""

    ran: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, tool: str, value: str) -> None:
        with self.lock:
            self.ran.append((tool, value))


def make_tools(ledger: Ledger) -> list[BaseTool]:
    """``send_mail(to)`` (the one to gate), ``lookup(text)`` and ``pay(amount)``."""

    def send_mail(to: str) -> str:
        """Send an email to someone."""
        ledger.note("send_mail", to)
        return f"sent to {to}"

    def lookup(text: str) -> str:
        """Look something up."""
        ledger.note("lookup", text)
        return f"found {text}"

    def pay(amount: int) -> str:
        """Pay an amount."""
        ledger.note("pay", str(amount))
        return f"paid {amount}"

    return [
        StructuredTool.from_function(send_mail),
        StructuredTool.from_function(lookup),
        StructuredTool.from_function(pay),
    ]


def build(
    kind: Kind, script: Sequence[Any], ledger: Ledger, **kwargs: Any
) -> tuple[AgentExecutor, ScriptedChatModel]:
    """An executor of `kind` playing `script`, over `make_tools(ledger)`."""
    model = ScriptedChatModel(list(script))
    tools = make_tools(ledger)
    agent = kind.build(model, tools)
    return AgentExecutor(agent=agent, tools=tools, **kwargs), model


async def run(
    executor: AgentExecutor,
    input: Any,
    mode: Mode,
    config: RunnableConfig | None = None,
) -> dict[str, Any]:
    """`invoke` or `ainvoke`, by mode."""
    if mode == "sync":
        return executor.invoke(input, config)
    return await executor.ainvoke(input, config)


async def resume(
    executor: AgentExecutor,
    state: Any,
    decisions: dict[str, Any] | None,
    mode: Mode,
    config: RunnableConfig | None = None,
) -> dict[str, Any]:
    """`resume` or `aresume`, by mode."""
    if mode == "sync":
        return executor.resume(state, decisions, config)
    return await executor.aresume(state, decisions, config)


def thread(name: str) -> RunnableConfig:
    """The config of a run saved under thread `name`."""
    return {"configurable": {"thread_id": name}}


def observations(result: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(tool, tool_input, observation)`` of each step of a result."""
    return [(a.tool, a.tool_input, obs) for a, obs in result["intermediate_steps"]]
