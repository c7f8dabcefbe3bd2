"""The tool-calling scratchpad's `ToolMessage` fast path gives what the validated one gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from leanchain.agents.format_scratchpad import format_to_tool_messages
from leanchain.agents.schema import ToolAgentAction, observation_text
from leanchain.messages import AIMessage, ToolMessage

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)
_OBSERVATION = st.text() | st.sampled_from(["42", "héllo", "\ud800 lone", ""]) | _JSON
_ID = st.text(max_size=8)


def _tool_message(observation: Any, call_id: Any, name: str) -> Any:
    """The `ToolMessage` the scratchpad writes for one call's result."""
    said = AIMessage(content="", tool_calls=[{"name": name, "args": {}, "id": call_id}])
    action = ToolAgentAction(name, {}, "", [said], call_id)
    messages = format_to_tool_messages([(action, observation)])
    assert messages[0] is said
    return messages[1]


class _Opaque:
    def __str__(self) -> str:
        return "an object"


@given(_OBSERVATION, _ID, st.text(max_size=8))
def test_the_fast_tool_message_equals_the_validated_one(
    observation: Any, call_id: Any, name: str
) -> None:
    fast = _tool_message(observation, call_id, name)
    text = observation_text(observation)
    slow = ToolMessage(
        content=text, tool_call_id=call_id, name=name, additional_kwargs={"name": name}
    )
    assert type(fast) is ToolMessage
    assert fast == slow
    assert fast.model_dump() == slow.model_dump()
    assert repr(fast) == repr(slow)
    assert type(fast.content) is str


def test_an_object_observation_is_written_with_str() -> None:
    assert _tool_message(_Opaque(), "call_1", "t").content == "an object"
    assert _tool_message("\ud800", "call_1", "t").content == "\ufffd"
