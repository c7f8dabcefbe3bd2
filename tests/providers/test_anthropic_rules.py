"""Property: any agent trajectory normalises to a request that keeps the Messages API's rules.

The validator mirrors what the API answers 400 to (pitfalls.md 1C-1): roles that do not
alternate, a first turn that is not the user's, empty text blocks, a ``tool_use`` not answered
by a ``tool_result`` at the start of the very next message, and results that answer nothing.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from leanchain.providers._anthropic_convert import to_anthropic_messages

texts = st.sampled_from(["", "ok", "Let me check.", "done"])


@st.composite
def trajectories(draw: st.DrawFn) -> list[BaseMessage]:
    """System prompt(s), a question, then turns of tool calls with their results, or text."""
    messages: list[BaseMessage] = []
    if draw(st.booleans()):
        messages.append(SystemMessage(draw(texts)))
    messages.append(HumanMessage(draw(st.sampled_from(["Hi", "What is the weather?"]))))
    ids = iter(range(1000))
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["tools", "text", "human", "system"]))
        if kind == "tools":
            count = draw(st.integers(1, 3))
            calls = [
                {"name": "f", "args": {"n": n}, "id": f"call:{next(ids)}"} for n in range(count)
            ]
            messages.append(AIMessage(draw(texts), tool_calls=calls))
            results = [
                ToolMessage(
                    draw(texts),
                    tool_call_id=str(call["id"]),
                    status=draw(st.sampled_from(["success", "error"])),
                )
                for call in calls
            ]
            messages.extend(draw(st.permutations(results)))
            if draw(st.booleans()):
                messages.append(HumanMessage(draw(texts)))
        elif kind == "text":
            messages.append(AIMessage(draw(texts)))
        elif kind == "human":
            messages.append(HumanMessage(draw(texts)))
        else:
            messages.append(SystemMessage(draw(texts)))
    return messages


def blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def check_api_rules(wire: list[dict[str, Any]]) -> None:
    assert wire[0]["role"] == "user"
    for before, after in itertools.pairwise(wire):
        assert before["role"] != after["role"]
    for position, message in enumerate(wire):
        content = blocks(message)
        assert content
        for block in content:
            assert block["type"] != "text" or block["text"]
        results = [b["tool_use_id"] for b in content if b["type"] == "tool_result"]
        kinds = [b["type"] for b in content]
        # Results come first in their message...
        assert kinds[: len(results)] == ["tool_result"] * len(results)
        uses = [b["id"] for b in content if b["type"] == "tool_use"]
        if uses:
            assert message["role"] == "assistant"
            answer = wire[position + 1] if position + 1 < len(wire) else None
            assert answer is not None
            # ...and answer every tool_use of the turn before, exactly.
            answered = [b["tool_use_id"] for b in blocks(answer) if b["type"] == "tool_result"]
            assert sorted(answered) == sorted(uses)
        if results:
            previous = blocks(wire[position - 1])
            assert sorted(results) == sorted(b["id"] for b in previous if b["type"] == "tool_use")


@settings(max_examples=150, deadline=None)
@given(trajectories())
def test_any_trajectory_keeps_the_api_rules(messages: list[BaseMessage]) -> None:
    system, wire = to_anthropic_messages(messages)
    check_api_rules(wire)
    system_texts = [m.text for m in messages if isinstance(m, SystemMessage) and m.text]
    if not system_texts:
        assert system is None
    elif len(system_texts) == 1:
        assert system == system_texts[0]
    else:
        assert system == [{"type": "text", "text": text} for text in system_texts]
