"""The pytest plugin: a cassette per test, named after it; re-recording all of them."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

RECORDING = """
import pytest
from leanchain.language_models import ScriptedChatModel

@pytest.mark.llm_cassette
def test_agent():
    assert ScriptedChatModel([{reply!r}]).invoke("q").text == {reply!r}

@pytest.mark.parametrize("n", [1])
def test_fixture(llm_cassette, n):
    assert llm_cassette.mode == {mode!r}
    assert ScriptedChatModel([{reply!r}]).invoke("p").text == {reply!r}
"""

REPLAYING = """
import pytest
from leanchain.language_models import ScriptedChatModel

@pytest.mark.llm_cassette
def test_agent():
    assert ScriptedChatModel([]).invoke("q").text == {reply!r}

@pytest.mark.parametrize("n", [1])
def test_fixture(llm_cassette, n):
    assert llm_cassette.mode == "replay"
    assert ScriptedChatModel([]).invoke("p").text == {reply!r}
"""


@pytest.fixture(autouse=True)
def _inner_settings(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")


def replies(path: Path) -> list[str]:
    return [e["reply"]["content"] for e in json.loads(path.read_text())["entries"]]


def test_a_test_records_on_its_first_run_and_replays_afterwards(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_weather=RECORDING.format(reply="live", mode="record"))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
    folder = pytester.path / "cassettes" / "test_weather"
    assert sorted(p.name for p in folder.iterdir()) == ["test_agent.json", "test_fixture_1.json"]
    assert replies(folder / "test_agent.json") == ["live"]
    pytester.makepyfile(test_weather=REPLAYING.format(reply="live"))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_record_cassettes_records_every_one_again(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_weather=RECORDING.format(reply="old", mode="record"))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
    pytester.makepyfile(test_weather=RECORDING.format(reply="new", mode="record"))
    pytester.runpytest("-p", "no:cacheprovider", "--record-cassettes").assert_outcomes(passed=2)
    folder = pytester.path / "cassettes" / "test_weather"
    assert replies(folder / "test_agent.json") == ["new"]
    assert replies(folder / "test_fixture_1.json") == ["new"]


def test_replay_mode_makes_a_missing_recording_an_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_weather=RECORDING.format(reply="live", mode="replay"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--cassette-mode=replay")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        ["*FileNotFoundError: cassette *test_agent.json does not exist: record it first*"]
    )


def test_the_marker_names_the_file_and_the_mode(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_named="""
import pytest
from leanchain.language_models import ScriptedChatModel

@pytest.mark.llm_cassette("shared/one.json", mode="record")
def test_first(llm_cassette):
    assert llm_cassette.mode == "record"
    ScriptedChatModel(["shared"]).invoke("q")

@pytest.mark.llm_cassette(path="shared/one.json", mode="replay")
def test_second():
    assert ScriptedChatModel([]).invoke("q").text == "shared"

@pytest.mark.llm_cassette(mode="rewind")
def test_bad_mode():
    pass
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*@pytest.mark.llm_cassette(mode='rewind'): expected one of once, record, replay, none*"]
    )
    assert replies(pytester.path / "cassettes" / "shared" / "one.json") == ["shared"]


def test_async_tests_record_and_replay(pytester: pytest.Pytester) -> None:
    source = """
import pytest
from leanchain.language_models import ScriptedChatModel

pytestmark = pytest.mark.asyncio

@pytest.mark.llm_cassette
async def test_async():
    assert (await ScriptedChatModel({script!r}).ainvoke("q")).text == "async reply"
"""
    pytester.makepyfile(test_async=source.format(script=["async reply"]))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    pytester.makepyfile(test_async=source.format(script=[]))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    path = pytester.path / "cassettes" / "test_async" / "test_async.json"
    assert replies(path) == ["async reply"]


def test_an_unmarked_test_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
from leanchain.language_models import ScriptedChatModel

def test_plain():
    assert ScriptedChatModel(["x"]).invoke("q").text == "x"
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert not (pytester.path / "cassettes").exists()


def test_loading_the_plugin_imports_nothing_of_leanchain() -> None:
    code = (
        "import sys, _leanchain_pytest_plugin\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'leanchain'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "[]\n"


def test_the_plugin_is_registered_by_the_package() -> None:
    [entry] = [
        ep
        for ep in importlib.metadata.distribution("leanchain").entry_points
        if ep.group == "pytest11"
    ]
    assert (entry.name, entry.value) == ("leanchain", "_leanchain_pytest_plugin")
