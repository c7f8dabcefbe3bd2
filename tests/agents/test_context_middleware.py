"""`ClearToolResults` and `Summarization`: a long run stays under its token budget, every agent
type sees its steps edited in its own format, and a tool call never loses its result."""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from test_executor_agents import IDS, KINDS, Kind
from test_executor_support import MODES, Mode, run

from leanchain.agents import (
    AgentExecutor,
    InMemoryCheckpointer,
    RunState,
    create_openai_functions_agent,
    create_tool_calling_agent,
)
from leanchain.agents.format_scratchpad import format_to_tool_messages
from leanchain.agents.middleware import (
    AgentMiddleware,
    AgentRun,
    ClearToolResults,
    Summarization,
    UsageLimits,
)
from leanchain.agents.prompts import TOOL_CALLING_PROMPT, TOOL_CALLING_SYSTEM
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import AgentConfigurationError
from leanchain.language_models import FunctionChatModel, ScriptedChatModel
from leanchain.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    count_tokens_approximately,
)
from leanchain.tools import tool

PAGE = "The quarterly figures rose again. " * 60
"""2,040 characters: about 510 tokens per observation."""
TRIGGER = 4000
TASK = "Read the report"
TOOL_KIND = KINDS[0]
BY_NAME = {kind.name: kind for kind in KINDS}


@tool
def read(text: str) -> str:
    """Read a page of the report."""
    return f"Page {text}: {PAGE}"


@tool
def note(text: str) -> str:
    """Write a short note."""
    return f"noted {text}"


class Summariser:
    """A summary model that answers "S1", "S2", ... and keeps what it was asked."""

    def __init__(self) -> None:
        self.model = FunctionChatModel(self._answer)

    def _answer(self, messages: list[BaseMessage], request: Any) -> str:
        return f"S{len(self.model.requests)}"

    @property
    def prompts(self) -> list[str]:
        requests = self.model.requests
        assert all(len(r.messages) == 1 for r in requests)
        assert all(isinstance(r.messages[0], HumanMessage) for r in requests)
        return [r.messages[0].text for r in requests]


def _strategy(name: str, summariser: Summariser) -> list[AgentMiddleware]:
    clear = ClearToolResults(trigger_tokens=TRIGGER, keep=3)
    summarize = Summarization(summariser.model, trigger_tokens=TRIGGER, keep=3)
    options: dict[str, list[AgentMiddleware]] = {
        "clear": [clear],
        "summarize": [summarize],
        "both": [clear, summarize],
    }
    return options[name]


def _long_run(
    kind: Kind, middleware: list[AgentMiddleware], steps: int = 60, **kwargs: Any
) -> tuple[AgentExecutor, ScriptedChatModel]:
    script = [kind.call("read", str(i)) for i in range(steps)] + [kind.answer("done")]
    model = ScriptedChatModel(script)
    executor = AgentExecutor(
        agent=kind.build(model, [read, note]),
        tools=[read, note],
        middleware=middleware,
        max_iterations=kwargs.pop("max_iterations", 100),
        return_intermediate_steps=True,
        **kwargs,
    )
    return executor, model


def _sizes(model: ScriptedChatModel) -> list[int]:
    return [count_tokens_approximately(request.messages) for request in model.requests]


# -- the budget --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_without_a_strategy_the_requests_grow_with_every_step(kind: Kind) -> None:
    executor, model = _long_run(kind, [])
    result = executor.invoke({"input": TASK})
    sizes = _sizes(model)
    assert len(sizes) == 61
    assert sizes == sorted(sizes)
    assert sizes[-1] - sizes[0] > 7 * TRIGGER
    assert len(result["intermediate_steps"]) == 60


