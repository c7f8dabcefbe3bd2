"""`ToolSelector`: fifty tools, five shown — chosen once per run, by a lexical ranking, a
model or a function — and `before_model` as the hook that changes the tools mid-run."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_executor_agents import IDS, KINDS, Kind
from test_executor_support import MODES, Mode, run
from tool_catalogue import LABELLED, catalogue

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.middleware import AgentMiddleware, AgentRun, ModelRequest, ToolSelector
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import AgentConfigurationError
from leanchain.language_models import FunctionChatModel, ScriptedChatModel
from leanchain.messages import BaseMessage
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall
from leanchain.tools import BaseTool

TOOLS = catalogue()
NAMES = [t.name for t in TOOLS]
WEATHER = "What's the weather like in Lisbon right now?"
WEATHER_FIVE = ["get_weather", "get_forecast", "air_quality", "send_email", "search_email"]
FLIGHT = "Find me a flight from Paris to Rome on May 3"
FLIGHT_FIVE = ["book_flight", "search_flights", "find_restaurant", "get_weather", "get_forecast"]
TOOL_KIND = KINDS[0]


def test_the_catalogue_has_fifty_tools() -> None:
    assert len(TOOLS) == 50
    assert len(set(NAMES)) == 50


def test_recall_at_5_of_the_lexical_ranking_on_the_labelled_set() -> None:
    selector = ToolSelector(max_tools=5)
    recall: list[float] = []
    misses: list[str] = []
    for question, relevant in LABELLED:
        top = selector.lexical(question, TOOLS)
        assert len(top) == 5
        recall.append(len(relevant & set(top)) / len(relevant))
        if not relevant & set(top):
            misses.append(question)
    assert sum(recall) / len(recall) == 26 / 30
    # What a word ranking cannot see: no word of the question is in the tool's text.
    assert misses == [
        "What appointments do I have on Friday?",
        "How much is 100 euros in Japanese yen?",
        "How do I get from the station to the museum?",
        "Text my sister that I'm running late",
    ]


def _shown(names: Sequence[str]) -> list[str]:
    """`names` in the executor's order."""
    return [n for n in NAMES if n in set(names)]


def _weather_run(kind: Kind, selector: ToolSelector) -> tuple[AgentExecutor, ScriptedChatModel]:
    script = [kind.call("get_weather", "Lisbon"), kind.call("get_forecast", "Lisbon")]
    model = ScriptedChatModel([*script, kind.answer("sunny")])
    executor = AgentExecutor(
        agent=kind.build(model, TOOLS),
        tools=TOOLS,
        middleware=[selector],
        handle_tool_errors=True,  # the text agents' string inputs do not fit these schemas
    )
    return executor, model


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS[:2], ids=IDS[:2])
async def test_fifty_tools_and_each_request_carries_five_schemas(kind: Kind, mode: Mode) -> None:
    executor, model = _weather_run(kind, ToolSelector(max_tools=5))
    assert (await run(executor, {"input": WEATHER}, mode))["output"] == "sunny"
    # Chosen once, shown in the executor's order on every call: the prompt stays the same.
    assert [r.tool_names for r in model.requests] == [_shown(WEATHER_FIVE)] * 3
    assert [len(r.tools) for r in model.requests] == [5, 5, 5]


@pytest.mark.parametrize("kind", KINDS[2:], ids=IDS[2:])
def test_text_agents_describe_only_the_chosen_tools(kind: Kind) -> None:
    executor, model = _weather_run(kind, ToolSelector(max_tools=5))
    assert executor.invoke({"input": WEATHER})["output"] == "sunny"
    for request in model.requests:
        prompt = "\n".join(m.text for m in request.messages)
        assert [n for n in NAMES if f"{n}:" in prompt or f"{n}(" in prompt] == _shown(WEATHER_FIVE)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProviderServer]:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with FakeProviderServer() as server:
        yield server


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_wire_request_carries_five_schemas(server: FakeProviderServer, provider: str) -> None:
    model: ChatOpenAI | ChatAnthropic
    if provider == "openai":
        model = ChatOpenAI(model="gpt-fake", base_url=server.openai_base_url, api_key="sk-t")
    else:
        model = ChatAnthropic(
            model="claude-fake", base_url=server.anthropic_base_url, api_key="sk-t"
        )
    server.enqueue(
        ScriptedReply(tool_calls=[ScriptedToolCall("book_flight", {"origin": "CDG"}, id="c1")]),
        ScriptedReply(text="Booked."),
    )
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, TOOLS, TOOL_CALLING_PROMPT),
        tools=TOOLS,
        middleware=[ToolSelector(max_tools=5)],
    )
    try:
        assert executor.invoke({"input": FLIGHT})["output"] == "Booked."
    finally:
        model.close()
    for request in server.requests:
        tools = request.body["tools"]
        names = [t["function"]["name"] if provider == "openai" else t["name"] for t in tools]
        assert names == _shown(FLIGHT_FIVE)


