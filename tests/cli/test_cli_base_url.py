"""A ``--base-url`` no server can be at: one line on stderr, exit 2, nothing sent (issue 14.12)."""

from __future__ import annotations

import os

import pytest

from leanchain.cli import main

ADVICE = (
    "expected an http(s) URL such as 'http://localhost:8000/v1', or no base_url for the "
    "provider's own endpoint"
)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    # A real key in the environment must not be sent anywhere for a URL that is no URL.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key-0123456789")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key-0123456789")


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1", "'http://[::1' is not a valid URL (Invalid IPv6 URL)"),
        ("http://a\x00b/v1", "'http://a\\x00b/v1' has a control character at position 8"),
        ("", "'' is empty"),
        ("localhost:8000/v1", "'localhost:8000/v1' has no http:// or https:// scheme"),
    ],
)
@pytest.mark.parametrize(
    ("model", "cls"), [("openai:m", "ChatOpenAI"), ("anthropic:m", "ChatAnthropic")]
)
def test_a_bad_base_url_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], url: str, problem: str, model: str, cls: str
) -> None:
    assert main(["demo", "--agent", "react", "--model", model, "--base-url", url]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"leanchain demo: error: {cls}'s base_url {problem}: {ADVICE}\n"
    assert captured.out == ""
    assert "real-key" not in captured.err