@pytest.mark.parametrize("strategy", ["clear", "summarize", "both"])
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_a_60_step_run_stays_under_the_budget(kind: Kind, strategy: str) -> None:
    summariser = Summariser()
    executor, model = _long_run(kind, _strategy(strategy, summariser))
    result = executor.invoke({"input": TASK})
    assert result["output"] == "done"
    # The run keeps every step whole; only what the agent saw was edited.
    native = kind.name in ("tool-calling", "openai-tools")
    assert [(a.tool_input, obs) for a, obs in result["intermediate_steps"]] == [
        ({"text": str(i)} if native else str(i), f"Page {i}: {PAGE}") for i in range(60)
    ]
    sizes = _sizes(model)
    base = sizes[0]  # the prompt with no steps
    if kind.name == "json-chat" and strategy == "clear":
        # Each JSON chat step repeats its reply-format instructions around the observation,
        # about 120 tokens that clearing cannot remove: 57 cleared steps alone pass 4,000.
        assert max(sizes) - base > TRIGGER
    else:
        assert max(sizes) - base <= TRIGGER
    # Summaries: about every 4 steps once past the trigger (JSON chat steps are bigger);
    # with both, only where clearing alone does not hold the budget.
    summaries = {"clear": 0, "summarize": 11, "both": 0}[strategy]
    if kind.name == "json-chat":
        summaries = {"clear": 0, "summarize": 14, "both": 3}[strategy]
    assert len(summariser.model.requests) == summaries


@pytest.mark.parametrize("strategy", ["clear", "summarize"])
async def test_async_runs_see_exactly_what_sync_runs_see(strategy: str) -> None:
    seen: dict[str, list[list[BaseMessage]]] = {}
    for mode in MODES:
        summariser = Summariser()
        executor, model = _long_run(TOOL_KIND, _strategy(strategy, summariser))
        result = await run(executor, {"input": TASK}, mode)
        assert result["output"] == "done"
        seen[mode] = [r.messages for r in model.requests]
    assert seen["sync"] == seen["async"]


# -- Summarization, exactly --------------------------------------------------------------


INTRO = "I have already taken {n} steps on this task; they are summarised below."


def _steps_text(steps: list[tuple[AgentAction, Any]], first: int) -> str:
    return "\n\n".join(
        f"Step {n}: {a.tool}({json.dumps(a.tool_input)})\nResult: {obs}"
        for n, (a, obs) in enumerate(steps, start=first)
    )


@pytest.mark.parametrize("mode", MODES)
async def test_summarization_requests_are_exactly_as_documented(mode: Mode) -> None:
    summariser = Summariser()
    summarize = Summarization(summariser.model, trigger_tokens=TRIGGER, keep=3)
    executor, model = _long_run(TOOL_KIND, [summarize])
    result = await run(executor, {"input": TASK}, mode)
    steps = result["intermediate_steps"]
    assert len(steps) == 60

    # Where each summary ended: the planning request that first saw it starts with it.
    requests = [r.messages for r in model.requests]
    covered = []
    for messages in requests:
        if len(messages) > 2 and messages[2].text.startswith("I have already taken"):
            covered.append(int(messages[2].text.split()[4]))
        else:
            covered.append(0)
        assert messages[:2] == [SystemMessage(TOOL_CALLING_SYSTEM), HumanMessage(TASK)]
    cuts = sorted(set(covered) - {0})
    # A step takes about 520 tokens: 8 steps pass 4,000, so a summary comes every 5 steps.
    assert cuts == [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]
    assert len(summariser.prompts) == len(cuts)

    # Each summary request: the prompt with the summary so far and the steps since.
    previous = 0
    for number, cut in enumerate(cuts, start=1):
        assert summariser.prompts[number - 1] == Summarization.PROMPT.format(
            task=TASK,
            summary="(none yet)" if number == 1 else f"S{number - 1}",
            steps=_steps_text(steps[previous:cut], previous + 1),
        )
        previous = cut

    # Every planning request: the summary block, then the steps after it, as tool messages.
    for index, messages in enumerate(requests):
        cut = covered[index]
        expected: list[BaseMessage] = [SystemMessage(TOOL_CALLING_SYSTEM), HumanMessage(TASK)]
        if cut:
            number = cuts.index(cut) + 1
            expected += [
                AIMessage(INTRO.format(n=cut)),
                HumanMessage(f"Summary of steps 1-{cut}:\nS{number}"),
            ]
            # A summary is made when the steps pass the trigger, keeping the last three.
            assert index - cut == 3 or covered[index - 1] == cut
        expected += format_to_tool_messages(steps[cut:index])
        assert messages == expected
    # The summary was made once per cut and extended, never redone: each request had only
    # the 5 steps since the last one.
    assert [p.count("\nResult: ") for p in summariser.prompts] == [5] * 11


