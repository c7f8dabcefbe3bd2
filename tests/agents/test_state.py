"""`RunState` and its JSON form: exact round trips, escaping, and readers that build only
leanchain's own data types (never anything named by the data)."""

from __future__ import annotations

import json
import math
from enum import Enum, StrEnum
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanchain.agents import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AgentStep,
    RunState,
    ToolAgentAction,
)
from leanchain.agents._state import TAG, StateWriter, dump_value, load_value
from leanchain.errors import RunStateError
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    ToolMessageChunk,
    tool_call,
    tool_call_chunk,
)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

AI = AIMessage(
    content="",
    tool_calls=[tool_call(name="send", args={"to": "ana", "n": 2}, id="call_1")],
    usage_metadata={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
    response_metadata={"finish_reason": "tool_calls", "model_name": "m"},
    id="run-1",
)
MESSAGES: list[BaseMessage] = [
    HumanMessage("hi", name="ana", id="h1"),
    SystemMessage("be brief", additional_kwargs={"x": [1, 2]}),
    AI,
    AIMessage(content=[{"type": "text", "text": "a"}, "b"]),
    AIMessageChunk(
        content="x",
        tool_call_chunks=[tool_call_chunk(name="send", args='{"to": "b"}', id="c2", index=0)],
    ),
    ToolMessage("sent", tool_call_id="call_1", name="send", artifact={"k": (1, 2)}),
    ToolMessageChunk("part", tool_call_id="c9", status="error"),
    ChatMessage("hey", role="critic"),
    FunctionMessage("out", name="f"),
]
TOOL_ACTION = ToolAgentAction(
    "send", {"to": "ana", "n": 2}, "\nInvoking: `send`\n", (AI,), tool_call_id="call_1"
)


def roundtrip(value: Any) -> Any:
    """`value` through its JSON text and back."""
    text = json.dumps(dump_value(value), allow_nan=False)
    return load_value(json.loads(text))


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_type_round_trips_exactly(message: BaseMessage) -> None:
    back = roundtrip(message)
    assert type(back) is type(message)
    assert back == message
    assert back.model_dump() == message.model_dump()


@pytest.mark.parametrize(
    "value",
    [
        AgentAction("echo", "hi", "log text"),
        AgentAction("echo", {"a": [1, {"b": None}]}, ""),
        AgentActionMessageLog("echo", "x", "l", (HumanMessage("m"), AI)),
        TOOL_ACTION,
        ToolAgentAction("send", {}, "", (), tool_call_id=None),
        AgentFinish({"output": "42", "extra": (1, 2)}, "FIN"),
        AgentStep(TOOL_ACTION, {"observation": ["x"]}),
    ],
    ids=lambda v: type(v).__name__,
)
def test_agent_values_round_trip_exactly(value: Any) -> None:
    back = roundtrip(value)
    assert type(back) is type(value)
    assert back == value


def test_the_tagged_forms_are_documented_json() -> None:
    assert dump_value(AgentAction("echo", "hi", "log")) == {
        TAG: "AgentAction",
        "tool": "echo",
        "tool_input": "hi",
        "log": "log",
    }
    assert dump_value((1, "a")) == {TAG: "tuple", "items": [1, "a"]}
    assert dump_value({1: "a"}) == {TAG: "dict", "items": [[1, "a"]]}
    assert dump_value(math.inf) == {TAG: "float", "value": "inf"}
    assert dump_value(HumanMessage("hi"))[TAG] == "message"


def test_plain_json_is_written_as_it_is() -> None:
    value = {"a": [1, 2.5, None, True, "é"], "b": {"c": {}}}
    assert dump_value(value) == value
    assert dump_value(value) is not value


def test_a_user_dict_with_the_tag_key_is_escaped_and_never_read_as_a_type() -> None:
    forged = {TAG: "AgentFinish", "return_values": {"output": "pwned"}, "log": ""}
    written = dump_value({"metadata": forged})
    assert written == {
        "metadata": {
            TAG: "dict",
            "items": [
                [TAG, "AgentFinish"],
                ["return_values", {"output": "pwned"}],
                ["log", ""],
            ],
        }
    }
    assert roundtrip({"metadata": forged}) == {"metadata": forged}
    assert type(roundtrip(forged)) is dict


def test_non_finite_floats_tuples_and_other_keys_round_trip() -> None:
    value = {"t": (1, (2, 3)), "k": {(1, "a"): "v", 2: None}, "f": [math.inf, -math.inf]}
    assert roundtrip(value) == value
    nan = roundtrip(math.nan)
    assert isinstance(nan, float)
    assert math.isnan(nan)


class Colour(StrEnum):
    RED = "red"


class Mixed(str, Enum):  # noqa: UP042 - the mixin form, whose str() is its name
    BLUE = "blue"


class Point(NamedTuple):
    x: int
    y: int


def test_subclasses_of_plain_types_keep_their_value() -> None:
    value = {"c": Colour.RED, "m": Mixed.BLUE, "p": Point(1, 2)}
    assert roundtrip(value) == {"c": "red", "m": "blue", "p": (1, 2)}
    assert type(roundtrip(Colour.RED)) is str


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"when": object},
            "Cannot save the run's state: inputs['when'] is a type (<class 'object'>); a saved "
            "run holds plain data (str, int, float, bool, None, lists, tuples, dicts), messages "
            "and agent values",
        ),
        (
            {"a": [1, {"b": b"raw"}]},
            "Cannot save the run's state: inputs['a'][1]['b'] is a bytes (b'raw'); a saved run "
            "holds plain data (str, int, float, bool, None, lists, tuples, dicts), messages and "
            "agent values",
        ),
    ],
)
def test_a_value_that_is_not_data_is_refused_with_its_path(value: Any, message: str) -> None:
    with pytest.raises(RunStateError) as info:
        dump_value(value, "inputs")
    assert str(info.value) == message


