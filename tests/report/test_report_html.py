"""The report page as HTML text: self-contained, everything escaped, the numbers people read."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import pytest
from hypothesis import given, settings
from report_support import ATTRIBUTES, INJECTED, PRICES, TAGS, TEXT, Page, run_agent

from leanchain.report import ReportCallbackHandler, load_report, render_html, write_html
from leanchain.report._content import duration, money, preview
from leanchain.runnables import RunnableLambda
from leanchain.tools import tool


def agent_page() -> str:
    handler = ReportCallbackHandler(prices=PRICES)
    run_agent(handler)
    return handler.to_html()


def test_the_page_is_self_contained_and_allows_only_its_own_script() -> None:
    text = agent_page()
    page = Page(text)
    assert set(page.tags) <= TAGS
    assert {name for name, _ in page.attributes} <= ATTRIBUTES
    assert [
        v for name, v in page.attributes if name == "href" and not (v or "").startswith("#")
    ] == []
    assert "src" not in {name for name, _ in page.attributes}
    assert len(page.scripts) == 1
    policy = next(
        v for name, v in page.attributes if name == "content" and v and "default-src" in v
    )
    digest = base64.b64encode(hashlib.sha256(page.scripts[0].encode()).digest()).decode()
    assert policy == (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def test_content_is_shown_as_text() -> None:
    page = Page(agent_page())
    assert INJECTED in page.pres
    assert page.tags.count("script") == 1
    assert "img" not in page.tags
    assert "b" not in page.tags


def test_the_numbers_people_read() -> None:
    text = agent_page()
    facts = re.findall(r'<p class="facts">(.*?)</p>', text)
    assert (
        facts
        == [
            "13 steps · 4 model calls · 4 tool calls · 1 event · 880 input + 59 output tokens · "
            "cost "
            '0.000167 USD · <span class="errors">1 error</span>'
        ]
        * 2
    )
    tokens = re.findall(r'<span class="tokens">(in [^<]*)</span>', text)
    assert tokens == [
        "in 120 · out 30 · 0.000036 USD",
        "in 200 · out 12 · 0.000037 USD",
        "in 260 · out 9 · 0.000044 USD",
        "in 300 · out 8 · 0.00005 USD",
    ]
    assert re.findall(r'<span class="name">(plan \d)</span>', text) == [
        "plan 1", "plan 2", "plan 3", "plan 4"
    ]  # fmt: skip
    assert text.count('class="step kind-tool concurrent"') == 2
    assert text.count('class="step kind-tool error"') == 1
    assert text.count('<details class="event guard"') == 1
    assert (
        '<ul class="error-list"><li><a href="#run-1-step-10">tool broken: '
        "leanchain.errors.ToolException: broken on purpose: test</a></li></ul>"
    ) in text


def test_without_prices_tokens_have_no_cost_and_the_page_says_so() -> None:
    handler = ReportCallbackHandler()
    run_agent(handler)
    text = handler.to_html()
    assert "880 input + 59 output tokens · no price table" in text
    assert "in 120 · out 30</span>" in text
    partial = ReportCallbackHandler(prices={"other-model": {"input": 1, "output": 1}})
    run_agent(partial)
    assert "880 input + 59 output tokens · no priced model" in partial.to_html()


def test_an_empty_report_says_so() -> None:
    text = ReportCallbackHandler(title="nothing <yet>").to_html()
    assert "<title>nothing &lt;yet&gt;</title>" in text
    assert '<p class="empty">No runs were recorded.</p>' in text
    assert "0 runs · made" in text


def test_a_running_step_is_marked_running() -> None:
    handler = ReportCallbackHandler()
    pages: list[str] = []

    def look(x: str) -> str:
        pages.append(handler.to_html())
        return x

    RunnableLambda(look).invoke("a", {"callbacks": [handler]})
    assert '<span class="status">running</span>' in pages[0]
    assert '<span class="bar running"' in pages[0]
    assert '<span class="dur">running</span>' in pages[0]


def test_durations_and_money_read_naturally() -> None:
    assert [duration(s) for s in (0.0004, 0.0042, 0.042, 1.234, 59.9, 125.0)] == [
        "0.40 ms", "4.2 ms", "42 ms", "1.23 s", "59.90 s", "2 min 5 s"
    ]  # fmt: skip
    assert [money(v, "EUR") for v in (0.0, 0.000036, 0.5, 12.3456789)] == [
        "0.00 EUR", "0.000036 EUR", "0.50 EUR", "12.345679 EUR"
    ]  # fmt: skip
    assert preview("a\n  b") == "a b"
    assert preview("x" * 200) == "x" * 119 + "…"
    assert preview({"type": "ai", "content": "", "tool_calls": [{"name": "t"}]}) == "→ t"
    assert preview({"input": "q", "output": "answer"}) == "answer"


@settings(max_examples=200, deadline=None)
@given(observation=TEXT, name=TEXT, error=TEXT, event=TEXT)
def test_whatever_a_run_says_never_becomes_markup(
    observation: str, name: str, error: str, event: str
) -> None:
    from leanchain.callbacks import dispatch_custom_event

    @tool
    def echo(x: str) -> str:
        """Echo."""
        dispatch_custom_event(event, {"action": event, "message": event})
        return observation

    def fail(_: Any) -> None:
        raise ValueError(error)

    handler = ReportCallbackHandler(title=name)
    echo.invoke({"x": name}, {"callbacks": [handler]})
    with pytest.raises(ValueError) as failed:
        RunnableLambda(fail, name=name).invoke(1, {"callbacks": [handler]})
    assert str(failed.value) == error
    page = Page(handler.to_html())
    assert set(page.tags) <= TAGS
    assert page.tags.count("script") == 1
    assert {n for n, _ in page.attributes} <= ATTRIBUTES
    assert observation in page.pres
    assert f"ValueError: {error}" in page.pres
    assert {"action": event, "message": event} == load_report(handler.report().to_json()).runs[
        0
    ].events[0].data


def test_write_html_writes_utf8_even_for_lone_surrogates(tmp_path: Any) -> None:
    handler = ReportCallbackHandler()
    RunnableLambda(lambda x: "bad \ud800 text é").invoke(1, {"callbacks": [handler]})
    path = write_html(handler.report(), tmp_path / "r.html")
    text = path.read_text(encoding="utf-8")
    assert "bad ? text é" in text
    assert (
        handler.write_json(tmp_path / "r.json").read_text(encoding="utf-8").count("bad ? text") == 1
    )
    assert render_html(handler.report()).startswith('<!DOCTYPE html>\n<html lang="en">')