def test_a_summary_is_made_once_and_kept_as_plain_data_in_the_run() -> None:
    kept: list[dict[str, Any]] = []

    class Peek(AgentMiddleware):
        def after_agent(self, run: AgentRun, finish: AgentFinish) -> None:
            kept.append(json.loads(json.dumps(run.state)))

    summariser = Summariser()
    summarize = Summarization(summariser.model, trigger_tokens=TRIGGER, keep=3)
    executor, _ = _long_run(TOOL_KIND, [summarize, Peek()], steps=12)
    executor.invoke({"input": TASK})
    block = [AIMessage(INTRO.format(n=5)), HumanMessage("Summary of steps 1-5:\nS1")]
    assert kept == [
        {
            "Summarization": {
                "summary": "S1",
                "steps": 5,
                "tokens": count_tokens_approximately(block),
                "summaries": 1,
            }
        }
    ]


def test_the_calls_of_one_reply_stay_together_with_their_results() -> None:
    def three(turn: int) -> AIMessage:
        calls = [("read", {"text": f"{turn}.{n}"}) for n in range(3)]
        return ScriptedChatModel.tool_calls(*calls)

    model = ScriptedChatModel([three(t) for t in range(6)] + ["done"])
    summariser = Summariser()
    executor = AgentExecutor(
        agent=TOOL_KIND.build(model, [read]),
        tools=[read],
        # keep=2 falls inside a turn of three calls: the whole turn is kept.
        middleware=[Summarization(summariser.model, trigger_tokens=TRIGGER, keep=2)],
        return_intermediate_steps=True,
    )
    result = executor.invoke({"input": TASK})
    steps = result["intermediate_steps"]
    assert len(steps) == 18
    # The first summary came with 9 steps seen: keeping 2 would cut the third turn, so it
    # covers the first two turns (6 steps) and keeps the third whole.
    assert [p.count("\nResult: ") for p in summariser.prompts] == [6, 6]
    first = next(
        r.messages
        for r in model.requests
        if len(r.messages) > 2 and r.messages[2].text.startswith("I have")
    )
    assert first[2:4] == [AIMessage(INTRO.format(n=6)), HumanMessage("Summary of steps 1-6:\nS1")]
    assert first[4:] == format_to_tool_messages(steps[6:9])
    last = model.requests[-1].messages
    assert last[2:4] == [
        AIMessage(INTRO.format(n=12)),
        HumanMessage("Summary of steps 1-12:\nS2"),
    ]
    kept = last[4:]
    assert [type(m) for m in kept] == [AIMessage, ToolMessage, ToolMessage, ToolMessage] * 2
    for turn in (kept[:4], kept[4:]):
        call, *results = turn
        assert isinstance(call, AIMessage)
        answered = [m.tool_call_id for m in results if isinstance(m, ToolMessage)]
        assert [c["id"] for c in call.tool_calls] == answered
    assert kept == format_to_tool_messages(steps[12:])


@pytest.mark.parametrize(
    ("kind_name", "shown"),
    [
        (
            "react",
            "Thought: I have already taken 5 steps on this task; they are summarised below.\n"
            "Observation: Summary of steps 1-5:\nS1\nThought: ",
        ),
        (
            "xml",
            "<tool>_Summary</tool><tool_input>steps 1-5</tool_input>"
            "<observation>Summary of steps 1-5:\nS1</observation>",
        ),
    ],
)
def test_text_agents_see_the_summary_as_a_step_of_their_own(kind_name: str, shown: str) -> None:
    kind = BY_NAME[kind_name]
    summariser = Summariser()
    summarize = Summarization(summariser.model, trigger_tokens=TRIGGER, keep=3)
    executor, model = _long_run(kind, [summarize], steps=11)
    result = executor.invoke({"input": TASK})
    prompt = model.requests[-1].messages[-1].text
    kept = executor.agent.format_scratchpad(result["intermediate_steps"][5:])  # type: ignore[attr-defined]
    assert prompt.endswith(shown + kept)
    assert "Page 4:" not in prompt
    assert "Page 5:" in prompt


