"""``leanchain report FILE`` (a report or a cassette) and ``leanchain demo --report FILE``:
files, lines and errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from report_cassettes import ANSWER
from report_cassettes import run as run_in_cassette
from report_support import run_agent

from leanchain.cli import main
from leanchain.cli._demo_models import DEMO_ANSWER
from leanchain.report import ReportCallbackHandler, load_report
from leanchain.testing import FakeProviderServer, ScriptedError

KEY = "sk-leanchain-REPORT-SECRET-41c2"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")) or name == "NO_COLOR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def saved_run(tmp_path: Path) -> Path:
    handler = ReportCallbackHandler()
    run_agent(handler)
    return handler.write_json(tmp_path / "run.json")


def error_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.rstrip("\n")


def test_report_turns_a_saved_run_into_its_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = saved_run(tmp_path)
    assert main(["report", str(source)]) == 0
    page = tmp_path / "run.html"
    assert capsys.readouterr().out == f"wrote {page} (1 run, 13 steps)\n"
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "<title>leanchain run report</title>" in text
    assert "no price table" in text


def test_report_with_an_output_a_title_and_prices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = saved_run(tmp_path)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"gpt-4o-mini": {"input": 0.15, "output": 0.6}}))
    out = tmp_path / "page.html"
    argv = ["report", str(source), "-o", str(out), "--title", "Run <1>", "--prices", str(prices)]
    assert main(argv) == 0
    assert capsys.readouterr().out == f"wrote {out} (1 run, 13 steps)\n"
    text = out.read_text(encoding="utf-8")
    assert "<title>Run &lt;1&gt;</title>" in text
    assert "880 input + 59 output tokens · cost 0.000167 USD" in text
    again = tmp_path / "priced.json"
    assert main(["report", str(source), "-o", str(again), "--prices", str(prices)]) == 0
    assert load_report(again.read_text(encoding="utf-8")).prices["gpt-4o-mini"].output == 0.6


def test_report_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.json"
    assert error_of(capsys, "report", str(missing)) == (
        f"leanchain report: error: cannot read the report {str(missing)!r}: "
        "No such file or directory"
    )
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert error_of(capsys, "report", str(bad)) == (
        f"leanchain report: error: {str(bad)!r} is not a report this leanchain can read: a "
        "report is JSON text, but this is not JSON: Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1)"
    )
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"format": "leanchain.report", "version": 9}))
    assert error_of(capsys, "report", str(newer)) == (
        f"leanchain report: error: {str(newer)!r} is not a report this leanchain can read: "
        "this report has version 9, written by a newer leanchain; this one reads version 1"
    )
    source = saved_run(tmp_path)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m": {"input": "cheap"}}))
    assert error_of(capsys, "report", str(source), "--prices", str(prices)) == (
        f"leanchain report: error: {str(prices)!r} is not a price table (m.input: Input should "
        'be a valid number, unable to parse string as a number); expected {"MODEL": {"input": '
        'PRICE, "output": PRICE}, ...} per million tokens'
    )
    assert error_of(capsys, "report", str(source), "-o", str(source)) == (
        f"leanchain report: error: the page would overwrite its source {str(source)!r}: "
        "pass -o FILE"
    )
    assert error_of(capsys, "report", str(source), "-o", str(tmp_path / "no" / "dir.html")) == (
        "leanchain report: error: cannot write the report to "
        f"{str(tmp_path / 'no' / 'dir.html')!r}: No such file or directory"
    )


def test_demo_report_writes_the_page_of_every_agent_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "demo.html"
    assert main(["demo", "--report", str(page)]) == 0
    out = capsys.readouterr().out
    assert out.endswith(f"Final answer: {DEMO_ANSWER}\n\nReport written to {page}\n")
    text = page.read_text(encoding="utf-8")
    assert "<title>leanchain demo</title>" in text
    assert text.count('<section class="run status-ok"') == 5
    # The offline model reports approximate usage, so the page has tokens to show.
    assert (
        '<p class="facts">61 steps · 20 model calls · 16 tool calls · 10,429 input + 969 output '
        "tokens · no price table</p>"
    ) in text
    assert "no usage reported" not in text
    assert "no token usage reported" not in text


def test_demo_report_json_is_the_saved_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "demo.json"
    assert main(["demo", "--agent", "xml", "--report", str(saved)]) == 0
    report = load_report(saved.read_text(encoding="utf-8"))
    assert [run.name for run in report.runs] == ["xml agent"]
    assert report.runs[0].steps[-1].kind == "model"
    assert capsys.readouterr().out.endswith(f"\nReport written to {saved}\n")


def test_without_report_the_demo_prints_what_it_did_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--agent", "xml"]) == 0
    assert "Report written" not in capsys.readouterr().out


def test_a_failed_demo_run_still_writes_its_report_without_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    page = tmp_path / "failed.json"
    with FakeProviderServer() as server:
        server.enqueue(ScriptedError(401, message=f"Incorrect API key provided: {KEY}"))
        argv = ["demo", "--agent", "xml", "--model", "openai:m", "--base-url"]
        message = error_of(capsys, *argv, server.openai_base_url, "--report", str(page))
    assert message.startswith("leanchain demo: error: openai:m rejected the API key: ")
    text = page.read_text(encoding="utf-8")
    assert KEY not in text
    run = load_report(text).runs[0]
    assert [(s.kind, s.status) for s in run.steps] == [
        ("agent", "error"),
        ("plan", "error"),
        ("model", "error"),
    ]
    error = run.steps[2].error
    assert error is not None
    assert error.type == "leanchain.errors.AuthenticationError"
    assert "**********" in error.message


def recorded_cassette(tmp_path: Path) -> Path:
    path = tmp_path / "agent.json"
    assert run_in_cassette(path) == ANSWER
    return path


def test_report_turns_a_cassette_into_the_page_of_its_model_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = recorded_cassette(tmp_path)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"gpt-4o-mini": {"input": 0.15, "output": 0.6}}))
    assert main(["report", str(source), "--prices", str(prices)]) == 0
    page = tmp_path / "agent.html"
    assert capsys.readouterr().out == f"wrote {page} (a cassette of 3 model calls)\n"
    text = page.read_text(encoding="utf-8")
    assert "<title>cassette agent.json</title>" in text
    assert (
        '<p class="facts">4 steps · 3 model calls · 620 input + 50 output tokens · cost '
        "0.000123 USD</p>"
    ) in text
    saved = tmp_path / "agent-report.json"
    argv = ["report", str(source), "-o", str(saved), "--title", "Agent <run>"]
    assert main(argv) == 0
    assert capsys.readouterr().out == f"wrote {saved} (a cassette of 3 model calls)\n"
    report = load_report(saved.read_text(encoding="utf-8"))
    assert report.title == "Agent <run>"
    assert [(s.kind, s.name) for s in report.runs[0].steps] == [
        ("chain", "cassette agent.json"),
        ("model", "gpt-4o-mini"),
        ("model", "gpt-4o-mini"),
        ("model", "gpt-4o-mini"),
    ]
    assert report.runs[0].timed is False
    # The report's JSON form turns into the page again, as any saved report does.
    assert main(["report", str(saved), "-o", str(tmp_path / "again.html")]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'again.html'} (1 run, 4 steps)\n"


def test_report_of_a_cassette_it_cannot_read_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"version": 2, "entries": []}))
    assert error_of(capsys, "report", str(newer)) == (
        f"leanchain report: error: cassette {newer} is format version 2; this leanchain reads "
        "version 1 (record it again)"
    )
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"version": 1, "entries": [{"call": "invoke"}]}))
    assert error_of(capsys, "report", str(broken)) == (
        f"leanchain report: error: cassette {broken} entry 1: needs a 'model' name and a "
        "'request' object"
    )
    entry = {"call": "invoke", "model": "m", "request": {"messages": [5]}, "reply": {"type": "ai"}}
    no_content = tmp_path / "no-content.json"
    no_content.write_text(json.dumps({"version": 1, "entries": [entry]}))
    # The message type's own error runs over lines; the command's says it in one.
    assert error_of(capsys, "report", str(no_content)).startswith(
        f"leanchain report: error: cassette {no_content} entry 1 reply: not a message leanchain "
        "can read: 1 validation error for AIMessage content Field required [type=missing, "
    )
    odd = tmp_path / "odd.json"
    odd.write_text(
        json.dumps({"version": 1, "entries": [{**entry, "reply": {"type": "ai", "content": "x"}}]})
    )
    assert error_of(capsys, "report", str(odd)) == (
        f"leanchain report: error: cassette {odd}: cassette call 1 request message 1: expected "
        "a message object, got int"
    )
    neither = tmp_path / "neither.json"
    neither.write_text(json.dumps({"entries": []}))
    assert error_of(capsys, "report", str(neither)) == (
        f"leanchain report: error: {str(neither)!r} is not a report this leanchain can read: "
        """not a leanchain report: expected a JSON object with "format": 'leanchain.report'"""
    )
