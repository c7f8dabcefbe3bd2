"""`stream_events` / `astream_events`: LangChain's v2 events, their order, filters and errors."""

from __future__ import annotations

import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from leanchain.callbacks import StreamEvent, adispatch_custom_event, dispatch_custom_event
from leanchain.language_models import FakeListChatModel
from leanchain.messages import AIMessageChunk, HumanMessage
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate, ChatPromptValue
from leanchain.runnables import (
    Runnable,
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
)
from leanchain.tools import tool


def pipeline() -> Runnable[dict[str, Any], str]:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    return prompt | FakeListChatModel(responses=["ab"]) | StrOutputParser()


def labelled(events: list[StreamEvent]) -> list[dict[str, Any]]:
    """The events with run ids replaced by the runs' names (checking they are real ids)."""
    names: dict[str, str] = {}
    for event in events:
        if event["event"] != "on_custom_event":
            names.setdefault(event["run_id"], event["name"])
    assert all(str(uuid.UUID(run_id)) == run_id for run_id in names)
    assert len(set(names.values())) == len(names)
    return [
        {
            **event,
            "run_id": names[event["run_id"]],
            "parent_ids": [names.get(p, p) for p in event["parent_ids"]],
        }
        for event in events
    ]


def ev(
    event: str,
    name: str,
    data: dict[str, Any],
    tags: list[str] | None = None,
    parents: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "event": event,
        "name": name,
        "run_id": name,
        "parent_ids": parents or [],
        "tags": tags or [],
        "metadata": {},
        "data": data,
    }


SEQ = "RunnableSequence"
PROMPT_VALUE = ChatPromptValue(messages=[HumanMessage(content="x")])
MESSAGES = {"messages": [[HumanMessage(content="x")]]}
A = AIMessageChunk(content="a")
B = AIMessageChunk(content="b", chunk_position="last")
AB = AIMessageChunk(content="ab", chunk_position="last")


def step(event: str, name: str, data: dict[str, Any], n: int) -> dict[str, Any]:
    return ev(event, name, data, [f"seq:step:{n}"], [SEQ])


# LangChain's observed order (reference §1.16): the parser starts at the first token, each
# chunk's events go from the model out to the sequence, then the ends from the inside out.
PIPELINE_EVENTS = [
    ev("on_chain_start", SEQ, {"input": {"q": "x"}}),
    step("on_prompt_start", "ChatPromptTemplate", {"input": {"q": "x"}}, 1),
    step("on_prompt_end", "ChatPromptTemplate", {"output": PROMPT_VALUE, "input": {"q": "x"}}, 1),
    step("on_chat_model_start", "FakeListChatModel", {"input": MESSAGES}, 2),
    step("on_chat_model_stream", "FakeListChatModel", {"chunk": A}, 2),
    step("on_parser_start", "StrOutputParser", {}, 3),
    step("on_parser_stream", "StrOutputParser", {"chunk": "a"}, 3),
    ev("on_chain_stream", SEQ, {"chunk": "a"}),
    step("on_chat_model_stream", "FakeListChatModel", {"chunk": B}, 2),
    step("on_parser_stream", "StrOutputParser", {"chunk": "b"}, 3),
    ev("on_chain_stream", SEQ, {"chunk": "b"}),
    step("on_chat_model_end", "FakeListChatModel", {"output": AB, "input": MESSAGES}, 2),
    step("on_parser_end", "StrOutputParser", {"output": "ab", "input": AB}, 3),
    ev("on_chain_end", SEQ, {"output": "ab"}),
]


def test_prompt_model_parser_events_follow_langchain_v2() -> None:
    assert labelled(list(pipeline().stream_events({"q": "x"}))) == PIPELINE_EVENTS


async def test_prompt_model_parser_async_events_follow_langchain_v2() -> None:
    events = [e async for e in pipeline().astream_events({"q": "x"})]
    assert labelled(events) == PIPELINE_EVENTS


