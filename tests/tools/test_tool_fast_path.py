"""The quick call: an unobserved call with plain arguments gives what the general way gives.

`FunctionTool._quick_call` (and its async twin) skips the general steps (`_injections`,
`_call`, `_to_args_and_kwargs`, `validate_args`) when no handler listens and the input has
exactly the schema's plain fields with their exact types. Every test here runs the same call
both ways (`general_way` turns the quick call off) and asserts the same result, error, config
and context; the last tests pin which calls take the quick way.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator
from tools_support import ToolRecorder

from leanchain.errors import ToolException
from leanchain.messages import ToolMessage
from leanchain.runnables import RunnableConfig
from leanchain.runnables.config import current_config
from leanchain.tools import BaseTool, InjectedToolCallId, StructuredTool, Tool, tool
from leanchain.tools._function import FunctionTool

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def general_way() -> Iterator[None]:
    """Turn the quick call off: every call takes the general steps."""
    saved = FunctionTool.__dict__["_quick_call"], FunctionTool.__dict__["_aquick_call"]
    setattr(FunctionTool, "_quick_call", BaseTool._quick_call)  # noqa: B010
    setattr(FunctionTool, "_aquick_call", BaseTool._aquick_call)  # noqa: B010
    try:
        yield
    finally:
        setattr(FunctionTool, "_quick_call", saved[0])  # noqa: B010
        setattr(FunctionTool, "_aquick_call", saved[1])  # noqa: B010


def _seen(value: Any) -> Any:
    """A value with the types of its parts, so that ``1 == 1.0 == True`` tells them apart."""
    if isinstance(value, ToolMessage):
        return ("ToolMessage", value.model_dump())
    if isinstance(value, dict):
        return {key: _seen(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_seen(item) for item in value])
    return (type(value).__name__, repr(value))


def outcome(call: Callable[[], Any]) -> Any:
    """What a call gives: its value (typed), or its error's type and message."""
    try:
        return ("value", _seen(call()))
    except Exception as exc:
        return ("error", type(exc).__name__, str(exc))


async def aoutcome(call: Callable[[], Awaitable[Any]]) -> Any:
    """`outcome` of an async call."""
    try:
        return ("value", _seen(await call()))
    except Exception as exc:
        return ("error", type(exc).__name__, str(exc))


def both_ways(call: Callable[[], Any]) -> Any:
    """The outcome of `call`, asserted equal by the quick and the general way."""
    quick = outcome(call)
    with general_way():
        general = outcome(call)
    assert quick == general
    return quick


async def aboth_ways(call: Callable[[], Awaitable[Any]]) -> Any:
    """Async `both_ways`."""
    quick = await aoutcome(call)
    with general_way():
        general = await aoutcome(call)
    assert quick == general
    return quick


# -- any schema, any input ------------------------------------------------------------------

FIELD_TYPES: dict[str, Any] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "described str": Annotated[str, "a description"],
    "short str": Annotated[str, Field(max_length=3)],
    "optional int": int | None,
}
CONFIGS = [
    ConfigDict(arbitrary_types_allowed=True),
    ConfigDict(extra="forbid"),
    ConfigDict(strict=True),
    ConfigDict(str_strip_whitespace=True),
]
VALUES = st.one_of(
    st.text(max_size=4),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 3), max_size=2),
)
EXACT_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "str": st.sampled_from(["", "hi", "raise", " x "]),
    "int": st.integers(-(10**20), 10**20),
    "float": st.floats(allow_nan=False),
    "bool": st.booleans(),
    "described str": st.text(max_size=4),
    "short str": st.text(max_size=5),
    "optional int": st.one_of(st.none(), st.integers()),
}
CALL_FORMS = ["run", "run labelled", "run as message", "invoke", "invoke call"]