def test_always_included_tools_come_on_top_of_max_tools() -> None:
    selector = ToolSelector(max_tools=3, always_include=["generate_image", "calculator"])
    executor, model = _weather_run(TOOL_KIND, selector)
    executor.invoke({"input": WEATHER})
    assert model.requests[0].tool_names == _shown(
        ["get_weather", "get_forecast", "air_quality", "generate_image", "calculator"]
    )


def test_a_call_to_a_tool_that_was_not_shown_still_runs() -> None:
    model = ScriptedChatModel([TOOL_KIND.call("set_timer", "3"), "done"])
    executor = AgentExecutor(
        agent=TOOL_KIND.build(model, TOOLS),
        tools=TOOLS,
        middleware=[ToolSelector(max_tools=2)],
        return_intermediate_steps=True,
    )
    result = executor.invoke({"input": WEATHER})
    assert model.requests[0].tool_names == ["get_weather", "get_forecast"]
    [(_, observation)] = result["intermediate_steps"]
    assert observation == "set_timer ran with {'text': '3'}"


class _Events(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.events.append((name, data))


def _picker(reply: str) -> FunctionChatModel:
    return FunctionChatModel(lambda messages, request: reply)


@pytest.mark.parametrize("mode", MODES)
async def test_a_model_chooses_once_per_run(mode: Mode) -> None:
    picker = _picker("I would use:\n- `get_forecast`\n- weather_radar\n- get_weather")
    executor, model = _weather_run(TOOL_KIND, ToolSelector(max_tools=5, model=picker))
    events = _Events()
    await run(executor, {"input": WEATHER}, mode, {"callbacks": [events]})
    assert len(picker.requests) == 1
    [prompt] = picker.requests[0].messages
    listing = "\n".join(f"- {t.name}: {t.description}" for t in TOOLS)
    assert prompt.text == ToolSelector.PROMPT.format(max_tools=5, task=WEATHER, tools=listing)
    # Made-up names are ignored; the choice is shown in the executor's order.
    assert [r.tool_names for r in model.requests] == [["get_weather", "get_forecast"]] * 3
    assert events.events == [
        (
            "leanchain.tool_selector",
            {
                "action": "select",
                "message": "Showing 2 of 50 tools (model choice)",
                "tools": ["get_weather", "get_forecast"],
                "by": "model",
            },
        )
    ]


def test_a_model_that_names_no_tool_leaves_the_choice_to_the_ranking() -> None:
    executor, model = _weather_run(TOOL_KIND, ToolSelector(max_tools=5, model=_picker("hmm")))
    events = _Events()
    executor.invoke({"input": WEATHER}, {"callbacks": [events]})
    assert model.requests[0].tool_names == _shown(WEATHER_FIVE)
    assert events.events[0][1]["by"] == "lexical"


def test_a_function_chooses() -> None:
    seen: list[tuple[str, int]] = []

    def select(query: str, tools: Sequence[BaseTool]) -> list[str | BaseTool]:
        seen.append((query, len(tools)))
        by_name = {t.name: t for t in tools}
        return ["set_timer", by_name["play_music"], "set_timer", "news_headlines"]

    selector = ToolSelector(max_tools=2, select=select, always_include=["calculator"])
    executor, model = _weather_run(TOOL_KIND, selector)
    executor.invoke({"input": WEATHER})
    assert seen == [(WEATHER, 49)]
    assert model.requests[0].tool_names == ["calculator", "set_timer", "play_music"]


def test_a_function_that_names_a_tool_it_was_not_offered_is_an_error() -> None:
    selector = ToolSelector(max_tools=2, select=lambda query, tools: ["teleport"])
    executor, _ = _weather_run(TOOL_KIND, selector)
    with pytest.raises(ValueError, match=r"^ToolSelector select returned tools it was not offered"):
        executor.invoke({"input": WEATHER})


def test_reselect_chooses_again_when_asked() -> None:
    asked: list[int] = []

    def reselect(run: AgentRun) -> bool:
        asked.append(run.iterations)
        return run.iterations == 1

    def query(run: AgentRun) -> str:
        return "the stock price of ACME" if run.steps else str(run.inputs["input"])

    selector = ToolSelector(max_tools=1, query=query, reselect=reselect)
    script = [TOOL_KIND.call("get_weather", "Lisbon"), TOOL_KIND.call("stock_price", "X"), "ok"]
    model = ScriptedChatModel(script)
    executor = AgentExecutor(
        agent=TOOL_KIND.build(model, TOOLS), tools=TOOLS, middleware=[selector]
    )
    executor.invoke({"input": WEATHER})
    assert asked == [1, 2]  # before every planning call after the first
    assert [r.tool_names for r in model.requests] == [
        ["get_weather"],
        ["stock_price"],
        ["stock_price"],
    ]


def test_runs_choose_independently() -> None:
    model = FunctionChatModel(lambda messages, request: "done")
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, TOOLS, TOOL_CALLING_PROMPT),
        tools=TOOLS,
        middleware=[ToolSelector(max_tools=5)],
    )
    executor.batch([{"input": WEATHER}, {"input": FLIGHT}])
    chosen = sorted(r.tool_names for r in model.requests)
    assert chosen == sorted([_shown(WEATHER_FIVE), _shown(FLIGHT_FIVE)])