def test_events_carry_the_callers_tags_metadata_and_run_name() -> None:
    config: RunnableConfig = {"tags": ["t"], "metadata": {"m": 1}, "run_name": "answer"}
    events = list(pipeline().stream_events({"q": "x"}, config))
    starts = [
        (e["event"], e["name"], e["tags"], e["metadata"]) for e in events if "start" in e["event"]
    ]
    assert starts == [
        ("on_chain_start", "answer", ["t"], {"m": 1}),
        ("on_prompt_start", "ChatPromptTemplate", ["seq:step:1", "t"], {"m": 1}),
        ("on_chat_model_start", "FakeListChatModel", ["seq:step:2", "t"], {"m": 1}),
        ("on_parser_start", "StrOutputParser", ["seq:step:3", "t"], {"m": 1}),
    ]


def test_a_given_run_id_names_the_root_run() -> None:
    run_id = uuid.uuid4()
    events = list(pipeline().stream_events({"q": "x"}, {"run_id": run_id}))
    assert events[0]["run_id"] == str(run_id)
    assert events[1]["parent_ids"] == [str(run_id)]


def names_of(events: Iterator[StreamEvent]) -> list[tuple[str, str]]:
    return [(e["event"], e["name"]) for e in events]


def test_include_names_types_and_tags_select_runs() -> None:
    chain = pipeline()
    assert names_of(chain.stream_events({"q": "x"}, include_names=["StrOutputParser"])) == [
        ("on_parser_start", "StrOutputParser"),
        ("on_parser_stream", "StrOutputParser"),
        ("on_parser_stream", "StrOutputParser"),
        ("on_parser_end", "StrOutputParser"),
    ]
    assert names_of(chain.stream_events({"q": "x"}, include_types=["prompt", "chat_model"])) == [
        ("on_prompt_start", "ChatPromptTemplate"),
        ("on_prompt_end", "ChatPromptTemplate"),
        ("on_chat_model_start", "FakeListChatModel"),
        ("on_chat_model_stream", "FakeListChatModel"),
        ("on_chat_model_stream", "FakeListChatModel"),
        ("on_chat_model_end", "FakeListChatModel"),
    ]
    assert names_of(chain.stream_events({"q": "x"}, include_tags=["seq:step:1"])) == [
        ("on_prompt_start", "ChatPromptTemplate"),
        ("on_prompt_end", "ChatPromptTemplate"),
    ]


def test_exclude_rules_drop_runs_after_the_includes() -> None:
    chain = pipeline()
    kept = names_of(
        chain.stream_events(
            {"q": "x"},
            include_types=["prompt", "parser"],
            exclude_names=["StrOutputParser"],
        )
    )
    assert kept == [
        ("on_prompt_start", "ChatPromptTemplate"),
        ("on_prompt_end", "ChatPromptTemplate"),
    ]
    assert names_of(
        chain.stream_events({"q": "x"}, exclude_types=["chat_model", "parser", "chain"])
    ) == [("on_prompt_start", "ChatPromptTemplate"), ("on_prompt_end", "ChatPromptTemplate")]
    no_steps = names_of(
        chain.stream_events({"q": "x"}, exclude_tags=["seq:step:1", "seq:step:2", "seq:step:3"])
    )
    assert no_steps == [
        ("on_chain_start", SEQ),
        ("on_chain_stream", SEQ),
        ("on_chain_stream", SEQ),
        ("on_chain_end", SEQ),
    ]


def test_only_version_v2_is_supported() -> None:
    with pytest.raises(NotImplementedError, match="supports version 'v2' only, got 'v1'"):
        pipeline().stream_events({"q": "x"}, version="v1")
    with pytest.raises(NotImplementedError, match="got 'v3'"):
        pipeline().astream_events({"q": "x"}, version="v3")
    with pytest.raises(ValueError, match=r"^Unknown stream_events version 'v9'; expected 'v2'$"):
        pipeline().stream_events({"q": "x"}, version="v9")


class Doubler(Runnable[int, int]):
    """A runnable with `invoke` only: it cannot stream."""

    def invoke(self, input: int, config: RunnableConfig | None = None, **kwargs: Any) -> int:
        return self._call_with_config(self._double, input, config)

    def _double(self, x: int, config: RunnableConfig, run: Any) -> int:
        return 2 * x


