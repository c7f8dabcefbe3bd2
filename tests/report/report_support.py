"""Runs to report on, and a parser of the page, shared by the report tests (no tests here)."""

from __future__ import annotations

import threading
from html.parser import HTMLParser
from typing import Any, Final

from hypothesis import strategies as st

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import dispatch_custom_event
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import UsageMetadata
from leanchain.report import ReportCallbackHandler
from leanchain.tools import BaseTool, ToolException, tool

INJECTED: Final = (
    '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">'
    "</pre></details><b>bold?</b>"
)
"""A tool result that would run script and break the page if it were not escaped."""

MODEL: Final = "gpt-4o-mini"
PRICES: Final = {MODEL: {"input": 0.15, "output": 0.6}}
QUESTION: Final = "Compare Paris and Rome, then read the page."


def usage(inputs: int, outputs: int) -> UsageMetadata:
    return {"input_tokens": inputs, "output_tokens": outputs, "total_tokens": inputs + outputs}


def agent_tools(barrier: threading.Barrier) -> list[BaseTool]:
    """Two lookups that must run at the same time, a page fetch, and a tool that fails."""

    @tool
    def lookup(city: str) -> str:
        """Facts about a city."""
        barrier.wait()  # both lookups are running now: the executor ran them concurrently
        return f"{city}: a capital"

    @tool
    def fetch_page(url: str) -> str:
        """The text of a web page."""
        dispatch_custom_event(
            "leanchain.loop_guard", {"action": "warn", "message": "fetch_page seen twice"}
        )
        return INJECTED

    @tool
    def broken(reason: str) -> str:
        """Always fails."""
        raise ToolException(f"broken on purpose: {reason}")

    return [lookup, fetch_page, broken]


def agent_script() -> list[Any]:
    return [
        ScriptedChatModel.tool_calls(
            ("lookup", {"city": "Paris"}),
            ("lookup", {"city": "Rome"}),
            content="I look both up.",
            usage=usage(120, 30),
        ),
        ScriptedChatModel.tool_call("fetch_page", {"url": "page"}, usage=usage(200, 12)),
        ScriptedChatModel.tool_call("broken", {"reason": "test"}, usage=usage(260, 9)),
        ScriptedChatModel.reply("Both are capitals. <b>Done</b>", usage=usage(300, 8)),
    ]


def run_agent(handler: ReportCallbackHandler) -> dict[str, Any]:
    """A tool-calling agent run: concurrent calls, a guard event, a failing tool, an answer."""
    barrier = threading.Barrier(2, timeout=10)
    tools = agent_tools(barrier)
    model = ScriptedChatModel(agent_script(), name=MODEL)
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, tools, TOOL_CALLING_PROMPT),
        tools=tools,
        handle_tool_errors=True,
    )
    return executor.invoke({"input": QUESTION}, {"callbacks": [handler]})


AGENT_STEPS: Final = [
    ("agent", "AgentExecutor", None),
    ("plan", "AgentRunnable", 0),
    ("model", MODEL, 1),
    ("tool", "lookup", 0),
    ("tool", "lookup", 0),
    ("plan", "AgentRunnable", 0),
    ("model", MODEL, 5),
    ("tool", "fetch_page", 0),
    ("plan", "AgentRunnable", 0),
    ("model", MODEL, 8),
    ("tool", "broken", 0),
    ("plan", "AgentRunnable", 0),
    ("model", MODEL, 11),
]
"""(kind, name, parent) of each step of `run_agent`, in order."""

TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h4", "p", "button",
    "ol", "ul", "li", "a", "main", "section", "span", "div", "details", "summary", "pre", "script",
}  # fmt: skip
ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class", "id", "style", "href",
              "type", "title"}  # fmt: skip


class Page(HTMLParser):
    """The tags, attributes and ``<pre>`` texts of a page."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.pres: list[str] = []
        self.scripts: list[str] = []
        self._in: str | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag in ("pre", "script"):
            self._in = tag
            (self.pres if tag == "pre" else self.scripts).append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "pre":
            self.pres[-1] += data
        elif self._in == "script":
            self.scripts[-1] += data


TEXT = st.lists(
    st.characters(codec="utf-8", exclude_characters="\r\x00")
    | st.sampled_from(["<", ">", "&", '"', "'", "</pre>", "<script>", "-->", "<!--", "&amp;"]),
    max_size=20,
).map("".join)
"""Texts with the characters and pieces that would become markup if they were not escaped."""
