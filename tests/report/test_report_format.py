"""The report's JSON form: versioned plain data, read back exactly, and a loader that says what
it could not read; `plain` turns any value into JSON data and never raises."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, SecretStr
from report_support import PRICES, run_agent

from leanchain.agents import AgentAction, AgentFinish
from leanchain.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from leanchain.prompts import ChatPromptValue, StringPromptValue
from leanchain.report import (
    REPORT_FORMAT,
    REPORT_VERSION,
    Report,
    ReportCallbackHandler,
    ReportFormatError,
    load_report,
)
from leanchain.report._plain import MAX_DEPTH, MAX_TEXT, plain


def agent_report() -> Report:
    handler = ReportCallbackHandler(prices=PRICES, title="t")
    run_agent(handler)
    return handler.report()


def test_the_json_form_reads_back_as_the_same_report() -> None:
    report = agent_report()
    text = report.to_json()
    assert load_report(text) == report
    assert load_report(text.encode()) == report
    data = json.loads(text)
    assert (
        (data["format"], data["version"])
        == (REPORT_FORMAT, REPORT_VERSION)
        == (
            "leanchain.report",
            1,
        )
    )
    assert list(data) == [
        "format",
        "version",
        "title",
        "created_at",
        "leanchain_version",
        "currency",
        "prices",
        "runs",
    ]
    assert list(data["runs"][0]) == ["name", "started_at", "steps", "events"]
    assert data["prices"] == {"gpt-4o-mini": {"input": 0.15, "output": 0.6, "cached_input": None}}


def minimal(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "leanchain.report",
        "version": 1,
        "created_at": "2025-01-01T00:00:00.000Z",
        "leanchain_version": "0.1.0",
        "runs": [
            {
                "name": "r",
                "started_at": "2025-01-01T00:00:00.000Z",
                "steps": [{"kind": "chain", "name": "r", "start": 0.0, "end": 1.0}],
            }
        ],
    }
    data.update(changes)
    return data


def test_a_minimal_report_reads_with_its_defaults() -> None:
    report = load_report(json.dumps(minimal()))
    assert report.title == "leanchain run report"
    assert report.currency == "USD"
    assert report.prices == {}
    assert report.runs[0].events == ()
    assert report.runs[0].root.status == "ok"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a report is JSON text, but this is not JSON: Expecting value: line 1 column 1"),
        (
            "[1]",
            "not a leanchain report: expected a JSON object with \"format\": 'leanchain.report'",
        ),
        ('{"format": "other"}', 'not a leanchain report: expected a JSON object with "format"'),
        (
            json.dumps(minimal(version=2)),
            "this report has version 2, written by a newer leanchain; this one reads version 1",
        ),
        (json.dumps(minimal(version="1")), "a report's version is a whole number from 1, got '1'"),
        (
            json.dumps(minimal(version=True)),
            "a report's version is a whole number from 1, got True",
        ),
        (json.dumps(minimal(version=0)), "a report's version is a whole number from 1, got 0"),
        (
            json.dumps(minimal(runs=[{"name": "r", "started_at": "x", "steps": []}])),
            "the report does not fit format version 1: runs.0: Value error, a run needs at "
            "least one step (the run itself)",
        ),
        (
            json.dumps(
                minimal(
                    runs=[
                        {
                            "name": "r",
                            "started_at": "x",
                            "steps": [{"kind": "chain", "name": "r", "start": 0, "parent": 0}],
                        }
                    ]
                )
            ),
            "runs.0: Value error, step 0 names parent 0: a parent must be an earlier step",
        ),
        (
            json.dumps(minimal(surprise=1)),
            "the report does not fit format version 1: surprise: Extra inputs are not permitted",
        ),
        (
            json.dumps(minimal(runs=[{"name": "r", "started_at": "x", "steps": [{"kind": "x"}]}])),
            "runs.0.steps.0.kind: Input should be 'agent', 'plan', 'model', 'tool', 'chain', "
            "'prompt' or 'parser'; runs.0.steps.0.name: Field required; runs.0.steps.0.start: "
            "Field required",
        ),
        ("[" * 100_000 + "]" * 100_000, "a report is JSON text, but this is not JSON"),
    ],
)
def test_what_is_not_a_readable_report_is_said_plainly(text: str, message: str) -> None:
    with pytest.raises(ReportFormatError) as caught:
        load_report(text)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_an_event_that_names_a_missing_step_is_refused() -> None:
    run = minimal()["runs"][0]
    run["events"] = [{"kind": "custom", "name": "e", "time": 0.0, "step": 3}]
    with pytest.raises(ReportFormatError, match="an event names step 3, which the run does not"):
        load_report(json.dumps(minimal(runs=[run])))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200) | st.binary(max_size=200))
def test_the_loader_reads_a_report_or_says_why_never_anything_else(text: str | bytes) -> None:
    try:
        result = load_report(text)
    except ReportFormatError:
        return
    assert isinstance(result, Report)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_report_content_of_any_json_data_reads_back_unchanged(value: Any) -> None:
    data = minimal()
    data["runs"][0]["steps"][0]["output"] = value
    data["runs"][0]["events"] = [{"kind": "custom", "name": "e", "time": 0.5, "data": value}]
    report = load_report(json.dumps(data))
    assert report.runs[0].steps[0].output == value
    assert load_report(report.to_json()) == report


@dataclass
class Point:
    x: int
    secret: SecretStr


class Settings(BaseModel):
    key: SecretStr
    n: int


class Exploding:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


ODD_VALUES = st.recursive(
    JSON_VALUES
    | st.floats()
    | st.binary(max_size=5)
    | st.builds(object)
    | st.builds(Exploding)
    | st.builds(lambda t: AIMessage(content=t), st.text(max_size=8))
    | st.builds(lambda t: (t,), st.text(max_size=3))
    | st.sets(st.integers(), max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.integers() | st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=15,
)


@settings(max_examples=300, deadline=None)
@given(ODD_VALUES)
def test_plain_turns_any_value_into_json_data_and_never_raises(value: Any) -> None:
    data = plain(value)
    assert json.loads(json.dumps(data, allow_nan=False)) == data


def test_plain_knows_leanchain_values() -> None:
    assert plain(HumanMessage(content="hi", name="ann")) == {
        "type": "human",
        "content": "hi",
        "name": "ann",
    }
    assert plain(AIMessageChunk(content="x")) == {"type": "ai", "content": "x"}
    assert plain(ToolMessage(content="bad", tool_call_id="c1", status="error")) == {
        "type": "tool",
        "content": "bad",
        "tool_call_id": "c1",
        "status": "error",
    }
    assert plain(ChatPromptValue([HumanMessage(content="q")])) == [
        {"type": "human", "content": "q"}
    ]
    assert plain(StringPromptValue("text")) == "text"
    assert plain(AgentAction("t", {"a": 1}, "log")) == {
        "tool": "t",
        "tool_input": {"a": 1},
        "log": "log",
    }
    assert plain(AgentFinish({"output": "o"}, "l")) == {
        "return_values": {"output": "o"},
        "log": "l",
    }
    assert plain(Point(1, SecretStr("s3cr3t"))) == {"x": 1, "secret": "SecretStr('**********')"}
    assert plain(Settings(key=SecretStr("s3cr3t"), n=2)) == {"key": "**********", "n": 2}
    assert plain(float("nan")) == "nan"
    assert plain(-math.inf) == "-inf"
    assert plain(b"abc") == "<3 bytes>"
    assert plain(Exploding()) == "<Exploding: RuntimeError while reading it>"


def test_plain_bounds_what_it_keeps() -> None:
    assert plain("x" * (MAX_TEXT + 5)) == "x" * MAX_TEXT + "… (5 more characters)"
    nested: Any = "bottom"
    for _ in range(MAX_DEPTH + 5):
        nested = [nested]
    flat = plain(nested)
    for _ in range(MAX_DEPTH):
        flat = flat[0]
    assert flat == "<list: nested too deep>"
    looped: list[Any] = []
    looped.append(looped)
    assert json.dumps(plain(looped))  # a cycle ends at the depth bound
    assert plain(list(range(10_003)))[-1] == "… (3 more items)"
