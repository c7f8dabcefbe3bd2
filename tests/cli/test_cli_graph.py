"""``leanchain graph MODULE:ATTR``: drawings of imported runnables, and one-line errors."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest

from leanchain.cli import main
from leanchain.prompts import PromptTemplate
from leanchain.runnables import RunnableLambda

MODULE = """
from leanchain.prompts import PromptTemplate
from leanchain.runnables import RunnableLambda

chain = PromptTemplate.from_template("Say {word}") | RunnableLambda(lambda v: v.to_string())


class Holder:
    inner = chain
    NOTHING = None

    class Inner:
        class Value:
            pass

        value = Value()


def make_chain():
    return chain


def needs_an_argument(x):
    return chain


def not_a_runnable():
    return 42


def returns_nothing():
    return None


def returns_a_class():
    return Holder


NUMBER = 7
ITEMS = [1, 2]
"""


def _expected() -> tuple[str, str]:
    chain = PromptTemplate.from_template("Say {word}") | RunnableLambda(lambda v: v.to_string())
    graph = chain.get_graph()
    return graph.draw_mermaid(), graph.draw_ascii()


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """A module in the working directory, named after the test so imports never collide."""
    name = "graphmod_" + re.sub(r"\W", "_", request.node.name)
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    return name


@pytest.mark.parametrize("attr", ["chain", "Holder.inner", "make_chain"])
def test_mermaid_is_the_default(attr: str, module: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", f"{module}:{attr}"]) == 0
    mermaid, _ = _expected()
    assert capsys.readouterr().out == mermaid.rstrip("\n") + "\n"


def test_ascii(module: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", f"{module}:chain", "--format", "ascii"]) == 0
    _, ascii_art = _expected()
    assert capsys.readouterr().out == ascii_art.rstrip("\n") + "\n"


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1, captured.err
    return captured.err.rstrip("\n")


@pytest.mark.parametrize("path", ["nocolon", ":chain", "module:", ""])
def test_malformed_path(path: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "graph", path) == (
        f"leanchain graph: error: expected MODULE:ATTR (e.g. myapp.chains:chain), got {path!r}"
    )


def test_missing_module(module: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "graph", "no_such_module_here.sub:chain") == (
        "leanchain graph: error: cannot import 'no_such_module_here.sub': "
        "no module named 'no_such_module_here'"
    )


def test_missing_attribute(module: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "graph", f"{module}:nope") == (
        f"leanchain graph: error: {module!r} has no attribute 'nope'"
    )
    assert _error(capsys, "graph", f"{module}:Holder.nope") == (
        f"leanchain graph: error: '{module}:Holder' has no attribute 'nope'"
    )


@pytest.mark.parametrize(
    ("attr", "kind"),
    [
        ("NUMBER", "an object of type 'int'"),
        ("ITEMS", "an object of type 'list'"),
        ("Holder.NOTHING", "None"),
        ("Holder.Inner.value", "an object of type 'Holder.Inner.Value'"),
    ],
)
def test_not_a_runnable(
    attr: str, kind: str, module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _error(capsys, "graph", f"{module}:{attr}") == (
        f"leanchain graph: error: '{module}:{attr}' is {kind}, not a runnable "
        "(or a function with no arguments that returns one)"
    )


@pytest.mark.parametrize(
    ("attr", "kind"),
    [
        ("not_a_runnable", "an object of type 'int'"),
        ("returns_nothing", "None"),
        ("returns_a_class", "the class 'Holder'"),
    ],
)
def test_a_function_that_returns_no_runnable(
    attr: str, kind: str, module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _error(capsys, "graph", f"{module}:{attr}") == (
        f"leanchain graph: error: calling '{module}:{attr}'() returned {kind}, not a runnable"
    )


def test_function_that_needs_arguments(module: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "graph", f"{module}:needs_an_argument") == (
        f"leanchain graph: error: calling '{module}:needs_an_argument'() failed: TypeError: "
        "needs_an_argument() missing 1 required positional argument: 'x'"
    )


def test_module_that_fails_to_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "graphmod_broken.py").write_text("import no_such_dependency_xyz\n")
    (tmp_path / "graphmod_raises.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    assert _error(capsys, "graph", "graphmod_broken:x") == (
        "leanchain graph: error: importing 'graphmod_broken' failed: ModuleNotFoundError: "
        "No module named 'no_such_dependency_xyz'"
    )
    assert _error(capsys, "graph", "graphmod_raises:x") == (
        "leanchain graph: error: importing 'graphmod_raises' failed: RuntimeError: boom"
    )


def test_a_library_runnable(capsys: pytest.CaptureFixture[str]) -> None:
    from leanchain.agents.prompts import REACT_PROMPT

    assert main(["graph", "leanchain.agents.prompts:REACT_PROMPT", "--format", "ascii"]) == 0
    assert capsys.readouterr().out == REACT_PROMPT.get_graph().draw_ascii().rstrip("\n") + "\n"
