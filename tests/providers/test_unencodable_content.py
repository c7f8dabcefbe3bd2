"""Content JSON cannot carry is a typed error in every provider conversion (issue 14.13).

A lone surrogate, an int over Python's 4,300-digit limit, 5,000-deep nesting, NaN: each
fails before anything is sent, as an `UnencodableContentError` that names the message and
the place in it — from invoke, ainvoke, stream and astream, for both providers. The property
test says it for any value: the request is sent with the value as it is, or this error is
raised and nothing is sent; never anything else.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from providers_support import anthropic, openai

from leanchain.errors import UnencodableContentError
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from leanchain.testing import FakeProviderServer, ScriptedReply

Call = Callable[[Any, list[BaseMessage]], Any]
BIG = 10**5000


def deep(levels: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def with_args(args: dict[str, Any]) -> list[BaseMessage]:
    return [
        HumanMessage("q"),
        AIMessage("", tool_calls=[{"name": "t", "args": args, "id": "c1", "type": "tool_call"}]),
        ToolMessage("r", tool_call_id="c1"),
    ]


SURROGATE = "a lone surrogate '\\udcff' at index 4, which UTF-8 cannot encode (text decoded "
SURROGATE += "with errors='surrogateescape'?)"
DEEP_PATH = "['a']['a']...(4993 more)...['a']['a']['a']['a']"
CASES: dict[str, tuple[list[BaseMessage], str]] = {
    "surrogate in text": (
        [SystemMessage("be brief"), HumanMessage("file\udcff.txt")],
        f"message 1 (HumanMessage) content: {SURROGATE}",
    ),
    "surrogate in a content block": (
        [HumanMessage(content=[{"type": "text", "text": "file\udcff.txt"}])],
        f"message 0 (HumanMessage) content[0]['text']: {SURROGATE}",
    ),
    "surrogate in a tool result": (
        [*with_args({})[:2], ToolMessage("file\udcff.txt", tool_call_id="c1")],
        f"message 2 (ToolMessage) content: {SURROGATE}",
    ),
    "surrogate in a tool argument key": (
        with_args({"file\udcff.txt": 1}),
        "message 1 (AIMessage) tool_calls[0]['args']['file\\udcff.txt']: a dict key with "
        + SURROGATE,
    ),
    "int over 4,300 digits": (
        with_args({"n": BIG}),
        "message 1 (AIMessage) tool_calls[0]['args']['n']: an int of more than 4300 digits, "
        "which Python does not turn into text (send it as a string, or raise "
        "sys.set_int_max_str_digits)",
    ),
    "5,000-deep nesting": (
        with_args(deep(5000)),
        f"message 1 (AIMessage) tool_calls[0]['args']{DEEP_PATH}: values nested 5002 levels "
        "deep, more than JSON encoding goes (flatten the structure, or send it as text)",
    ),
}


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make(server: FakeProviderServer, provider: str) -> Any:
    return openai(server) if provider == "openai" else anthropic(server)


def invoke(model: Any, messages: list[BaseMessage]) -> Any:
    return model.invoke(messages)


def stream(model: Any, messages: list[BaseMessage]) -> Any:
    return list(model.stream(messages))


async def ainvoke(model: Any, messages: list[BaseMessage]) -> Any:
    return await model.ainvoke(messages)


async def astream(model: Any, messages: list[BaseMessage]) -> Any:
    return [chunk async for chunk in model.astream(messages)]


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("call", [invoke, stream])
def test_a_typed_error_names_where_and_nothing_is_sent(
    server: FakeProviderServer, provider: str, case: str, call: Call
) -> None:
    messages, where = CASES[case]
    model = make(server, provider)
    with pytest.raises(UnencodableContentError) as info:
        call(model, messages)
    owner = type(model).__name__
    assert str(info.value) == f"{owner} cannot send {where}; nothing was sent"
    assert (info.value.provider, isinstance(info.value, ValueError)) == (provider, True)
    assert info.value.__cause__ is None  # the encoder's error held the whole body
    assert server.requests == []


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("call", [ainvoke, astream])
async def test_async_calls_raise_the_same_error(
    server: FakeProviderServer, provider: str, case: str, call: Callable[..., Any]
) -> None:
    messages, where = CASES[case]
    model = make(server, provider)
    with pytest.raises(UnencodableContentError) as info:
        await call(model, messages)
    assert str(info.value) == f"{type(model).__name__} cannot send {where}; nothing was sent"
    assert server.requests == []


def test_nan_is_refused_where_the_api_gets_a_json_number(server: FakeProviderServer) -> None:
    # Anthropic's tool_use input is JSON: NaN cannot go. OpenAI's arguments are text: it goes.
    with pytest.raises(UnencodableContentError) as info:
        anthropic(server).invoke(with_args({"x": math.nan}))
    assert str(info.value) == (
        "ChatAnthropic cannot send message 1 (AIMessage) tool_calls[0]['args']['x']: nan, "
        "which the API's JSON cannot carry (send null or a string); nothing was sent"
    )
    server.enqueue(ScriptedReply(text="ok"))
    assert openai(server).invoke(with_args({"x": math.inf})).content == "ok"
    sent = server.requests[-1].body["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert sent == '{"x": Infinity}'
    with pytest.raises(UnencodableContentError) as again:
        openai(server).invoke([HumanMessage(content=[{"type": "input_audio", "x": math.nan}])])
    assert str(again.value) == (
        "ChatOpenAI cannot send message 0 (HumanMessage) content[0]['x']: nan, which the "
        "API's JSON cannot carry (send null or a string); nothing was sent"
    )


def test_a_tool_schema_that_cannot_be_sent_is_named_in_the_request(
    server: FakeProviderServer, provider: str
) -> None:
    lookup = {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look up a file\udcff name.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    model = make(server, provider)
    with pytest.raises(UnencodableContentError) as info:
        model.bind_tools([lookup]).invoke("hi")
    path = "['function']['description']" if provider == "openai" else "['description']"
    assert str(info.value) == (
        f"{type(model).__name__} cannot send the request['tools'][0]{path}: a lone surrogate "
        "'\\udcff' at index 14, which UTF-8 cannot encode (text decoded with "
        "errors='surrogateescape'?); nothing was sent"
    )
    assert server.requests == []


# -- the property: sent as it is, or this error; never anything else --------------------------

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.just(None).map(lambda _: BIG),  # (its repr would need more than 4,300 digits)
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet=st.characters(exclude_categories=["Cc"]), max_size=8),
    st.just("x\ud800y"),
)
VALUES = st.recursive(
    LEAVES,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=12,
) | st.builds(deep, st.sampled_from([3, 5000]))


def encodable(value: Any, *, nan_ok: bool) -> bool:
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=nan_ok).encode()
    except (ValueError, RecursionError):
        return False
    return True


@pytest.fixture(scope="module")
def shared() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES, provider=st.sampled_from(["openai", "anthropic"]))
def test_any_argument_value_is_sent_as_it_is_or_is_this_error(
    shared: FakeProviderServer, value: Any, provider: str
) -> None:
    shared.reset()
    shared.enqueue(ScriptedReply(text="ok"))
    model = make(shared, provider)
    nan_ok = provider == "openai"  # OpenAI's arguments are text, NaN written out
    messages = with_args({"v": value})
    try:
        if not encodable({"v": value}, nan_ok=nan_ok):
            with pytest.raises(UnencodableContentError):
                model.invoke(messages)
            assert shared.requests == []
            return
        model.invoke(messages)
    finally:
        model.close()
    [request] = shared.requests
    if provider == "openai":
        sent = request.body["messages"][1]["tool_calls"][0]["function"]["arguments"]
        assert sent == json.dumps({"v": value}, ensure_ascii=False)
    else:
        sent = request.body["messages"][1]["content"][0]["input"]
        assert json.dumps(sent) == json.dumps({"v": value})