def test_the_openai_functions_agent_gets_the_summary_in_the_log() -> None:
    def call(n: int) -> AIMessage:
        arguments = json.dumps({"text": str(n)})
        return AIMessage(
            "", additional_kwargs={"function_call": {"name": "read", "arguments": arguments}}
        )

    model = ScriptedChatModel([call(n) for n in range(8)] + ["done"])
    summariser = Summariser()
    executor = AgentExecutor(
        agent=create_openai_functions_agent(model, [read], TOOL_CALLING_PROMPT),
        tools=[read],
        middleware=[Summarization(summariser.model, trigger_tokens=TRIGGER, keep=3)],
    )
    assert executor.invoke({"input": TASK})["output"] == "done"
    last = model.requests[-1].messages
    assert last[2] == AIMessage(INTRO.format(n=5) + "\n\nSummary of steps 1-5:\nS1")
    assert last[3].type == "ai"
    assert last[3].additional_kwargs["function_call"]["arguments"] == '{"text": "5"}'


# -- settings and their effects ------------------------------------------------------------


def test_a_custom_prompt_and_a_message_counting_token_counter() -> None:
    summariser = Summariser()
    summarize = Summarization(
        summariser.model,
        trigger_tokens=6,
        keep=1,
        prompt="Summarise for {task}:\n{steps}",
        token_counter=len,  # counts messages: two per step
    )
    executor, model = _long_run(TOOL_KIND, [summarize], steps=5)
    executor.invoke({"input": TASK})
    steps_text = _steps_text
    first_three = [
        (AgentAction("read", {"text": str(i)}, ""), f"Page {i}: {PAGE}") for i in range(3)
    ]
    assert summariser.prompts == [f"Summarise for {TASK}:\n" + steps_text(first_three, 1)]
    # 3 steps (6 messages) fit; the 4th passes the trigger and all but the last are summarised.
    assert [len(r.messages) for r in model.requests] == [2, 4, 6, 8, 6, 8]


@pytest.mark.parametrize("mode", MODES)
async def test_usage_limits_listed_first_count_the_summary_calls(mode: Mode) -> None:
    summariser = Summariser()
    usage = UsageLimits(include_usage=True)
    summarize = Summarization(summariser.model, trigger_tokens=TRIGGER, keep=3)
    executor, model = _long_run(TOOL_KIND, [usage, summarize], steps=12)
    result = await run(executor, {"input": TASK}, mode)
    assert len(model.requests) == 13
    assert len(summariser.model.requests) == 1
    assert result["usage"]["requests"] == 14


@pytest.mark.parametrize("mode", MODES)
async def test_the_final_answer_of_a_generate_stop_sees_the_summary(mode: Mode) -> None:
    summariser = Summariser()
    summarize = Summarization(summariser.model, trigger_tokens=TRIGGER, keep=3)
    script = [TOOL_KIND.call("read", str(i)) for i in range(10)] + ["my best answer"]
    model = ScriptedChatModel(script)
    executor = AgentExecutor(
        agent=TOOL_KIND.build(model, [read]),
        tools=[read],
        middleware=[summarize],
        max_iterations=10,
        early_stopping_method="generate",
    )
    result = await run(executor, {"input": TASK}, mode)
    assert result["output"] == "my best answer"
    final = model.requests[-1].messages
    assert final[2:4] == [AIMessage(INTRO.format(n=5)), HumanMessage("Summary of steps 1-5:\nS1")]
    assert len(final) == 4 + 5 * 2 + 1  # the five steps since, then the final instruction


def test_a_failing_summary_call_ends_the_run_with_a_note() -> None:
    broken = ScriptedChatModel([RuntimeError("summariser down")])
    executor, _ = _long_run(TOOL_KIND, [Summarization(broken, trigger_tokens=TRIGGER, keep=3)])
    with pytest.raises(RuntimeError, match="summariser down") as info:
        executor.invoke({"input": TASK})
    assert info.value.__notes__[0] == (
        f"Summarization: the model failed while summarising steps 1-5; its model: {broken!r}."
    )