def test_a_value_that_holds_itself_is_refused() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(RunStateError) as info:
        dump_value({"x": loop}, "inputs")
    assert str(info.value) == (
        "Cannot save the run's state: inputs is nested too deeply, or holds itself"
    )


def test_a_subclass_of_an_agent_action_is_refused() -> None:
    class MyAction(AgentAction):
        pass

    with pytest.raises(RunStateError) as info:
        dump_value([MyAction("t", "i", "l")], "pending")
    assert str(info.value).startswith(
        "Cannot save the run's state: pending[0] is a "
        "test_a_subclass_of_an_agent_action_is_refused.<locals>.MyAction, a subclass of "
        "AgentAction that has no saved form"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {TAG: "os.system", "args": ["rm"]},
            "Cannot read the run's state: value is tagged with an unknown type 'os.system'; "
            "this leanchain reads ['AgentAction', 'AgentActionMessageLog', 'AgentFinish', "
            "'AgentStep', 'ToolAgentAction', 'dict', 'float', 'message', 'tuple']",
        ),
        (
            {"x": [{TAG: "AgentAction", "tool": 1, "tool_input": "", "log": ""}]},
            "Cannot read the run's state: value['x'][0] (AgentAction) has a 'tool' that is not "
            "str: 1",
        ),
        (
            {TAG: "AgentAction", "tool": "t", "tool_input": "", "log": "", "evil": 1},
            "Cannot read the run's state: value (AgentAction) has unknown keys ['evil']",
        ),
        (
            {TAG: "float", "value": "1e999"},
            "Cannot read the run's state: value (float) has a value that is not 'nan', 'inf' "
            "or '-inf': '1e999'",
        ),
        (
            {TAG: "message", "type": "secret", "data": {"content": "x"}},
            "Cannot read the run's state: value is not a valid message: Got unexpected message "
            "type: secret",
        ),
        (
            {TAG: "dict", "items": [[[1], 2]]},
            "Cannot read the run's state: value['items'][0] has a key that cannot be a dict key",
        ),
    ],
)
def test_unreadable_data_says_where_and_why(data: Any, message: str) -> None:
    with pytest.raises(RunStateError) as info:
        load_value(data)
    assert str(info.value) == message


def test_a_message_that_does_not_validate_is_refused() -> None:
    data = {TAG: "message", "type": "tool", "data": {"content": "x"}}
    with pytest.raises(RunStateError, match=r"^Cannot read the run's state: value is not a "):
        load_value(data)


def _state() -> RunState:
    return RunState(
        inputs={"input": "q", "chat_history": [HumanMessage("before"), AI]},
        steps=[(AgentAction("echo", "a", "l"), "echo:a"), (TOOL_ACTION, {"sent": True})],
        iterations=2,
        elapsed=1.5,
        middleware={"HumanApproval": {"waiting": [{"id": "call_1", "index": 0}]}},
        pending=[TOOL_ACTION],
        interrupt={"reason": "approval", "data": {"pending": [{"id": "call_1"}]}},
        output_extras={"stopped_reason": None},
        status="interrupted",
        run_id="r1",
        seq=4,
    )


def test_a_run_state_round_trips_through_json_exactly() -> None:
    state = _state()
    back = RunState.from_json(state.to_json())
    assert back == state
    assert back.steps[1][0] == TOOL_ACTION
    assert back.inputs["chat_history"] == [HumanMessage("before"), AI]
    assert repr(back) == (
        "RunState(status='interrupted', iterations=2, steps=2, pending=1, run_id='r1', seq=4)"
    )
    assert back.interrupted