@st.composite
def tools_and_inputs(draw: st.DrawFn) -> tuple[type[BaseModel], dict[str, Any], dict[str, Any]]:
    kinds = draw(st.lists(st.sampled_from(sorted(FIELD_TYPES)), min_size=1, max_size=3))
    fields: dict[str, Any] = {}
    for i, kind in enumerate(kinds):
        default = draw(st.sampled_from([..., "d", 0]))
        fields[f"f{i}"] = (FIELD_TYPES[kind], Field() if default is ... else Field(default))
    model = create_model("Args", __config__=draw(st.sampled_from(CONFIGS)), **fields)
    keys = st.sampled_from([*fields, "extra"])
    # Half the inputs have exactly the fields, with values of each field's own type: the
    # inputs the quick call takes when the schema is plain.
    exact_values = {name: EXACT_VALUES[kind] for name, kind in zip(fields, kinds, strict=True)}
    exact = st.fixed_dictionaries(exact_values)
    # A string input is read as the first field's value (the quick way when that is the one
    # field, a plain str); a str subclass must take the general way.
    strings = st.one_of(st.text(max_size=4), st.text(max_size=4).map(_Text))
    tool_input = draw(st.one_of(st.dictionaries(keys, VALUES, max_size=4), exact, strings))
    options = {
        "handle_validation_error": draw(st.sampled_from([False, True, "bad input"])),
        "response_format": draw(st.sampled_from(["content", "content_and_artifact"])),
    }
    return model, tool_input, options


class _Text(str):
    """A str subclass: pydantic makes it a plain str, so it cannot be handed on as it is."""

    __slots__ = ()


def _report(**kwargs: Any) -> Any:
    if "f0" in kwargs and kwargs["f0"] == "raise":
        raise ToolException("asked to fail")
    return [(key, type(value).__name__, repr(value)) for key, value in kwargs.items()]


def _reply(form: str, target: BaseTool, tool_input: dict[str, Any]) -> Callable[[], Any]:
    call = {"name": target.name, "args": tool_input, "id": "c1", "type": "tool_call"}
    calls: dict[str, Callable[[], Any]] = {
        "run": lambda: target.run(tool_input),
        "run labelled": lambda: target.run(
            tool_input, config={}, tool_call_id="c1", as_message=False
        ),
        "run as message": lambda: target.run(tool_input, tool_call_id="c1"),
        "invoke": lambda: target.invoke(tool_input),
        "invoke call": lambda: target.invoke(call),
    }
    return calls[form]


@SETTINGS
@given(tools_and_inputs(), st.sampled_from(CALL_FORMS))
def test_any_call_of_any_schema_is_the_same_both_ways(
    case: tuple[type[BaseModel], dict[str, Any], dict[str, Any]], form: str
) -> None:
    model, tool_input, options = case

    def report(**kwargs: Any) -> Any:
        found = _report(**kwargs)
        return (found, "artifact") if options["response_format"] != "content" else found

    target = StructuredTool.from_function(
        report, name="report", description="Report.", args_schema=model, **options
    )
    both_ways(_reply(form, target, tool_input))


@SETTINGS
@given(tools_and_inputs(), st.sampled_from(["arun", "arun labelled", "ainvoke call"]))
def test_any_async_call_of_any_schema_is_the_same_both_ways(
    case: tuple[type[BaseModel], dict[str, Any], dict[str, Any]], form: str
) -> None:
    model, tool_input, options = case

    async def areport(**kwargs: Any) -> Any:
        found = _report(**kwargs)
        return (found, "artifact") if options["response_format"] != "content" else found

    target = StructuredTool.from_function(
        coroutine=areport, name="report", description="Report.", args_schema=model, **options
    )
    call = {"name": "report", "args": tool_input, "id": "c1", "type": "tool_call"}
    calls: dict[str, Callable[[], Awaitable[Any]]] = {
        "arun": lambda: target.arun(tool_input),
        "arun labelled": lambda: target.arun(
            tool_input, config={}, tool_call_id="c1", as_message=False
        ),
        "ainvoke call": lambda: target.ainvoke(call),
    }
    asyncio.run(aboth_ways(calls[form]))


