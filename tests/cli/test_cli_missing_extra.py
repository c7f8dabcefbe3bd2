"""``leanchain demo --model`` in a core-only install (what `make demo` makes): one line that
says which extra to install, and how from a checkout."""

from __future__ import annotations

import sys

import pytest

from leanchain.cli import main


@pytest.mark.parametrize(
    ("model", "cls", "package"),
    [("openai:gpt-4o-mini", "ChatOpenAI", "openai"), ("anthropic:c", "ChatAnthropic", "anthropic")],
)
def test_a_missing_provider_sdk_names_the_extra(
    model: str,
    cls: str,
    package: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # import fails as if not installed
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert main(["demo", "--model", model]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"leanchain demo: error: {cls} needs the {package!r} package: "
        f"pip install 'leanchain[{package}]'; in a checkout of leanchain: make install, or "
        f".venv/bin/python -m pip install -e '.[{package}]'\n"
    )