def test_summarization_refuses_an_executor_that_trims_the_steps() -> None:
    with pytest.raises(AgentConfigurationError) as info:
        _long_run(TOOL_KIND, [Summarization(Summariser().model)], trim_intermediate_steps=5)
    assert str(info.value) == (
        "Summarization works on all the steps of a run, but this executor also trims them "
        "(trim_intermediate_steps=5); use one or the other"
    )


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: ClearToolResults(trigger_tokens=0),
            "ClearToolResults trigger_tokens must be an int >= 1, got 0",
        ),
        (lambda: ClearToolResults(keep=-1), "ClearToolResults keep must be an int >= 0, got -1"),
        (
            lambda: ClearToolResults(placeholder=None),  # type: ignore[arg-type]
            "ClearToolResults placeholder must be a str, got None",
        ),
        (
            lambda: ClearToolResults(token_counter=3),  # type: ignore[arg-type]
            "ClearToolResults token_counter must be 'approximate', a function of a list of "
            "messages (or of one message), or a model with get_num_tokens_from_messages; got "
            "int: 3",
        ),
        (
            lambda: Summarization("gpt"),  # type: ignore[arg-type]
            "Summarization model must be a chat model (or a Runnable), got str: 'gpt'",
        ),
        (
            lambda: Summarization(ScriptedChatModel([]), keep=True),
            "Summarization keep must be an int >= 0, got True",
        ),
        (
            lambda: Summarization(ScriptedChatModel([]), prompt="Sum up {history}"),
            "Summarization prompt must take the variable 'steps' and may take 'summary' and "
            "'task'; it takes ['history']",
        ),
    ],
)
def test_bad_settings_fail_when_built(make: Callable[[], object], message: str) -> None:
    with pytest.raises(AgentConfigurationError) as info:
        make()
    assert str(info.value) == message


# -- ClearToolResults, exactly -----------------------------------------------------------


