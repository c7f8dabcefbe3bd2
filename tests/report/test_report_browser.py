"""The report page in a real headless Chromium: it loads cleanly, its timeline reads in time
order, a click shows a step's prompt, and a script in a tool's result never runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from report_browser import INSTALL_HINT, Page, require_chromium
from report_support import AGENT_STEPS, INJECTED, PRICES, QUESTION, run_agent

from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.cli import main
from leanchain.language_models import ScriptedChatModel
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate
from leanchain.report import Report, ReportCallbackHandler, load_report

Show = Callable[[Report], Page]


def agent_report() -> Report:
    handler = ReportCallbackHandler(prices=PRICES)
    run_agent(handler)
    return handler.report()


def visible(page: Page, selector: str) -> bool:
    found = page.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
        " return e ? e.checkVisibility() : null; })()"
    )
    assert found is not None, f"no element matches {selector!r}"
    return bool(found)


def test_the_page_loads_with_no_console_errors(show: Show) -> None:
    page = show(agent_report())
    assert page.evaluate("document.title") == "leanchain run report"
    assert page.evaluate("document.readyState") == "complete"
    page.click("#expand-all")
    page.click("#collapse-all")
    assert page.problems() == []


def test_the_timeline_shows_one_bar_per_step_in_time_order(show: Show) -> None:
    page = show(agent_report())
    rows = page.evaluate(
        "[...document.querySelectorAll('#run-1 .timeline > details')].map(d => "
        "[d.classList.contains('event') ? 'event' : d.querySelector('.kind').textContent,"
        " d.querySelector('.name').textContent])"
    )
    names = [[kind, name] for kind, name, _ in AGENT_STEPS]
    plans = iter(["plan 1", "plan 2", "plan 3", "plan 4"])
    names = [[kind, next(plans) if kind == "plan" else name] for kind, name in names]
    assert rows == [*names[:8], ["event", "leanchain.loop_guard"], *names[8:]]
    bars = page.evaluate(
        "[...document.querySelectorAll('#run-1 details.step .bar')].map(b => {"
        " const r = b.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    assert len(bars) == len(AGENT_STEPS)
    lefts = [left for left, _ in bars]
    assert lefts == sorted(lefts)
    (paris_left, paris_right), (rome_left, rome_right) = bars[3], bars[4]
    assert paris_left < rome_right  # the two concurrent lookups overlap on the time axis
    assert rome_left < paris_right
    assert page.evaluate("document.querySelectorAll('#run-1 .concurrent').length") == 2
    assert page.problems() == []


def test_steps_are_collapsed_and_clicking_one_shows_its_prompt(show: Show) -> None:
    page = show(agent_report())
    assert page.evaluate("[...document.querySelectorAll('details')].some(d => d.open)") is False
    prompt = "#run-1-step-2 .part.prompt"
    assert not visible(page, prompt)
    page.click("#run-1-step-2 > summary")
    assert page.evaluate("document.querySelector('#run-1-step-2').open") is True
    assert visible(page, prompt)
    system = TOOL_CALLING_PROMPT.invoke({"input": QUESTION, "agent_scratchpad": []}).messages[0]
    assert page.evaluate(f"document.querySelector({json.dumps(prompt)}).innerText") == (
        f"PROMPT\nSYSTEM\n{system.content}\nHUMAN\n{QUESTION}"
    )
    page.click("#run-1-step-2 > summary")
    assert not visible(page, prompt)
    assert page.problems() == []


def test_a_script_in_an_observation_is_shown_and_never_runs(show: Show) -> None:
    page = show(agent_report())
    page.click("#run-1-step-7 > summary")
    observation = "#run-1-step-7 .part.observation pre"
    assert visible(page, observation)
    assert page.evaluate(f"document.querySelector({json.dumps(observation)}).textContent") == (
        INJECTED
    )
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.scripts.length") == 1
    assert page.evaluate("document.images.length") == 0
    assert page.evaluate("document.querySelectorAll('b').length") == 0
    assert page.problems() == []


def test_errors_stand_out_and_their_links_open_the_step(show: Show) -> None:
    page = show(agent_report())
    colour = "getComputedStyle(document.querySelector('#run-1-step-10 .bar')).backgroundColor"
    assert page.evaluate(colour) == "rgb(207, 34, 46)"
    assert visible(page, "#run-1-step-10 .error-line")
    assert page.evaluate("document.querySelector('#run-1-step-10 .error-line').innerText") == (
        "leanchain.errors.ToolException: broken on purpose: test"
    )
    page.click(".error-list a")
    assert page.evaluate("location.hash") == "#run-1-step-10"
    assert page.wait_until("document.querySelector('#run-1-step-10').open")
    assert page.problems() == []


def test_a_guard_event_is_a_marked_point_between_the_steps_around_it(show: Show) -> None:
    page = show(agent_report())
    marks = page.evaluate(
        "[...document.querySelectorAll('.event .mark')].map(m => {"
        " const r = m.getBoundingClientRect(); return r.x + r.width / 2; })"
    )
    assert len(marks) == 1
    left = page.evaluate(
        "[7, 8].map(i => document.querySelector(`#run-1-step-${i} .bar`).getBoundingClientRect().x)"
    )
    assert left[0] <= marks[0] <= left[1]
    assert page.evaluate("document.querySelector('.event .said').textContent") == (
        "warn — fetch_page seen twice"
    )
    assert (
        page.evaluate(
            "getComputedStyle(document.querySelector('.event.guard .mark')).backgroundColor"
        )
        == "rgb(188, 76, 0)"
    )


def test_a_batch_is_one_section_per_run(show: Show) -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    chain = prompt | ScriptedChatModel(["a", "b", "c"]) | StrOutputParser()
    handler = ReportCallbackHandler()
    chain.batch([{"q": "1"}, {"q": "2"}, {"q": "3"}], {"callbacks": [handler]})
    page = show(handler.report())
    assert page.evaluate("document.querySelectorAll('main > section.run').length") == 3
    assert page.evaluate("document.querySelectorAll('.contents li').length") == 3
    assert page.evaluate(
        "[...document.querySelectorAll('section.run')].map(s => "
        "s.querySelectorAll('details.step').length)"
    ) == [4, 4, 4]
    page.click("#expand-all")
    assert page.evaluate("[...document.querySelectorAll('details')].every(d => d.open)") is True
    page.click("#collapse-all")
    assert page.evaluate("[...document.querySelectorAll('details')].some(d => d.open)") is False
    assert page.problems() == []


def test_the_demo_report_loads_cleanly(
    show: Show, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--report", str(tmp_path / "demo.json")]) == 0
    capsys.readouterr()
    report = load_report((tmp_path / "demo.json").read_text(encoding="utf-8"))
    page = show(report)
    names = "[...document.querySelectorAll('.contents a')].map(a => a.textContent)"
    assert page.evaluate(names) == [
        "tool-calling agent", "react agent", "structured-chat agent", "json-chat agent",
        "xml agent",
    ]  # fmt: skip
    assert page.evaluate("document.querySelectorAll('details.step').length") == 61
    assert page.problems() == []


def test_loop_guard_warnings_and_its_stop_are_marked_on_the_timeline(
    show: Show, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "loop.json"
    assert main(["demo", "--agent", "tool-calling", "--loop", "--report", str(saved)]) == 0
    capsys.readouterr()
    page = show(load_report(saved.read_text(encoding="utf-8")))
    events = page.evaluate(
        "[...document.querySelectorAll('details.event')].map(e => [e.className,"
        " e.querySelector('.name').textContent, e.querySelector('.said').textContent])"
    )
    assert [(css, name) for css, name, _ in events] == [
        ("event guard", "leanchain.loop_guard"),
        ("event guard stop", "leanchain.loop_guard"),
    ]
    assert events[1][2].startswith("stop — the agent kept repeating the calls city_facts(")
    stop_mark = "getComputedStyle(document.querySelector('.event.stop .mark')).backgroundColor"
    assert page.evaluate(stop_mark) == "rgb(207, 34, 46)"
    page.click(".event.stop > summary")
    assert visible(page, ".event.stop .body pre")
    assert '"action": "stop"' in page.evaluate(
        "document.querySelector('.event.stop .body pre').textContent"
    )
    assert page.problems() == []


def test_without_chromium_the_tests_fail_saying_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("LEANCHAIN_CHROMIUM", raising=False)
    with pytest.raises(pytest.fail.Exception) as failed:
        require_chromium()
    assert str(failed.value) == INSTALL_HINT
    assert "apt-get install -y chromium" in INSTALL_HINT