# -- what the function sees -----------------------------------------------------------------


def test_the_config_parameter_and_the_context_are_the_same_both_ways() -> None:
    def look(q: str, config: RunnableConfig) -> Any:
        return dict(config), current_config()

    target = StructuredTool.from_function(
        look, description="Look.", tags=["own"], metadata={"tool": "look"}
    )
    config: RunnableConfig = {"tags": ["caller"], "configurable": {"user": "ann"}}
    seen = both_ways(lambda: target.run({"q": "a"}, config=config, as_message=False))
    given = {
        "tags": ("list", [("str", "'caller'"), ("str", "'own'")]),
        "configurable": {"user": ("str", "'ann'")},
        "metadata": {"tool": ("str", "'look'")},
    }
    # The function gets LangChain's full config; the context holds the run's lean one.
    assert seen == ("value", ("tuple", [given | {"recursion_limit": ("int", "25")}, given]))


def test_an_error_handler_runs_after_the_context_is_reset_both_ways() -> None:
    def fail(q: str) -> str:
        raise ToolException("no")

    target = StructuredTool.from_function(
        fail, description="Fail.", handle_tool_error=lambda exc: repr(current_config())
    )
    assert both_ways(lambda: target.run({"q": "a"}, config={"tags": ["t"]})) == (
        "value",
        ("str", "'None'"),
    )


def test_an_unhandled_tool_error_is_raised_both_ways() -> None:
    def fail(q: str) -> str:
        raise ToolException("no")

    target = StructuredTool.from_function(fail, description="Fail.")
    assert both_ways(lambda: target.run({"q": "a"})) == ("error", "ToolException", "no")


def test_a_sync_tool_under_arun_runs_in_a_worker_thread_both_ways() -> None:
    def where(q: str) -> bool:
        return threading.current_thread() is threading.main_thread()

    target = StructuredTool.from_function(where, description="Where.")
    assert asyncio.run(aboth_ways(lambda: target.arun({"q": "a"}))) == (
        "value",
        ("bool", "False"),
    )


def test_a_coroutine_tool_runs_in_the_loop_both_ways() -> None:
    async def where(q: str) -> bool:
        return threading.current_thread() is threading.main_thread()

    target = StructuredTool.from_function(coroutine=where, description="Where.")
    assert asyncio.run(aboth_ways(lambda: target.arun({"q": "a"}))) == (
        "value",
        ("bool", "True"),
    )


def test_a_coroutine_only_tool_refuses_run_both_ways() -> None:
    async def only(q: str) -> str:
        return q

    target = StructuredTool.from_function(coroutine=only, description="Only.")
    assert both_ways(lambda: target.run({"q": "a"})) == (
        "error",
        "NotImplementedError",
        "StructuredTool does not support sync invocation.",
    )


