"""``leanchain demo --approve``: each tool call waits for an answer typed at the terminal."""

from __future__ import annotations

import io

import pytest

from leanchain.cli import main
from leanchain.cli._demo_models import DEMO_QUESTION

REJECTED = "A person rejected this call to 'convert_units', so it did not run."


def _demo(monkeypatch: pytest.MonkeyPatch, answers: str, *args: str) -> int:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    return main(["demo", "--approve", *args])


def test_each_call_is_asked_about_and_a_rejected_one_does_not_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _demo(monkeypatch, "y\nmaybe\nn\n", "--agent", "react") == 0
    assert capsys.readouterr().out == (
        "=== react agent (create_react_agent, offline demo model) ===\n"
        f"Question: {DEMO_QUESTION}\n"
        "  ? run city_facts('Paris')? [y]es, [n]o, [e]dit: y\n"
        "Step 1\n"
        "  | I need the population of Paris and the height of the Eiffel Tower.\n"
        "  | Action: city_facts\n"
        "  | Action Input: Paris\n"
        "  -> city_facts('Paris')\n"
        "  <- city_facts: Paris: country France; population 2102650; landmark Eiffel Tower; "
        "landmark_height 330 m\n"
        "  ? run convert_units('330 m to ft')? [y]es, [n]o, [e]dit: maybe\n"
        "  please answer y, n or e\n"
        "  ? run convert_units('330 m to ft')? [y]es, [n]o, [e]dit: n\n"
        "Step 2\n"
        "  | Paris has 2102650 inhabitants and the Eiffel Tower is 330 m tall. Next I convert "
        "the height to feet.\n"
        "  | Action: convert_units\n"
        "  | Action Input: 330 m to ft\n"
        "  -> convert_units('330 m to ft')\n"
        f"  <- convert_units: {REJECTED}\n"
        f'Final answer: I cannot go on: the convert_units tool returned "{REJECTED}", which '
        "is not what this offline demo model expects.\n"
    )


def test_an_edit_runs_the_call_with_the_new_arguments(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = 'y\ne\nnot json\ne\n"330 m to km"\n'
    assert _demo(monkeypatch, answers, "--agent", "react") == 0
    out = capsys.readouterr().out
    assert (
        "  ? run convert_units('330 m to ft')? [y]es, [n]o, [e]dit: e\n"
        "  new arguments (JSON): not json\n"
        "  that is not JSON\n"
        "  ? run convert_units('330 m to ft')? [y]es, [n]o, [e]dit: e\n"
        '  new arguments (JSON): "330 m to km"\n'
    ) in out
    assert "  <- convert_units: 330 m = 0.33 km\n" in out


def test_no_answer_rejects_the_call(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _demo(monkeypatch, "", "--agent", "xml") == 0
    out = capsys.readouterr().out
    assert (
        "  ? run city_facts('Paris')? [y]es, [n]o, [e]dit: \n  (no answer: the call is rejected)\n"
    ) in out
    assert (
        "  <- city_facts: A person rejected this call to 'city_facts', so it did not run.\n" in out
    )


def test_edited_arguments_the_tool_refuses_end_the_demo_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = 'e\n{"place": "Paris"}\n'
    assert _demo(monkeypatch, answers, "--agent", "structured-chat") == 2
    assert capsys.readouterr().err == (
        "leanchain demo: error: the answer could not be used: The edited arguments for call "
        "'call-1-0' ('city_facts') do not match the tool's schema: Tool 'city_facts' got "
        "invalid arguments: 'city': Field required\n"
    )
