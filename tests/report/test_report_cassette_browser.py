"""The page of a recorded multi-step agent cassette in a real headless Chromium: it loads
cleanly, one bar per model call in order, a click shows the prompt, a script in a reply is
text that never runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

from report_browser import Browser, Page
from report_cassettes import ANSWER, QUESTION, SYSTEM, run
from report_support import INJECTED, MODEL

from leanchain.report import Report, report_from_cassette
from leanchain.testing.cassettes import load_entries

Show = Callable[[Report], Page]


def cassette_report(tmp_path: Path) -> Report:
    path = tmp_path / "agent.json"
    assert run(path) == ANSWER
    return report_from_cassette(load_entries(path), name="cassette agent.json")


def rows(page: Page) -> list[list[str]]:
    return page.evaluate(  # type: ignore[no-any-return]
        "[...document.querySelectorAll('#run-1 .timeline > details')].map(d => "
        "[d.querySelector('.kind').textContent, d.querySelector('.name').textContent,"
        " d.querySelector('.dur').textContent])"
    )


def model_bars(page: Page) -> list[list[float]]:
    return page.evaluate(  # type: ignore[no-any-return]
        "[...document.querySelectorAll('#run-1 details.kind-model .bar')].map(b => {"
        " const r = b.getBoundingClientRect(); return [r.left, r.right]; })"
    )


def test_the_page_of_a_cassette_file_loads_with_one_bar_per_model_call_in_order(
    show: Show, tmp_path: Path
) -> None:
    page = show(cassette_report(tmp_path))
    assert page.evaluate("document.title") == "cassette agent.json"
    assert rows(page) == [
        ["chain", "cassette agent.json", "—"],
        ["model", MODEL, "—"],
        ["model", MODEL, "—"],
        ["model", MODEL, "—"],
    ]
    bars = model_bars(page)
    assert len(bars) == 3
    for (_, right), (left, _) in pairwise(bars):
        assert right <= left + 0.5  # in order, one after the other, no time shared
    widths = {round(right - left) for left, right in bars}
    assert len(widths) == 1  # untimed: every call one slot
    axis = "document.querySelector('#run-1 .axis .tick').textContent"
    assert page.evaluate(axis) == "calls in order · no times recorded"
    assert page.problems() == []


def test_clicking_a_model_call_shows_its_prompt(show: Show, tmp_path: Path) -> None:
    page = show(cassette_report(tmp_path))
    prompt = "#run-1-step-1 .part.prompt"
    assert page.evaluate(f"document.querySelector({json.dumps(prompt)}).checkVisibility()") is False
    page.click("#run-1-step-1 > summary")
    assert page.evaluate(f"document.querySelector({json.dumps(prompt)}).innerText") == (
        f"PROMPT\nSYSTEM\n{SYSTEM}\nHUMAN\n{QUESTION}"
    )
    page.click("#run-1-step-3 > summary")
    last = "#run-1-step-3 .part.prompt .message.role-tool pre"
    assert page.evaluate(
        f"[...document.querySelectorAll({json.dumps(last)})].map(p => p.textContent)"
    ) == ["Paris: a capital", "Rome: a capital", INJECTED]
    assert page.problems() == []


def test_a_script_in_a_reply_is_shown_as_text_and_never_runs(show: Show, tmp_path: Path) -> None:
    page = show(cassette_report(tmp_path))
    page.click("#expand-all")
    reply = "#run-1-step-3 .part.reply pre"
    assert page.evaluate(f"document.querySelector({json.dumps(reply)}).textContent") == ANSWER
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.scripts.length") == 1
    assert page.evaluate("document.images.length") == 0
    assert page.evaluate("document.querySelectorAll('b').length") == 0
    assert page.problems() == []


def test_the_page_a_recording_block_writes_is_timed_and_loads_cleanly(
    browser: Browser, tmp_path: Path
) -> None:
    written = tmp_path / "recorded.html"
    assert run(tmp_path / "agent.json", report=written) == ANSWER
    page = browser.page(written)
    try:
        assert page.evaluate("document.title") == "cassette agent.json (recorded)"
        assert [kind for kind, _, _ in rows(page)] == ["chain", "model", "model", "model"]
        assert all(took != "—" for _, _, took in rows(page))
        lefts = [left for left, _ in model_bars(page)]
        assert lefts == sorted(lefts)
        assert len(set(lefts)) == 3
        assert page.problems() == []
    finally:
        page.close()
