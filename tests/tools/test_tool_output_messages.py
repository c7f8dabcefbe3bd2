"""A tool that answers a tool call with its own `ToolMessage`s: they come back as they are."""

from __future__ import annotations

import asyncio

from leanchain.messages import ToolMessage
from leanchain.tools import tool

CALL = {"type": "tool_call", "name": "lookup", "args": {"q": "x"}, "id": "c1"}


@tool
def lookup(q: str) -> list[ToolMessage]:
    """Look something up."""
    return [
        ToolMessage("first", tool_call_id="c1", name="lookup"),
        ToolMessage("second", tool_call_id="c1", name="lookup", artifact={"n": 2}),
    ]


EXPECTED = [
    ToolMessage("first", tool_call_id="c1", name="lookup"),
    ToolMessage("second", tool_call_id="c1", name="lookup", artifact={"n": 2}),
]


def test_a_list_of_tool_messages_is_not_collapsed_into_one() -> None:
    # LangChain returns such a list unchanged ("tool output" values); it used to become one
    # ToolMessage whose content was the list's repr.
    assert lookup.invoke(CALL) == EXPECTED
    assert asyncio.run(lookup.ainvoke(CALL)) == EXPECTED
    assert lookup.invoke({"q": "x"}) == EXPECTED


def test_other_lists_still_answer_as_one_message() -> None:
    @tool
    def mixed(q: str) -> list[object]:
        """Mixed."""
        return [ToolMessage("a", tool_call_id="c1"), "b"]

    @tool
    def empty(q: str) -> list[object]:
        """Empty."""
        return []

    assert mixed.invoke({**CALL, "name": "mixed"}) == ToolMessage(
        "[ToolMessage(content='a', tool_call_id='c1'), 'b']", tool_call_id="c1", name="mixed"
    )
    assert empty.invoke({**CALL, "name": "empty"}) == ToolMessage(
        [], tool_call_id="c1", name="empty"
    )