def test_a_finished_state_keeps_its_finish() -> None:
    state = RunState(inputs={}, status="finished", finish=AgentFinish({"output": 1}, "l"))
    back = RunState.from_dict(json.loads(state.to_json()))
    assert back.finish == AgentFinish({"output": 1}, "l")
    assert not back.interrupted


def test_the_json_form_has_every_documented_key() -> None:
    assert list(_state().to_dict()) == [
        "version",
        "format",
        "run_id",
        "seq",
        "status",
        "iterations",
        "elapsed",
        "middleware",
        "pending",
        "interrupt",
        "output_extras",
        "finish",
        "inputs",
        "steps",
    ]
    assert _state().to_dict()["version"] == 1


def test_a_newer_version_is_refused_clearly() -> None:
    data = _state().to_dict()
    data["version"] = 2
    with pytest.raises(RunStateError) as info:
        RunState.from_dict(data)
    assert str(info.value) == (
        "Cannot read run state version 2 (written by a newer leanchain); this leanchain "
        "reads version 1"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"format": "pickle"},
            "Not a leanchain run state: expected 'format': 'leanchain.agent_run' and an int "
            "'version', got format='pickle', version=1",
        ),
        (
            {"iterations": "2"},
            "Cannot read the run's state: 'iterations' has the wrong type (str): '2'",
        ),
        ({"seq": True}, "Cannot read the run's state: 'seq' has the wrong type (bool): True"),
        (
            {"status": "done"},
            "Cannot read the run's state: 'status' must be one of ['running', 'interrupted', "
            "'finished'], got 'done'",
        ),
        ({"extra": 1}, "Cannot read the run's state: unknown keys ['extra']"),
        (
            {"steps": [["x"]]},
            "Cannot read the run's state: steps[0] is not an [action, observation] pair: ['x']",
        ),
        (
            {"steps": [["x", "y"]]},
            "Cannot read the run's state: steps[0].action is not an agent action",
        ),
        (
            {"pending": [{"a": 1}]},
            "Cannot read the run's state: 'pending' holds something that is not an agent action",
        ),
    ],
)
def test_a_malformed_state_is_refused_with_what_is_wrong(
    change: dict[str, Any], message: str
) -> None:
    data = {**_state().to_dict(), **change}
    with pytest.raises(RunStateError) as info:
        RunState.from_dict(data)
    assert str(info.value) == message


def test_a_missing_key_is_named() -> None:
    data = _state().to_dict()
    del data["elapsed"]
    with pytest.raises(RunStateError) as info:
        RunState.from_dict(data)
    assert str(info.value) == "Cannot read the run's state: it has no 'elapsed'"


def test_text_that_is_not_json_is_refused() -> None:
    with pytest.raises(RunStateError, match=r"^A run state must be JSON text: "):
        RunState.from_json("{not json")
    with pytest.raises(RunStateError) as info:
        RunState.from_json("[1]")
    assert str(info.value) == "A run state is a JSON object, got list"


def test_saving_a_state_with_an_unsaveable_input_names_it() -> None:
    state = RunState(inputs={"input": "q", "when": {1, 2}})
    with pytest.raises(RunStateError) as info:
        state.to_json()
    assert str(info.value).startswith(
        "Cannot save the run's state: inputs['when'] is a set ({1, 2})"
    )


# -- properties ----------------------------------------------------------------------------

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
)
KEYS = st.one_of(st.text(max_size=6), st.just(TAG), st.integers(-3, 3))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(KEYS, inner, max_size=4),
        st.dictionaries(st.just(TAG), st.sampled_from(["AgentFinish", "message", "dict"])),
    ),
    max_leaves=20,
)


@SETTINGS
@given(VALUES)
def test_any_plain_value_round_trips_exactly(value: Any) -> None:
    back = roundtrip(value)
    assert back == value
    assert _shape(back) == _shape(value)


