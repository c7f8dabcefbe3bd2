"""`ReportCallbackHandler`: what it records of agents, chains, batches, errors and events."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from report_support import AGENT_STEPS, INJECTED, MODEL, PRICES, QUESTION, run_agent

from leanchain.agents import (
    AgentExecutor,
    create_openai_tools_agent,
    create_tool_calling_agent,
)
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import adispatch_custom_event, dispatch_custom_event
from leanchain.cli._demo import build_executor
from leanchain.cli._demo_models import (
    AGENT_TYPES,
    DEMO_ANSWER,
    DEMO_QUESTION,
    demo_model,
    stuck_model,
)
from leanchain.errors import ScriptExhaustedError
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, HumanMessage, count_tokens_approximately
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate
from leanchain.report import (
    ErrorRecord,
    EventRecord,
    ModelPrice,
    ReportCallbackHandler,
    StepRecord,
    TokenUsage,
)
from leanchain.runnables import RunnableLambda
from leanchain.tools import tool


def shape(handler: ReportCallbackHandler, run: int = 0) -> list[tuple[str, str, int | None]]:
    return [(s.kind, s.name, s.parent) for s in handler.report().runs[run].steps]


def test_an_agent_run_is_the_agent_its_planning_calls_and_its_model_and_tool_calls() -> None:
    handler = ReportCallbackHandler(prices=PRICES)
    result = run_agent(handler)
    assert result["output"] == "Both are capitals. <b>Done</b>"
    report = handler.report()
    assert len(report.runs) == 1
    run = report.runs[0]
    assert shape(handler) == AGENT_STEPS
    assert run.name == "AgentExecutor"
    assert run.events == (
        EventRecord(
            kind="custom",
            name="leanchain.loop_guard",
            time=run.events[0].time,
            step=7,
            data={"action": "warn", "message": "fetch_page seen twice"},
        ),
    )
    steps = run.steps
    assert steps[0].input == {"input": QUESTION}
    assert steps[0].output == {"input": QUESTION, "output": "Both are capitals. <b>Done</b>"}
    assert steps[1].input is None  # the model step below it has the prompt
    assert steps[1].output == [
        {"tool": "lookup", "tool_input": {"city": "Paris"}, "log": steps[1].output[0]["log"],
         "tool_call_id": "call_1"},
        {"tool": "lookup", "tool_input": {"city": "Rome"}, "log": steps[1].output[1]["log"],
         "tool_call_id": "call_2"},
    ]  # fmt: skip
    prompt = TOOL_CALLING_PROMPT.invoke({"input": QUESTION, "agent_scratchpad": []})
    assert steps[2].input == [{"type": m.type, "content": m.content} for m in prompt.messages]
    assert steps[2].output == {
        "type": "ai",
        "content": "I look both up.",
        "tool_calls": [
            {"name": "lookup", "args": {"city": "Paris"}, "id": "call_1"},
            {"name": "lookup", "args": {"city": "Rome"}, "id": "call_2"},
        ],
    }
    assert steps[2].model == MODEL
    assert steps[2].settings == {"tools": ["lookup", "fetch_page", "broken"]}
    assert steps[2].usage == TokenUsage(input_tokens=120, output_tokens=30, total_tokens=150)
    assert [(s.input, s.output, s.tool_call_id) for s in steps[3:5]] == [
        ({"city": "Paris"}, "Paris: a capital", "call_1"),
        ({"city": "Rome"}, "Rome: a capital", "call_2"),
    ]
    assert steps[7].output == INJECTED
    assert steps[10].error == ErrorRecord(
        type="leanchain.errors.ToolException", message="broken on purpose: test"
    )
    assert [s.error for i, s in enumerate(steps) if i != 10] == [None] * 12
    assert report.prices == {MODEL: ModelPrice(input=0.15, output=0.6)}


def test_times_are_ordered_and_concurrent_tool_calls_overlap() -> None:
    handler = ReportCallbackHandler()
    run_agent(handler)
    steps = handler.report().runs[0].steps
    starts = [s.start for s in steps]
    assert starts == sorted(starts)
    for step in steps:
        assert step.end is not None
        assert step.start <= step.end
        if step.parent is not None:
            parent = steps[step.parent]
            assert parent.start <= step.start
            assert parent.end is not None
            assert step.end <= parent.end
    paris, rome = steps[3], steps[4]
    assert paris.end is not None
    assert rome.end is not None
    # The tools wait on one barrier, so each started before the other ended.
    assert paris.start < rome.end
    assert rome.start < paris.end


@pytest.mark.parametrize("agent_type", AGENT_TYPES)
def test_every_demo_agent_type_is_recorded_step_by_step(agent_type: str) -> None:
    handler = ReportCallbackHandler()
    executor = build_executor(agent_type, demo_model(agent_type))
    assert executor.invoke({"input": DEMO_QUESTION}, {"callbacks": [handler]})["output"] == (
        DEMO_ANSWER
    )
    tools = {
        "tool-calling": ["city_facts", "city_facts"],
        "react": ["city_facts"],
        "structured-chat": ["city_facts"],
        "json-chat": ["city_facts"],
        "xml": ["city_facts"],
    }[agent_type]
    first = [("tool", name, 0) for name in tools]
    expected = [
        ("agent", "AgentExecutor", None),
        ("plan", "AgentRunnable", 0),
        ("model", "offline-demo-model", 1),
        *first,
    ]
    at = len(expected)
    for tool_name in ("convert_units", "calculator"):
        expected += [("plan", "AgentRunnable", 0), ("model", "offline-demo-model", at)]
        expected.append(("tool", tool_name, 0))
        at = len(expected)
    expected += [("plan", "AgentRunnable", 0), ("model", "offline-demo-model", at)]
    assert shape(handler) == expected
    final = handler.report().runs[0].steps[-2]
    assert isinstance(final.output, dict)
    assert final.output["return_values"] == {"output": DEMO_ANSWER}


@pytest.mark.parametrize(
    ("agent_type", "tokens"),
    [
        # The tool-calling request counts its four tool schemas too (362 tokens).
        ("tool-calling", [(431, 76), (539, 60), (614, 49), (675, 46)]),
        ("xml", [(319, 36), (361, 46), (388, 40), (414, 53)]),
    ],
)
def test_the_demo_model_reports_the_approximate_tokens_of_each_call(
    agent_type: str, tokens: list[tuple[int, int]]
) -> None:
    handler = ReportCallbackHandler()
    model = demo_model(agent_type)
    executor = build_executor(agent_type, model)
    executor.invoke({"input": DEMO_QUESTION}, {"callbacks": [handler]})
    models = [s for s in handler.report().runs[0].steps if s.kind == "model"]
    assert [s.usage for s in models] == [
        TokenUsage(input_tokens=sent, output_tokens=said, total_tokens=sent + said)
        for sent, said in tokens
    ]
    requests = model.requests
    assert [count_tokens_approximately(r.messages, tools=r.tools or None) for r in requests] == [
        sent for sent, _ in tokens
    ]


def test_the_stuck_demo_model_counts_each_request_it_repeats_itself_to() -> None:
    model = stuck_model("xml")
    first = model.invoke([HumanMessage(DEMO_QUESTION)])
    again = model.invoke([HumanMessage(DEMO_QUESTION), AIMessage("thinking"), HumanMessage("go")])
    assert first.content == again.content
    assert first.usage_metadata == {"input_tokens": 25, "output_tokens": 36, "total_tokens": 61}
    assert again.usage_metadata == {"input_tokens": 38, "output_tokens": 36, "total_tokens": 74}


def test_the_openai_tools_agent_is_recorded_like_the_tool_calling_one() -> None:
    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    model = ScriptedChatModel([ScriptedChatModel.tool_call("echo", {"text": "hi"}), "done"])
    executor = AgentExecutor(
        agent=create_openai_tools_agent(model, [echo], TOOL_CALLING_PROMPT), tools=[echo]
    )
    handler = ReportCallbackHandler()
    executor.invoke({"input": "say hi"}, {"callbacks": [handler]})
    assert shape(handler) == [
        ("agent", "AgentExecutor", None),
        ("plan", "AgentRunnable", 0),
        ("model", "ScriptedChatModel", 1),
        ("tool", "echo", 0),
        ("plan", "AgentRunnable", 0),
        ("model", "ScriptedChatModel", 4),
    ]
    assert handler.report().runs[0].steps[3].output == "hi"


def chain_parts() -> tuple[ChatPromptTemplate, ScriptedChatModel]:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    return prompt, ScriptedChatModel(["one", "two", "three"])


def test_a_plain_chain_is_the_chain_and_its_steps() -> None:
    prompt, model = chain_parts()
    handler = ReportCallbackHandler()
    assert (prompt | model | StrOutputParser()).invoke({"q": "hi"}, {"callbacks": [handler]}) == (
        "one"
    )
    run = handler.report().runs[0]
    assert shape(handler) == [
        ("chain", "RunnableSequence", None),
        ("prompt", "ChatPromptTemplate", 0),
        ("model", "ScriptedChatModel", 0),
        ("parser", "StrOutputParser", 0),
    ]
    assert run.steps[0].input == {"q": "hi"}
    assert run.steps[0].output == "one"
    assert run.steps[1].output == [
        {"type": "system", "content": "Be brief."},
        {"type": "human", "content": "hi"},
    ]
    assert run.steps[2].output == {"type": "ai", "content": "one"}
    assert run.steps[3].input == {"type": "ai", "content": "one"}


def test_a_batch_is_one_run_per_item() -> None:
    prompt, model = chain_parts()
    handler = ReportCallbackHandler()
    chain = prompt | model | StrOutputParser()
    outputs = chain.batch([{"q": "a"}, {"q": "b"}, {"q": "c"}], {"callbacks": [handler]})
    report = handler.report()
    assert sorted(outputs) == ["one", "three", "two"]
    assert len(report.runs) == 3
    assert sorted(str(run.steps[0].input) for run in report.runs) == [
        "{'q': 'a'}",
        "{'q': 'b'}",
        "{'q': 'c'}",
    ]
    for run in report.runs:
        assert [s.kind for s in run.steps] == ["chain", "prompt", "model", "parser"]
        assert run.steps[0].output == run.steps[3].output


async def test_an_async_run_is_recorded_the_same_way() -> None:
    handler = ReportCallbackHandler()

    async def note(text: str) -> str:
        await adispatch_custom_event("mine", {"seen": text})
        return text.upper()

    prompt, model = chain_parts()
    chain = prompt | model | StrOutputParser() | RunnableLambda(note)
    assert await chain.ainvoke({"q": "x"}, {"callbacks": [handler]}) == "ONE"
    run = handler.report().runs[0]
    assert [(s.kind, s.name) for s in run.steps] == [
        ("chain", "RunnableSequence"),
        ("prompt", "ChatPromptTemplate"),
        ("model", "ScriptedChatModel"),
        ("parser", "StrOutputParser"),
        ("chain", "note"),
    ]
    assert [(e.kind, e.name, e.step, e.data) for e in run.events] == [
        ("custom", "mine", 4, {"seen": "one"})
    ]


def test_a_failing_model_fails_its_step_its_plan_and_the_run() -> None:
    model = ScriptedChatModel([])
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [], TOOL_CALLING_PROMPT), tools=[]
    )
    handler = ReportCallbackHandler()
    with pytest.raises(ScriptExhaustedError):
        executor.invoke({"input": "x"}, {"callbacks": [handler]})
    steps = handler.report().runs[0].steps
    assert [(s.kind, s.error.type if s.error else None) for s in steps] == [
        ("agent", "leanchain.errors.ScriptExhaustedError"),
        ("plan", "leanchain.errors.ScriptExhaustedError"),
        ("model", "leanchain.errors.ScriptExhaustedError"),
    ]
    assert all(s.status == "error" for s in steps)
    assert steps[2].error == ErrorRecord(
        type="leanchain.errors.ScriptExhaustedError",
        message=(
            "ScriptedChatModel script exhausted after 0 replies; add more replies to the script"
        ),
    )


def test_a_parse_error_shows_on_its_planning_call_and_the_run_goes_on() -> None:
    from leanchain.agents import create_react_agent
    from leanchain.agents.prompts import REACT_PROMPT

    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    model = ScriptedChatModel(["no format at all", "Final Answer: fine"])
    executor = AgentExecutor(
        agent=create_react_agent(model, [echo], REACT_PROMPT),
        tools=[echo],
        handle_parsing_errors=True,
    )
    handler = ReportCallbackHandler()
    assert executor.invoke({"input": "x"}, {"callbacks": [handler]})["output"] == "fine"
    steps = handler.report().runs[0].steps
    assert [(s.kind, s.status) for s in steps] == [
        ("agent", "ok"),
        ("plan", "error"),
        ("model", "ok"),
        ("plan", "ok"),
        ("model", "ok"),
    ]
    assert steps[1].error == ErrorRecord(
        type="leanchain.errors.OutputParserException",
        message="Could not parse LLM output: `no format at all`",
    )


def test_retries_are_points_on_the_timeline() -> None:
    attempts = []

    def flaky(x: int) -> int:
        attempts.append(x)
        if len(attempts) < 3:
            raise ConnectionError(f"attempt {len(attempts)} failed")
        return x

    chain = RunnableLambda(flaky).with_retry(
        stop_after_attempt=3,
        wait_exponential_jitter=False,
        retry_if_exception_type=(ConnectionError,),
    )
    handler = ReportCallbackHandler()
    assert chain.invoke(5, {"callbacks": [handler]}) == 5
    run = handler.report().runs[0]
    failed = [{"type": "ConnectionError", "message": f"attempt {n} failed"} for n in (1, 2)]
    assert [(e.kind, e.name, e.step, e.data) for e in run.events] == [
        ("retry", "retry", 0, {"attempt": 1, "error": failed[0]}),
        ("retry", "retry", 0, {"attempt": 2, "error": failed[1]}),
    ]


def test_a_report_made_during_a_run_shows_the_open_steps_as_running() -> None:
    handler = ReportCallbackHandler()
    seen: list[list[str]] = []

    def look(x: str) -> str:
        seen.append([s.status for s in handler.report().runs[0].steps])
        return x

    chain = RunnableLambda(look) | RunnableLambda(str.upper)
    assert chain.invoke("a", {"callbacks": [handler]}) == "A"
    assert seen == [["running", "running"]]
    assert [s.status for s in handler.report().runs[0].steps] == ["ok", "ok", "ok"]


def test_clear_forgets_finished_runs() -> None:
    handler = ReportCallbackHandler()
    RunnableLambda(str.upper).invoke("a", {"callbacks": [handler]})
    assert len(handler.report().runs) == 1
    handler.clear()
    assert handler.report().runs == ()
    RunnableLambda(str.upper).invoke("b", {"callbacks": [handler]})
    assert [run.steps[0].output for run in handler.report().runs] == ["B"]


def test_a_custom_event_from_a_tool_marks_the_tool_step() -> None:
    @tool
    def guarded(x: str) -> str:
        """Reports a guard decision."""
        dispatch_custom_event("leanchain.usage_limits", {"action": "stop", "message": "budget"})
        return x

    handler = ReportCallbackHandler()
    assert guarded.invoke({"x": "y"}, {"callbacks": [handler]}) == "y"
    run = handler.report().runs[0]
    assert shape(handler) == [("tool", "guarded", None)]
    assert [(e.name, e.step, e.data) for e in run.events] == [
        ("leanchain.usage_limits", 0, {"action": "stop", "message": "budget"})
    ]


def test_concurrent_runs_from_threads_are_kept_apart() -> None:
    handler = ReportCallbackHandler()
    barrier = threading.Barrier(4, timeout=10)

    def step(x: int) -> int:
        barrier.wait()
        return x * 2

    chain = RunnableLambda(step) | RunnableLambda(lambda x: x + 1)
    results: list[int] = []
    threads = [
        threading.Thread(
            target=lambda i=i: results.append(chain.invoke(i, {"callbacks": [handler]}))
        )
        for i in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(results) == [1, 3, 5, 7]
    runs = handler.report().runs
    assert sorted((run.steps[0].input, run.steps[0].output) for run in runs) == [
        (0, 1), (1, 3), (2, 5), (3, 7)
    ]  # fmt: skip
    assert all([s.kind for s in run.steps] == ["chain", "chain", "chain"] for run in runs)


def test_prices_are_checked_when_the_handler_is_made() -> None:
    with pytest.raises(ValueError, match="input"):
        ReportCallbackHandler(prices={"m": {"output": 1.0}})
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        ReportCallbackHandler(prices={"m": {"input": -1.0, "output": 1.0}})
    assert ReportCallbackHandler(prices={"m": ModelPrice(input=1, output=2)}).prices == {
        "m": ModelPrice(input=1, output=2)
    }


def test_cost_counts_cached_input_at_its_own_price() -> None:
    price = ModelPrice(input=2.0, output=8.0, cached_input=0.5)
    usage = TokenUsage(input_tokens=1_000, output_tokens=100, cached_input_tokens=400)
    assert price.cost(usage) == pytest.approx((600 * 2.0 + 400 * 0.5 + 100 * 8.0) / 1e6)
    assert ModelPrice(input=2.0, output=8.0).cost(usage) == pytest.approx(
        (1000 * 2.0 + 100 * 8.0) / 1e6
    )


def test_unknown_values_become_their_repr_and_never_fail_the_run() -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    handler = ReportCallbackHandler()
    assert (
        RunnableLambda(lambda x: Opaque()).invoke(1, {"callbacks": [handler]}).__class__ is Opaque
    )
    assert handler.report().runs[0].steps[0].output == "<opaque>"


def test_steps_are_records_with_a_status() -> None:
    step = StepRecord(kind="tool", name="t", start=0.0)
    assert step.status == "running"
    assert step.model_copy(update={"end": 1.0}).status == "ok"


def test_a_run_in_an_event_loop_with_concurrent_tasks() -> None:
    handler = ReportCallbackHandler()
    chain = RunnableLambda(lambda x: x + 1)

    async def main() -> list[Any]:
        return await asyncio.gather(*(chain.ainvoke(i, {"callbacks": [handler]}) for i in range(5)))

    assert asyncio.run(main()) == [1, 2, 3, 4, 5]
    assert sorted(run.steps[0].output for run in handler.report().runs) == [1, 2, 3, 4, 5]