def test_a_runnable_that_does_not_stream_ends_before_its_only_chunk() -> None:
    # LangChain's rule: the caller reports the root's chunks only for a root still running.
    assert labelled(list(Doubler().stream_events(2))) == [
        ev("on_chain_start", "Doubler", {"input": 2}),
        ev("on_chain_end", "Doubler", {"output": 4}),
    ]


def test_a_lambda_root_streams_its_output() -> None:
    events = labelled(list(RunnableLambda(lambda x: x + 1, name="inc").stream_events(1)))
    assert events == [
        ev("on_chain_start", "inc", {"input": 1}),
        ev("on_chain_stream", "inc", {"chunk": 2}),
        ev("on_chain_end", "inc", {"output": 2}),
    ]


def test_the_runs_exception_ends_the_stream() -> None:
    def fail(x: int) -> int:
        raise LookupError(f"no {x}")

    chain = RunnableLambda(lambda x: x, name="first") | RunnableLambda(fail, name="fail")
    seen: list[str] = []
    with pytest.raises(LookupError, match=r"^no 1$"):
        seen.extend(f"{event['event']} {event['name']}" for event in chain.stream_events(1))
    assert seen == [
        "on_chain_start RunnableSequence",
        "on_chain_start first",
        "on_chain_stream first",
        "on_chain_start fail",
        "on_chain_end first",
    ]


async def test_the_runs_exception_ends_the_async_stream() -> None:
    async def fail(x: int) -> int:
        raise LookupError(f"no {x}")

    with pytest.raises(LookupError, match=r"^no 1$"):
        async for _ in RunnableLambda(fail).astream_events(1):
            pass


def test_events_arrive_while_the_run_is_still_going() -> None:
    seen_first = threading.Event()

    def chunks(_: Iterator[str]) -> Iterator[str]:
        yield "first"
        # The run can only go on once the consumer has received the first chunk's event.
        if not seen_first.wait(timeout=10):
            raise AssertionError("the first event was not delivered while the run went on")
        yield "second"

    events = []
    for event in RunnableGenerator(chunks, name="gen").stream_events("go"):
        events.append((event["event"], event["data"].get("chunk")))
        if event["data"].get("chunk") == "first":
            seen_first.set()
    assert events == [
        ("on_chain_start", None),
        ("on_chain_stream", "first"),
        ("on_chain_stream", "second"),
        ("on_chain_end", None),
    ]


async def test_async_events_arrive_while_the_run_is_still_going() -> None:
    import asyncio

    seen_first = asyncio.Event()

    async def chunks(_: AsyncIterator[str]) -> AsyncIterator[str]:
        yield "first"
        await asyncio.wait_for(seen_first.wait(), timeout=10)
        yield "second"

    got = []
    async for event in RunnableGenerator(chunks, name="gen").astream_events("go"):
        got.append(event["data"].get("chunk"))
        if event["data"].get("chunk") == "first":
            seen_first.set()
    assert got == [None, "first", "second", None]


def test_closing_the_stream_stops_the_run() -> None:
    release, finished = threading.Event(), threading.Event()
    later: list[int] = []

    def slow(x: int) -> int:
        try:
            release.wait(timeout=10)
            return x
        finally:
            finished.set()

    chain = RunnableLambda(slow, name="slow") | RunnableLambda(later.append, name="later")
    events = chain.stream_events(1)
    assert next(events)["event"] == "on_chain_start"
    events.close()
    release.set()
    assert finished.wait(timeout=10)
    # The run stopped at its next event: the second step never ran.
    assert later == []


def test_parallel_branches_report_from_their_threads() -> None:
    chain = RunnableParallel(
        left=RunnableLambda(lambda x: x + 1, name="left"),
        right=RunnableLambda(lambda x: x * 10, name="right"),
    )
    events = labelled(list(chain.stream_events(3)))
    ends = {e["name"]: e["data"]["output"] for e in events if e["event"] == "on_chain_end"}
    assert ends == {
        "left": 4,
        "right": 30,
        "RunnableParallel<left,right>": {"left": 4, "right": 30},
    }
    assert {e["name"]: e["parent_ids"] for e in events if e["event"] == "on_chain_start"} == {
        "RunnableParallel<left,right>": [],
        "left": ["RunnableParallel<left,right>"],
        "right": ["RunnableParallel<left,right>"],
    }