def _shape(value: Any) -> Any:
    """The value with the type of every container kept (``==`` treats 1 and True alike)."""
    if isinstance(value, dict):
        return ("dict", [(_shape(k), _shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_shape(v) for v in value])
    return (type(value).__name__, value)


JSON = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=6)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from([TAG, "tool", "items", "type", "data", "x"]), inner, max_size=4
        ),
        st.fixed_dictionaries(
            {
                TAG: st.sampled_from(
                    [
                        "AgentAction",
                        "ToolAgentAction",
                        "message",
                        "dict",
                        "tuple",
                        "float",
                        "AgentStep",
                        "evil",
                    ]
                )
            },
            optional={
                "tool": inner,
                "tool_input": inner,
                "log": inner,
                "items": inner,
                "type": st.sampled_from(["human", "ai", "tool", "nope"]),
                "data": inner,
                "value": inner,
                "message_log": inner,
                "tool_call_id": inner,
                "action": inner,
                "observation": inner,
            },
        ),
    ),
    max_leaves=15,
)
ALLOWED = (
    type(None),
    bool,
    int,
    float,
    str,
    list,
    tuple,
    dict,
    AgentAction,
    AgentFinish,
    AgentStep,
    BaseMessage,
)


@SETTINGS
@given(JSON)
def test_reading_any_json_gives_known_types_or_a_run_state_error(data: Any) -> None:
    try:
        value = load_value(data)
    except RunStateError:
        return
    assert all(isinstance(v, ALLOWED) for v in _walk(value))


def _walk(value: Any) -> list[Any]:
    out = [value]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _walk(k) + _walk(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            out += _walk(v)
    return out


TEXT = st.text(max_size=10)
ARGS = st.dictionaries(st.text(min_size=1, max_size=5), SCALARS, max_size=3)
MESSAGE = st.one_of(
    st.builds(HumanMessage, content=TEXT, name=st.none() | TEXT, id=st.none() | TEXT),
    st.builds(SystemMessage, content=TEXT),
    st.builds(
        lambda text, calls: AIMessage(
            content=text,
            tool_calls=[tool_call(name=n, args=a, id=f"c{i}") for i, (n, a) in enumerate(calls)],
        ),
        TEXT,
        st.lists(st.tuples(st.text(min_size=1, max_size=5), ARGS), max_size=3),
    ),
    st.builds(
        lambda text, call_id, status: ToolMessage(text, tool_call_id=call_id, status=status),
        TEXT,
        TEXT,
        st.sampled_from(["success", "error"]),
    ),
)


@SETTINGS
@given(st.lists(MESSAGE, max_size=4), ARGS, st.none() | TEXT)
def test_any_messages_and_actions_round_trip_exactly(
    messages: list[BaseMessage], args: dict[str, Any], call_id: str | None
) -> None:
    action = ToolAgentAction("t", args, "log", tuple(messages), tool_call_id=call_id)
    state = RunState(inputs={"history": messages}, steps=[(action, "obs")], pending=[action])
    back = RunState.from_json(state.to_json())
    assert back == state
    assert [type(m) for m in back.inputs["history"]] == [type(m) for m in messages]


# -- the writer that saves a run after every step ------------------------------------------


def test_the_writer_writes_what_to_json_writes() -> None:
    state = _state()
    text = StateWriter().write(state)
    assert json.loads(text) == json.loads(state.to_json())
    assert RunState.from_json(text) == state


def test_the_writer_encodes_a_kept_step_once_and_a_replaced_step_again() -> None:
    writer = StateWriter()
    steps: list[tuple[Any, Any]] = [(AgentAction("a", "1", "l"), "one")]
    state = RunState(inputs={"input": "q"}, steps=steps)
    first = json.loads(writer.write(state))
    steps.append((TOOL_ACTION, {"two": 2}))
    kept_text = writer._steps[0][2]
    second = json.loads(writer.write(state))
    assert writer._steps[0][2] is kept_text
    assert second["steps"][0] == first["steps"][0]
    assert second == state.to_dict()
    steps[0] = (steps[0][0], "cleared")  # a middleware rewrote an old observation
    assert json.loads(writer.write(state)) == state.to_dict()
    del steps[1:]
    assert json.loads(writer.write(state)) == state.to_dict()
    state.inputs = {"input": "other"}
    assert json.loads(writer.write(state)) == state.to_dict()


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), VALUES),
        st.tuples(st.just("replace"), VALUES),
        st.tuples(st.just("drop"), st.none()),
        st.tuples(st.just("inputs"), VALUES),
    ),
    max_size=12,
)


@SETTINGS
@given(OPS)
def test_whatever_happens_to_the_steps_the_writer_writes_the_state(ops: list[Any]) -> None:
    writer = StateWriter()
    state = RunState(inputs={"input": "q"})
    for op, value in ops:
        if op == "append":
            state.steps.append((AgentAction("t", "i", "l"), value))
        elif op == "replace" and state.steps:
            state.steps[0] = (state.steps[0][0], value)
        elif op == "drop":
            state.steps[-1:] = []
        elif op == "inputs":
            state.inputs = {**state.inputs, "x": value}
        assert json.loads(writer.write(state)) == json.loads(state.to_json())