def test_an_injected_call_id_is_the_same_both_ways() -> None:
    def reply(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        return f"{text}@{tool_call_id}"

    target = StructuredTool.from_function(reply, description="Reply.")
    call = {"name": "reply", "args": {"text": "hi"}, "id": "c9", "type": "tool_call"}
    assert both_ways(lambda: target.invoke(call))[1][0] == "ToolMessage"
    assert both_ways(lambda: target.run({"text": "hi"}, tool_call_id="c9", as_message=False)) == (
        "value",
        ("str", "'hi@c9'"),
    )


# -- which calls take the quick way ---------------------------------------------------------


def _echo(text: str) -> str:
    """Echo the text."""
    return text


def _spy_on_general_steps(target: StructuredTool) -> list[str]:
    """Record each time `target` takes the general steps (its ``_call``)."""
    seen: list[str] = []
    general = target._call

    def spy(tool_input: Any, config: RunnableConfig, run: Any) -> Any:
        seen.append("general")
        return general(tool_input, config, run)

    target._call = spy  # type: ignore[method-assign]
    return seen


def test_plain_arguments_without_listeners_take_the_quick_way() -> None:
    target = tool(_echo)
    seen = _spy_on_general_steps(target)
    assert target.run({"text": "hi"}, config={}, tool_call_id="c1", as_message=False) == "hi"
    assert target.run("hi", config={}, tool_call_id=None, as_message=False) == "hi"
    assert target.invoke("hi") == "hi"
    assert target.invoke({"text": "hi"}) == "hi"
    assert target.invoke(
        {"name": "_echo", "args": {"text": "hi"}, "id": "c1", "type": "tool_call"}
    ) == ToolMessage("hi", name="_echo", tool_call_id="c1")
    assert seen == []


@pytest.mark.parametrize(
    ("tool_input", "config"),
    [
        (_Text("hi"), {}),
        ({"text": 1}, {}),
        ({"text": "hi", "extra": 1}, {}),
        ({"text": "hi"}, {"callbacks": [ToolRecorder()]}),
        ("hi", {"callbacks": [ToolRecorder()]}),
    ],
    ids=["a str subclass", "a value to coerce", "an extra key", "a listener", "a listened str"],
)
def test_other_calls_take_the_general_way(tool_input: Any, config: RunnableConfig) -> None:
    target = tool(_echo)
    seen = _spy_on_general_steps(target)
    outcome(lambda: target.run(tool_input, config=config))
    assert seen == ["general"]


def test_a_listener_sees_the_tool_run_the_quick_way_skips() -> None:
    target = tool(_echo)
    recorder = ToolRecorder()
    assert target.run({"text": "hi"}, callbacks=[recorder]) == "hi"
    assert [event.kind for event in recorder.events] == ["tool_start", "tool_end"]


class _Checked(BaseModel):
    text: str

    @field_validator("text")
    @classmethod
    def _shout(cls, value: str) -> str:
        return value.upper()


def test_a_new_args_schema_is_read_anew() -> None:
    target = tool(_echo)
    assert target.run({"text": "hi"}) == "hi"
    target.args_schema = _Checked
    assert target.run({"text": "hi"}) == "HI"


def test_a_subclass_reading_its_input_its_own_way_is_honoured() -> None:
    class Prefixed(StructuredTool):
        def _to_args_and_kwargs(self, tool_input: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
            args, kwargs = super()._to_args_and_kwargs(tool_input)
            return args, {key: f">{value}" for key, value in kwargs.items()}

    target = Prefixed.from_function(_echo, description="Echo.")
    assert target.run({"text": "hi"}) == ">hi"


def test_a_single_input_tool_takes_the_general_way() -> None:
    target = Tool("shout", lambda text: text.upper(), "Shout.")
    assert both_ways(lambda: target.run({"text": "hi"})) == ("value", ("str", "'HI'"))
    assert both_ways(lambda: target.run({"a": "x", "b": "y"}))[:2] == ("error", "ToolException")


def _count(n: int) -> int:
    """Count to n."""
    return n


def _pair(a: str, b: str = "") -> str:
    """Join a and b."""
    return a + b


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (tool(_count), ("value", ("int", "5"))),
        (tool(_pair), ("value", ("str", "'5'"))),
    ],
    ids=["an int field", "two fields"],
)
def test_a_string_for_other_than_one_str_field_takes_the_general_way(
    target: StructuredTool, expected: Any
) -> None:
    seen = _spy_on_general_steps(target)
    assert both_ways(lambda: target.run("5")) == expected
    assert seen == ["general", "general"]  # the first call too, not only the general way's


class _Aliased(BaseModel):
    text: str = Field(alias="body")


class _Counted(BaseModel):
    count: int


def test_a_string_is_given_under_the_first_fields_alias_and_read_anew_per_schema() -> None:
    target = StructuredTool.from_function(
        lambda text="", count=0: f"{text}{count}", name="t", description="T.", args_schema=_Aliased
    )
    assert both_ways(lambda: target.run("hi")) == ("value", ("str", "'hi0'"))
    target.args_schema = _Counted
    assert both_ways(lambda: target.run("7")) == ("value", ("str", "'7'"))