def test_few_tools_are_all_shown_without_a_choice() -> None:
    few = TOOLS[:3]
    model = ScriptedChatModel(["done"])
    picker = _picker("get_weather")
    executor = AgentExecutor(
        agent=TOOL_KIND.build(model, few),
        tools=few,
        middleware=[ToolSelector(max_tools=5, model=picker)],
    )
    executor.invoke({"input": WEATHER})
    assert model.requests[0].tool_names == NAMES[:3]
    assert picker.requests == []


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ToolSelector(max_tools=0), "ToolSelector max_tools must be an int >= 1, got 0"),
        (
            lambda: ToolSelector(model=_picker("x"), select=lambda q, t: []),
            "ToolSelector takes a model or a select function, not both",
        ),
        (
            lambda: ToolSelector(model="gpt"),  # type: ignore[arg-type]
            "ToolSelector model must be a chat model (or a Runnable), got 'gpt'",
        ),
        (
            lambda: ToolSelector(reselect=True),  # type: ignore[arg-type]
            "ToolSelector reselect must be a function, got True",
        ),
        (
            lambda: ToolSelector(prompt="Pick from {catalog}"),
            "ToolSelector prompt must take the variable 'tools' and may take 'task' and "
            "'max_tools'; it takes ['catalog']",
        ),
    ],
)
def test_bad_settings_fail_when_built(make: Callable[[], object], message: str) -> None:
    with pytest.raises(AgentConfigurationError) as info:
        make()
    assert str(info.value) == message


def test_setup_refuses_unknown_tools_and_agents_that_cannot_be_rebuilt() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(AgentConfigurationError) as info:
        AgentExecutor(
            agent=TOOL_KIND.build(model, TOOLS[:2]),
            tools=TOOLS[:2],
            middleware=[ToolSelector(always_include=["teleport"])],
        )
    assert str(info.value) == (
        "ToolSelector always_include names tools the executor does not have: ['teleport'] "
        "(it has ['get_weather', 'get_forecast'])"
    )
    with pytest.raises(AgentConfigurationError) as info:
        AgentExecutor(agent=lambda inputs: None, tools=TOOLS, middleware=[ToolSelector()])
    assert str(info.value) == (
        "ToolSelector changes the tools the model is shown, so the agent must be rebuilt for "
        "them: build it with a create_*_agent factory"
    )


# -- changing the tools while a run goes on: before_model ---------------------------------


class OncePerRun(AgentMiddleware):
    """Hides a tool from the model once the run has called it (the docs' example)."""

    def __init__(self, *names: str) -> None:
        self.names = set(names)

    def before_model(self, run: AgentRun, request: ModelRequest) -> ModelRequest | None:
        used = {action.tool for action, _ in run.steps} & self.names
        if not used:
            return None
        return request.replace(tools=[t for t in request.tools if t.name not in used])


@pytest.mark.parametrize("mode", MODES)
async def test_before_model_changes_the_tools_for_the_next_call(mode: Mode) -> None:
    three = TOOLS[:3]
    script = [TOOL_KIND.call("get_weather", "a"), TOOL_KIND.call("air_quality", "b"), "done"]
    model = ScriptedChatModel(script)
    executor = AgentExecutor(
        agent=TOOL_KIND.build(model, three),
        tools=three,
        middleware=[OncePerRun("get_weather", "air_quality")],
    )
    await run(executor, {"input": "q"}, mode)
    assert [r.tool_names for r in model.requests] == [
        ["get_weather", "get_forecast", "air_quality"],
        ["get_forecast", "air_quality"],
        ["get_forecast"],
    ]


def test_the_messages_of_a_run_do_not_depend_on_the_selection_order() -> None:
    # The same choice, ranked differently, gives the very same request (prompt caches hit).
    first = ToolSelector(max_tools=2, select=lambda q, t: ["get_forecast", "get_weather"])
    second = ToolSelector(max_tools=2, select=lambda q, t: ["get_weather", "get_forecast"])
    seen: list[list[BaseMessage]] = []
    tools: list[list[str]] = []
    for selector in (first, second):
        executor, model = _weather_run(TOOL_KIND, selector)
        executor.invoke({"input": WEATHER})
        seen.append(model.requests[0].messages)
        tools.append(model.requests[0].tool_names)
    assert seen[0] == seen[1]
    assert tools == [["get_weather", "get_forecast"]] * 2


@settings(max_examples=200, deadline=None)
@given(query=st.text(max_size=200), reply=st.text(max_size=300))
def test_any_query_or_reply_gives_a_valid_choice(query: str, reply: str) -> None:
    selector = ToolSelector(max_tools=5)
    ranked = selector.lexical(query, TOOLS)
    assert len(ranked) == len(set(ranked)) == 5
    assert set(ranked) <= set(NAMES)
    names, by = selector._from_reply(reply + " " + " ".join(NAMES[:2]), query, TOOLS)
    assert by == "model"
    assert len(names) == len(set(names))
    assert 1 <= len(names) <= 5
    assert set(names) <= set(NAMES)