class _Events(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.events.append((name, data))


def _observations(messages: list[BaseMessage]) -> list[str]:
    return [m.text for m in messages if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("mode", MODES)
async def test_clear_tool_results_replaces_old_results_and_keeps_the_calls(mode: Mode) -> None:
    clear = ClearToolResults(trigger_tokens=1500, keep=2, exclude_tools=["note"])
    script = [
        TOOL_KIND.call("read", "0"),
        TOOL_KIND.call("note", "a"),
        TOOL_KIND.call("read", "1"),
        TOOL_KIND.call("read", "2"),
        TOOL_KIND.call("read", "3"),
        "done",
    ]
    model = ScriptedChatModel(script)
    executor = AgentExecutor(
        agent=TOOL_KIND.build(model, [read, note]), tools=[read, note], middleware=[clear]
    )
    events = _Events()
    assert (await run(executor, {"input": TASK}, mode, {"callbacks": [events]}))["output"] == "done"
    cleared = ClearToolResults.PLACEHOLDER
    assert [_observations(r.messages) for r in model.requests] == [
        [],
        ["Page 0: " + PAGE],
        ["Page 0: " + PAGE, "noted a"],
        ["Page 0: " + PAGE, "noted a", "Page 1: " + PAGE],
        # past 1,500 tokens: all but the last two cleared, but never a note
        [cleared, "noted a", "Page 1: " + PAGE, "Page 2: " + PAGE],
        [cleared, "noted a", cleared, "Page 2: " + PAGE, "Page 3: " + PAGE],
    ]
    # The calls stay: every result still follows the call it answers.
    last = model.requests[-1].messages
    kinds = [type(m).__name__.removesuffix("Chunk") for m in last]  # streamed: AI chunks
    assert kinds == ["SystemMessage", "HumanMessage"] + ["AIMessage", "ToolMessage"] * 5
    assert [e["cleared"] for _, e in events.events] == [1, 2]
    name, first = events.events[0]
    assert name == "leanchain.clear_tool_results"
    assert first["action"] == "clear"
    assert first["message"] == (
        "Cleared old tool results: the agent sees the results of its last 2 steps only "
        f"({first['tokens_before']} -> {first['tokens_after']} tokens of steps)"
    )
    assert first["tokens_before"] > 1500 > first["tokens_after"]


def test_short_results_are_left_alone() -> None:
    clear = ClearToolResults(trigger_tokens=1, keep=1, placeholder="[gone]")
    model = ScriptedChatModel([TOOL_KIND.call("note", "a"), TOOL_KIND.call("note", "bc"), "done"])
    executor = AgentExecutor(agent=TOOL_KIND.build(model, [note]), tools=[note], middleware=[clear])
    executor.invoke({"input": TASK})
    assert _observations(model.requests[-1].messages) == ["[gone]", "noted bc"]
    # "noted a" is longer than "[gone]"; a result no longer than the placeholder stays.
    short = ClearToolResults(trigger_tokens=1, keep=0, placeholder="[a much longer marker]")
    model = ScriptedChatModel([TOOL_KIND.call("note", "a"), "done"])
    executor = AgentExecutor(agent=TOOL_KIND.build(model, [note]), tools=[note], middleware=[short])
    executor.invoke({"input": TASK})
    assert _observations(model.requests[-1].messages) == ["noted a"]


def test_the_final_answer_of_a_generate_stop_sees_cleared_results() -> None:
    clear = ClearToolResults(trigger_tokens=1500, keep=1)
    script = [TOOL_KIND.call("read", str(i)) for i in range(4)] + ["best answer"]
    model = ScriptedChatModel(script)
    executor = AgentExecutor(
        agent=TOOL_KIND.build(model, [read]),
        tools=[read],
        middleware=[clear],
        max_iterations=4,
        early_stopping_method="generate",
    )
    assert executor.invoke({"input": TASK})["output"] == "best answer"
    cleared = ClearToolResults.PLACEHOLDER
    assert _observations(model.requests[-1].messages) == [cleared] * 3 + ["Page 3: " + PAGE]


def test_a_checkpoint_carries_the_summary_and_the_clearing() -> None:
    checkpointer = InMemoryCheckpointer()
    summariser = Summariser()
    middleware: list[AgentMiddleware] = [
        ClearToolResults(trigger_tokens=3000, keep=2),
        Summarization(summariser.model, trigger_tokens=2500, keep=3),
    ]
    executor, _ = _long_run(TOOL_KIND, middleware, steps=12, checkpointer=checkpointer)
    executor.invoke({"input": TASK}, {"configurable": {"thread_id": "long"}})
    saved = checkpointer.get("long")
    assert saved is not None
    state = RunState.from_json(saved.to_json()).middleware
    assert state["ClearToolResults"] == {"edge": 10}
    # Five steps pass 2,500 before clearing starts at 3,000: steps 1-2 are summarised; from
    # then on the cleared steps stay under 2,500 and the summary is not extended.
    assert {k: v for k, v in state["Summarization"].items() if k != "tokens"} == {
        "summary": "S1",
        "steps": 2,
        "summaries": 1,
    }


def test_the_size_cache_keeps_no_formatter_alive() -> None:
    clear = ClearToolResults(trigger_tokens=1500, keep=1)

    def run_once() -> tuple[weakref.ref[Any], dict[str, Any]]:
        def formatter(steps: Any) -> list[BaseMessage]:
            return format_to_tool_messages(steps)

        model = ScriptedChatModel([TOOL_KIND.call("read", str(i)) for i in range(4)] + ["done"])
        agent = create_tool_calling_agent(
            model, [read], TOOL_CALLING_PROMPT, message_formatter=formatter
        )
        executor = AgentExecutor(
            agent=agent, tools=[read], middleware=[clear], return_intermediate_steps=True
        )
        return weakref.ref(formatter), executor.invoke({"input": TASK})

    ref, result = run_once()
    gc.collect()
    assert len(result["intermediate_steps"]) == 4  # the steps (the cache's keys) live on
    assert ref() is None
