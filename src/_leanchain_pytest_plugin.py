"""leanchain's pytest plugin (the ``pytest11`` entry point): a cassette per test.

It is a top-level module of its own, outside the ``leanchain`` package (as hypothesis does with
``_hypothesis_pytestplugin``), and imports nothing of leanchain until a test asks for a
cassette: pytest loads every installed plugin on every run, and marks the package a plugin
lives in for assertion rewriting.

A test that asks for the ``llm_cassette`` fixture, or is marked ``@pytest.mark.llm_cassette``,
runs inside `cassette` (`leanchain.testing`): its chat-model calls are recorded to
``cassettes/<test module>/<test name>.json`` next to the test file on the first run and
replayed from it afterwards (mode ``"once"``)::

    @pytest.mark.llm_cassette
    def test_agent():
        ...

    @pytest.mark.llm_cassette("shared/weather.json", mode="replay")
    def test_weather(llm_cassette):
        assert llm_cassette.mode == "replay"

``--record-cassettes`` records every cassette again; ``--cassette-mode=MODE`` sets the mode of
all of them (``replay`` in CI makes a missing recording an error instead of a live call).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

if TYPE_CHECKING:
    from leanchain.testing._cassette import Cassette, CassetteMode

FIXTURE = "llm_cassette"
_MODES = ("once", "record", "replay", "none")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's command-line options."""
    group = parser.getgroup("leanchain", "leanchain cassettes")
    group.addoption(
        "--record-cassettes",
        action="store_true",
        default=False,
        help="record every leanchain cassette again (mode 'record'), replacing the files",
    )
    group.addoption(
        "--cassette-mode",
        choices=_MODES,
        default=None,
        help="the mode of every leanchain cassette: once (the default: replay if the file "
        "exists, else record), record, replay (a missing recording fails), none (live calls)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Declare the marker."""
    config.addinivalue_line(
        "markers",
        f"{FIXTURE}(path=None, *, mode=None): run the test inside a leanchain cassette "
        "(default file: cassettes/<module>/<test>.json next to the test file)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A marked test uses the fixture even when it does not ask for it."""
    for item in items:
        if item.get_closest_marker(FIXTURE) is not None:
            names = cast(list[str], getattr(item, "fixturenames", None))
            if names is not None and FIXTURE not in names:
                names.append(FIXTURE)


def cassette_path(request: pytest.FixtureRequest, given: Any) -> Path:
    """Where the test's cassette lives: `given` (relative to the test file's ``cassettes``
    folder), or ``cassettes/<module>/<test name>.json``."""
    folder = Path(str(request.node.path)).parent / "cassettes"
    if given is not None:
        return folder / str(given)
    module = Path(str(request.node.path)).stem
    name = _UNSAFE.sub("_", request.node.name).strip("_") or "test"
    return folder / module / f"{name}.json"


def cassette_mode(config: pytest.Config, marked: Any) -> CassetteMode:
    """The mode: ``--record-cassettes``, else ``--cassette-mode``, else the marker's, else
    ``"once"``.

    Raises:
        pytest.UsageError: the marker names an unknown mode.
    """
    if config.getoption("--record-cassettes"):
        return "record"
    chosen = config.getoption("--cassette-mode") or marked or "once"
    if chosen not in _MODES:
        raise pytest.UsageError(
            f"@pytest.mark.{FIXTURE}(mode={chosen!r}): expected one of {', '.join(_MODES)}"
        )
    return cast("CassetteMode", chosen)


@pytest.fixture
def llm_cassette(request: pytest.FixtureRequest) -> Iterator[Cassette]:
    """The test's cassette, entered for the whole test (see the module docstring)."""
    from leanchain.testing._cassette import Cassette

    marker = request.node.get_closest_marker(FIXTURE)
    given = marker.args[0] if marker is not None and marker.args else None
    if marker is not None and "path" in marker.kwargs:
        given = marker.kwargs["path"]
    marked = marker.kwargs.get("mode") if marker is not None else None
    tape = Cassette(cassette_path(request, given), cassette_mode(request.config, marked))
    with tape:
        yield tape
