"""A cassette as a report: a file's model calls in order (untimed), and ``cassette(report=)``
writing the page of what a block recorded or replayed (timed, failures marked)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from report_cassettes import ANSWER, QUESTION, SYSTEM, executor, run
from report_support import INJECTED, MODEL, PRICES, TAGS, TEXT, Page, usage

from leanchain.errors import ScriptExhaustedError
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage
from leanchain.report import (
    ErrorRecord,
    Report,
    StepRecord,
    TokenUsage,
    load_report,
    render_html,
    report_from_cassette,
)
from leanchain.testing import CassetteEntry, CassetteMismatchError, CassetteMode, cassette
from leanchain.testing.cassettes import load_entries

FIRST_REPLY = {
    "type": "ai",
    "content": "I look both up.",
    "tool_calls": [
        {"name": "lookup", "args": {"city": "Paris"}, "id": "call_1"},
        {"name": "lookup", "args": {"city": "Rome"}, "id": "call_2"},
    ],
}
PROMPT = [{"type": "system", "content": SYSTEM}, {"type": "human", "content": QUESTION}]
OBSERVATIONS = [
    {"type": "tool", "content": "Paris: a capital", "name": "lookup", "tool_call_id": "call_1"},
    {"type": "tool", "content": "Rome: a capital", "name": "lookup", "tool_call_id": "call_2"},
]
FETCH = {
    "type": "ai",
    "content": "",
    "tool_calls": [{"name": "fetch_page", "args": {"url": "page"}, "id": "call_3"}],
}
FETCHED = {"type": "tool", "content": INJECTED, "name": "fetch_page", "tool_call_id": "call_3"}
SETTINGS = {"call": "invoke", "tools": ["lookup", "fetch_page"]}


def tokens(sent: int, said: int) -> TokenUsage:
    return TokenUsage(input_tokens=sent, output_tokens=said, total_tokens=sent + said)


def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "run.json"
    assert run(path) == ANSWER
    return path


def facts(page: str) -> list[str]:
    return re.findall(r'<p class="facts">([^<]*)', page)


def durations(page: str) -> list[str]:
    return re.findall(r'<span class="dur">([^<]*)</span>', page)


def step_names(page: str) -> list[str]:
    return re.findall(r'<span class="name">([^<]*)</span>', page)


def test_a_cassette_file_is_a_report_of_its_model_calls_in_order(tmp_path: Path) -> None:
    entries = load_entries(recorded(tmp_path))
    report = report_from_cassette(entries, name="cassette run.json", prices=PRICES)
    assert report.title == "cassette run.json"
    assert report.prices["gpt-4o-mini"].output == 0.6
    [run_record] = report.runs
    assert run_record.name == "cassette run.json"
    assert run_record.timed is False
    assert run_record.events == ()
    root, *calls = run_record.steps
    assert root == StepRecord(
        kind="chain",
        name="cassette run.json",
        start=0.0,
        end=3.0,
        input="cassette run.json",
        output="3 model calls",
    )
    assert calls == [
        StepRecord(
            kind="model",
            name=MODEL,
            parent=0,
            start=float(i),
            end=float(i + 1),
            input=prompt,
            output=reply,
            model=MODEL,
            usage=usage,
            settings=SETTINGS,
        )
        for i, (prompt, reply, usage) in enumerate(
            [
                (PROMPT, FIRST_REPLY, tokens(120, 30)),
                ([*PROMPT, FIRST_REPLY, *OBSERVATIONS], FETCH, tokens(200, 12)),
                (
                    [*PROMPT, FIRST_REPLY, *OBSERVATIONS, FETCH, FETCHED],
                    {"type": "ai", "content": ANSWER},
                    tokens(300, 8),
                ),
            ]
        )
    ]


def streamed(path: Path, mode: CassetteMode, page: Path | None, *, in_async: bool) -> str:
    """One streamed call of a scripted model (a tool call, then its text) in a cassette."""
    model = ScriptedChatModel([STREAMED], name=MODEL)
    if not in_async:
        with cassette(path, mode, report=page):
            return "".join(chunk.text for chunk in model.stream(QUESTION))

    async def go() -> str:
        async with cassette(path, mode, report=page):
            return "".join([chunk.text async for chunk in model.astream(QUESTION)])

    return asyncio.run(go())


STREAMED = ScriptedChatModel.tool_call(
    "lookup", {"city": "Paris"}, content="Looking it up now.", usage=usage(40, 9)
)


@pytest.mark.parametrize("in_async", [False, True])
def test_a_streamed_call_is_its_chunks_summed_and_says_how_it_was_called(
    tmp_path: Path, in_async: bool
) -> None:
    path = tmp_path / "streamed.json"
    assert streamed(path, "record", None, in_async=in_async) == "Looking it up now."
    report = report_from_cassette(load_entries(path))
    [call] = report.runs[0].steps[1:]
    assert call.settings == {"call": "astream" if in_async else "stream"}
    assert call.input == [{"type": "human", "content": QUESTION}]
    assert call.output == {
        "type": "ai",
        "content": "Looking it up now.",
        "tool_calls": [{"name": "lookup", "args": {"city": "Paris"}, "id": "call_1"}],
    }
    assert call.usage == tokens(40, 9)
    # A loaded entry that kept only its chunks reads the same.
    chunked = [
        CassetteEntry(e.call, e.model, e.request, None, e.chunks) for e in load_entries(path)
    ]
    assert report_from_cassette(chunked).runs[0].steps[1:] == (call,)
    # Replayed with a report: the call is timed until its last chunk was taken.
    page = tmp_path / "streamed.html"
    assert streamed(path, "replay", page, in_async=in_async) == "Looking it up now."
    text = page.read_text(encoding="utf-8")
    assert step_names(text) == ["cassette streamed.json (replayed)", MODEL]
    assert facts(text)[0] == "2 steps · 1 model call · 40 input + 9 output tokens · no price table"
    assert all(re.fullmatch(r"\d+(\.\d+)? (ms|s)", d) for d in durations(text)[1:])


def test_an_untimed_run_says_so_and_its_json_form_reads_back(tmp_path: Path) -> None:
    report = report_from_cassette(load_entries(recorded(tmp_path)), prices=PRICES)
    text = report.to_json()
    assert text.count('"timed": false') == 1
    assert load_report(text) == report
    page = render_html(report)
    assert (
        facts(page)
        == ["4 steps · 3 model calls · 620 input + 50 output tokens · cost 0.000123 USD"] * 2
    )
    assert '<p class="when">started ' in page
    assert re.findall(r'<p class="when">started [^<]*· ([^<]*)</p>', page) == ["no times recorded"]
    assert durations(page) == ["took", "—", "—", "—", "—"]
    assert '<span class="tick order" style="left:0%">calls in order · no times recorded' in page
    assert re.findall(r'class="bar" style="([^"]*)"', page) == [
        "left:0.000%;width:100.000%",
        "left:0.000%;width:33.333%",
        "left:33.333%;width:33.333%",
        "left:66.667%;width:33.333%",
    ]


def test_the_report_option_writes_the_timed_page_and_leaves_the_file_as_it_was(
    tmp_path: Path,
) -> None:
    plain = recorded(tmp_path)
    path, page = tmp_path / "with-page.json", tmp_path / "pages" / "run.html"
    assert run(path, report=page) == ANSWER
    assert path.read_text(encoding="utf-8") == plain.read_text(encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    assert "<title>cassette with-page.json (recorded)</title>" in text
    assert step_names(text) == ["cassette with-page.json (recorded)", MODEL, MODEL, MODEL]
    assert (
        facts(text)
        == ["4 steps · 3 model calls · 620 input + 50 output tokens · no price table"] * 2
    )
    took = durations(text)
    assert took[0] == "took"
    assert all(re.fullmatch(r"\d+(\.\d+)? (ms|s)", d) for d in took[1:]), took
    lefts = [float(x) for x in re.findall(r'class="bar" style="left:([\d.]+)%', text)]
    assert lefts[0] == 0.0
    assert lefts[1:] == sorted(lefts[1:])
    assert lefts[1] < lefts[2] < lefts[3]  # each call started after the one before it
    assert "no times recorded" not in text


@pytest.mark.parametrize("stream", [False, True])
def test_a_replayed_block_writes_the_page_of_the_calls_it_played(
    tmp_path: Path, stream: bool
) -> None:
    path = tmp_path / "run.json"
    assert run(path, stream=stream) == ANSWER
    page = tmp_path / "replayed.html"
    assert run(path, "replay", report=page, stream=stream) == ANSWER
    text = page.read_text(encoding="utf-8")
    assert step_names(text) == ["cassette run.json (replayed)", MODEL, MODEL, MODEL]
    assert (
        facts(text)[0] == "4 steps · 3 model calls · 620 input + 50 output tokens · no price table"
    )
    assert all(re.fullmatch(r"\d+(\.\d+)? (ms|s)", d) for d in durations(text)[1:])
    assert text.count('<div class="part prompt">') == 3


def test_once_reports_what_it_did(tmp_path: Path) -> None:
    path = tmp_path / "once.json"
    assert run(path, "once", report=tmp_path / "first.html") == ANSWER
    assert run(path, "once", report=tmp_path / "second.html") == ANSWER
    first = (tmp_path / "first.html").read_text(encoding="utf-8")
    second = (tmp_path / "second.html").read_text(encoding="utf-8")
    assert "<title>cassette once.json (recorded)</title>" in first
    assert "<title>cassette once.json (replayed)</title>" in second


def test_async_blocks_report_too(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    assert run(path) == ANSWER

    async def replay(page: Path, stream: bool) -> object:
        async with cassette(path, "replay", report=page):
            if stream:
                chunks = [c async for c in executor().astream({"input": QUESTION})]
                return chunks[-1]["output"]
            return (await executor().ainvoke({"input": QUESTION}))["output"]

    for stream in (False, True):
        page = tmp_path / f"async-{stream}.html"
        assert asyncio.run(replay(page, stream)) == ANSWER
        text = page.read_text(encoding="utf-8")
        assert step_names(text) == ["cassette run.json (replayed)", MODEL, MODEL, MODEL]
        assert all(re.fullmatch(r"\d+(\.\d+)? (ms|s)", d) for d in durations(text)[1:])


def test_a_call_that_fails_while_recording_is_marked_and_so_is_the_block(tmp_path: Path) -> None:
    path, page = tmp_path / "failed.json", tmp_path / "failed.html"
    with pytest.raises(ScriptExhaustedError), cassette(path, "record", report=page):
        executor(script_items()).invoke({"input": QUESTION})
    assert len(json.loads(path.read_text(encoding="utf-8"))["entries"]) == 1
    text = page.read_text(encoding="utf-8")
    assert step_names(text) == ["cassette failed.json (recorded)", MODEL, MODEL]
    errors = re.findall(r'<ul class="error-list">(.*?)</ul>', text)
    assert len(errors) == 1
    assert [re.sub(r"<[^>]+>", "", item) for item in re.findall(r"<li>.*?</li>", errors[0])] == [
        f"chain cassette failed.json (recorded): {ERROR}",
        f"model {MODEL}: {ERROR}",
    ]
    assert '<section class="run status-error"' in text


ERROR = (
    "leanchain.errors.ScriptExhaustedError: ScriptedChatModel script exhausted after 1 replies; "
    "add more replies to the script"
)


def script_items() -> list[object]:
    return [AIMessage("", tool_calls=[{"name": "lookup", "args": {"city": "Paris"}, "id": "c"}])]


def test_a_replayed_request_nothing_matches_is_a_failed_call_with_its_prompt(
    tmp_path: Path,
) -> None:
    path, page = recorded(tmp_path), tmp_path / "mismatch.html"
    with cassette(path, "replay", report=page), pytest.raises(CassetteMismatchError):
        executor().invoke({"input": "Compare Oslo and Rome."})
    text = page.read_text(encoding="utf-8")
    assert step_names(text) == ["cassette run.json (replayed)", MODEL]
    assert '<section class="run status-ok"' in text  # the block itself ended well
    assert '<span class="error-line">leanchain.testing._cassette.CassetteMismatchError: ' in text
    assert "Compare Oslo and Rome." in Page(text).pres


def test_the_page_of_a_script_in_a_reply_shows_it_as_text(tmp_path: Path) -> None:
    page = Page(render_html(report_from_cassette(load_entries(recorded(tmp_path)))))
    assert ANSWER in page.pres
    assert INJECTED in page.pres  # the observation in the last prompt
    assert page.tags.count("script") == 1
    assert "img" not in page.tags
    assert "b" not in page.tags


def test_report_needs_a_mode_that_sees_the_calls(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as refused:
        cassette(tmp_path / "c.json", "none", report=tmp_path / "c.html")
    assert str(refused.value) == (
        "a cassette in mode 'none' sees no calls, so it has no report to write: use mode "
        "'record', 'replay' or 'once' with report=PATH"
    )
    assert not (tmp_path / "c.html").exists()


def test_times_and_errors_must_fit_the_entries(tmp_path: Path) -> None:
    entries = load_entries(recorded(tmp_path))
    with pytest.raises(ValueError) as wrong:
        report_from_cassette(entries, times=[(0.0, 1.0)])
    assert str(wrong.value) == "times must give one item per entry: 3, got 1"
    with pytest.raises(ValueError) as wrong:
        report_from_cassette(entries, errors=[None])
    assert str(wrong.value) == "errors must give one item per entry: 3, got 1"
    with pytest.raises(ValueError) as wrong:
        report_from_cassette(entries, times=[(0.0, 1.0), (2.0, 1.5), (3.0, 4.0)])
    assert str(wrong.value) == (
        "call 2: a call starts at 0 s or later and ends after it starts, got 2.0 to 1.5"
    )
    timed = report_from_cassette(
        entries,
        times=[(0.0, 0.25), (0.5, 0.75), (1.0, 1.5)],
        errors=[None, None, ValueError("late")],
        error=ValueError("the run failed"),
        started_at="2026-01-02T03:04:05.000Z",
    )
    run_record = timed.runs[0]
    assert run_record.timed is True
    assert run_record.started_at == "2026-01-02T03:04:05.000Z"
    assert [(s.start, s.end) for s in run_record.steps] == [
        (0.0, 1.5),
        (0.0, 0.25),
        (0.5, 0.75),
        (1.0, 1.5),
    ]
    assert run_record.root.error == ErrorRecord(type="ValueError", message="the run failed")
    assert run_record.root.output is None
    assert run_record.steps[3].error == ErrorRecord(type="ValueError", message="late")
    assert '"timed"' not in timed.to_json()


def test_an_empty_cassette_is_a_run_of_no_calls() -> None:
    report = report_from_cassette([], name="empty")
    assert [(s.kind, s.name, s.end, s.output) for s in report.runs[0].steps] == [
        ("chain", "empty", 0.0, "0 model calls")
    ]
    assert isinstance(load_report(report.to_json()), Report)


@settings(max_examples=100, deadline=None)
@given(question=TEXT, reply=TEXT, name=TEXT)
def test_whatever_a_cassette_holds_never_becomes_markup(
    question: str, reply: str, name: str
) -> None:
    entry = CassetteEntry(
        "invoke",
        name,
        {
            "model": {"type": "t", "params": {}},
            "messages": [{"type": "human", "content": question}],
        },
        AIMessage(reply),
    )
    page = Page(render_html(report_from_cassette([entry], name=name)))
    assert set(page.tags) <= TAGS
    assert page.tags.count("script") == 1
    # Every text shows whole in a <pre> (an empty content has no block).
    assert not question or question in page.pres
    assert not reply or reply in page.pres


@pytest.mark.parametrize(
    ("imported", "not_loaded"),
    [("leanchain.report", "leanchain.testing"), ("leanchain.testing", "leanchain.report")],
)
def test_the_report_and_the_testing_package_load_each_other_only_when_used(
    imported: str, not_loaded: str
) -> None:
    code = (
        f"import sys, {imported}\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[:2] == {not_loaded.split('.')!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout == "[]\n"