@tool
def explode(text: str) -> str:
    """Always fails."""
    raise RuntimeError(f"cannot {text}")


def test_a_failing_tool_reports_on_tool_error() -> None:
    events: list[StreamEvent] = []
    with pytest.raises(RuntimeError, match=r"^cannot fly$"):
        events.extend(explode.stream_events("fly"))
    assert [e["event"] for e in events] == ["on_tool_start", "on_tool_error"]
    assert events[1]["data"]["input"] == "fly"


def test_on_tool_error_is_an_event_inside_a_chain() -> None:
    guarded = explode.with_fallbacks([RunnableLambda(lambda x: "fallback", name="fallback")])
    events = labelled(list(guarded.stream_events("fly")))
    errors = [e for e in events if e["event"] == "on_tool_error"]
    assert len(errors) == 1
    error = errors[0]["data"]["error"]
    assert (type(error), str(error)) == (RuntimeError, "cannot fly")
    assert errors[0]["data"]["input"] == "fly"
    assert events[-1]["data"]["output"] == "fallback"


def test_custom_events_are_reported_under_their_run() -> None:
    def work(x: int, config: RunnableConfig) -> int:
        dispatch_custom_event("progress", {"done": 50}, config=config)
        dispatch_custom_event("progress", {"done": 100})
        return x

    chain = RunnableLambda(lambda x: x, name="first") | RunnableLambda(work, name="work")
    events = labelled(list(chain.stream_events(1, {"tags": ["t"]})))
    custom = [e for e in events if e["event"] == "on_custom_event"]
    assert [(e["name"], e["run_id"], e["data"], e["tags"], e["parent_ids"]) for e in custom] == [
        ("progress", "work", {"done": 50}, ["t"], [SEQ]),
        ("progress", "work", {"done": 100}, ["t"], [SEQ]),
    ]
    kinds = [(e["event"], e["name"]) for e in events]
    work_start, work_end = (
        kinds.index(("on_chain_start", "work")),
        kinds.index(("on_chain_end", "work")),
    )
    assert [k for k in kinds[work_start:work_end] if k[0] == "on_custom_event"] == [
        ("on_custom_event", "progress"),
        ("on_custom_event", "progress"),
    ]


async def test_async_custom_events() -> None:
    async def work(x: int) -> int:
        await adispatch_custom_event("note", "hello")
        return x

    events = [e async for e in RunnableLambda(work, name="work").astream_events(1)]
    custom = [e for e in events if e["event"] == "on_custom_event"]
    assert [(e["name"], e["data"], e["run_id"]) for e in custom] == [
        ("note", "hello", events[0]["run_id"])
    ]


def test_dispatching_outside_a_run_with_handlers_is_an_error() -> None:
    from leanchain.callbacks import BaseCallbackHandler

    with pytest.raises(RuntimeError, match=r"^Unable to dispatch a custom event without a parent"):
        dispatch_custom_event("x", 1, config={"callbacks": [BaseCallbackHandler()]})
    # Outside any run, as LangChain, even when nobody listens (tests/callbacks/
    # test_custom_events_outside_runs.py has the rest).
    with pytest.raises(RuntimeError, match=r"^Unable to dispatch a custom event without a parent"):
        dispatch_custom_event("x", 1)


def test_the_model_reply_is_the_chat_model_end_output_when_invoked() -> None:
    model = FakeListChatModel(responses=["hi"])
    events = list(model.stream_events("hello"))
    assert [e["event"] for e in events] == [
        "on_chat_model_start",
        "on_chat_model_stream",
        "on_chat_model_stream",
        "on_chat_model_end",
    ]
    assert events[-1]["data"] == {"output": AIMessageChunk(content="hi", chunk_position="last")}
    assert events[0]["data"] == {"input": "hello"}
