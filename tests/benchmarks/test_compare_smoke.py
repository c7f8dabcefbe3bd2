"""The side-by-side comparison runs its plain and leanchain columns and writes its reports.

LangChain and the agent peers are not installed here: their columns are made up from
leanchain's samples (for the workloads each implements), which is all the writers need. Quick
mode; no timing is asserted.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.compare import (  # noqa: E402
    concurrent,
    lean,
    peer_create_agent,
    peer_openai_agents,
    peer_pydantic_ai,
    plain,
)
from benchmarks.compare.measure import Result, measure_all  # noqa: E402
from benchmarks.compare.report import (  # noqa: E402
    HEADER,
    environment,
    footnotes,
    format_ratio,
    format_value,
    from_json,
    print_table,
    to_json,
    to_markdown,
    write_outputs,
)
from benchmarks.compare.spec import (  # noqa: E402
    IMPLEMENTATIONS,
    PEERS,
    WORKLOADS,
    Call,
    Concurrent,
    Import,
    Settings,
    Workload,
    workload,
)

QUICK = Settings(quick=True)
ALL_KEYS = {w.key for w in WORKLOADS}
TOP_NAMES = {"import_top_names_time", "import_top_names_memory"}
LEANCHAIN_ONLY = {"import_top_time", "import_top_memory", *TOP_NAMES}
AGENT_PEER_KEYS = {
    "import_agent_time",
    "import_agent_memory",
    "agent_tool_calling",
    "agent_openai",
    "agent_openai_async",
    "concurrent_time",
    "concurrent_memory",
}
"""The workloads every agent peer implements (the text agents are classic LangChain's only)."""
PEER_CASES = {
    "create_agent": peer_create_agent.CASES,
    "pydantic_ai": peer_pydantic_ai.CASES,
    "openai_agents": peer_openai_agents.CASES,
}
PEER_MODULES = {
    "create_agent": "langchain.agents",
    "pydantic_ai": "pydantic_ai.models.function",
    "openai_agents": "agents.testing",
}
"""A module each peer's scripted case imports (dotted: ``tests/agents`` is not the SDK)."""
FACTOR = {"langchain": 4.0, "create_agent": 2.0, "pydantic_ai": 8.0, "openai_agents": 0.5}
"""Each made-up column: this many times leanchain's samples (powers of two: exact ratios)."""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _columns_of(key: str) -> list[str]:
    """The made-up columns a workload gets: LangChain's unless leanchain-only, and the peers'
    for the agent workloads they implement."""
    if key in LEANCHAIN_ONLY:
        return []
    return ["langchain", *(peer for peer, cases in PEER_CASES.items() if key in cases)]


def _ratio_columns(result: Result) -> list[str]:
    """The made-up columns that have a ratio to leanchain: none where a leanchain sample is 0
    (five concurrent runs may need no new memory), as a ratio to nothing is no ratio."""
    leanchain = result.samples.get("leanchain")
    if not leanchain or min(leanchain) <= 0:
        return []
    return _columns_of(result.workload.key)


@pytest.fixture(scope="module")
def results() -> list[Result]:
    """Every workload measured in quick mode, with made-up LangChain and peer columns."""
    measured = measure_all(
        WORKLOADS, {"plain": plain.CASES, "leanchain": lean.CASES}, QUICK, strict=True
    )
    for result in measured:
        if "leanchain" in result.samples:
            for name in _columns_of(result.workload.key):
                result.samples[name] = [FACTOR[name] * v for v in result.samples["leanchain"]]
    return measured


def test_plain_and_leanchain_implement_every_workload() -> None:
    assert set(plain.CASES) == ALL_KEYS
    # The top-level names exist once the lead exports them from leanchain/__init__.py.
    assert set(lean.CASES) | TOP_NAMES == ALL_KEYS


def test_the_agent_peers_implement_the_agent_workloads() -> None:
    for cases in PEER_CASES.values():
        assert set(cases) == AGENT_PEER_KEYS
    assert set(concurrent.MODULES) == set(IMPLEMENTATIONS)
    assert PEERS == ("langchain", "create_agent", "pydantic_ai", "openai_agents")


def test_a_peer_case_names_its_column_and_imports_its_library_only_when_built() -> None:
    for peer, cases in PEER_CASES.items():
        assert cases["concurrent_time"](QUICK) == Concurrent(peer)
        assert cases["concurrent_memory"](QUICK) == Concurrent(peer)
        code = cases["import_agent_time"](QUICK)
        assert isinstance(code, Import)
        assert code == cases["import_agent_memory"](QUICK)
        assert "gpt-4o-mini" in code.code
        if not _installed(PEER_MODULES[peer]):
            # Here, as in CI: the library is absent, and building its case says so.
            with pytest.raises(ModuleNotFoundError, match=r"^No module named '"):
                cases["agent_tool_calling"](QUICK)
        else:
            case = cases["agent_tool_calling"](QUICK)
            assert isinstance(case, Call)
            assert case.run() == case.expected == "42"


def test_a_concurrent_column_that_cannot_run_is_an_error_that_says_why() -> None:
    server = concurrent.ConcurrentServer(QUICK)
    try:
        with pytest.raises(RuntimeError, match=r"^concurrent no_such_column failed: KeyError: "):
            concurrent.sample(Concurrent("no_such_column"), server, QUICK)
    finally:
        server.stop()


def test_every_workload_is_measured_in_every_round_without_errors(
    results: list[Result],
) -> None:
    assert [r.workload for r in results] == list(WORKLOADS)
    for result in results:
        assert result.errors == {}
        names = ["plain", "leanchain"] if result.workload.key in lean.CASES else ["plain"]
        names += _columns_of(result.workload.key)
        assert sorted(result.samples) == sorted(names), result.workload.key
        concurrent_kind = result.workload.kind.startswith("concurrent")
        for samples in result.samples.values():
            assert len(samples) == (QUICK.concurrent_rounds if concurrent_kind else QUICK.rounds)
            if result.workload.kind == "concurrent_memory":
                # Five runs may fit in memory the process already had.
                assert all(value >= 0 for value in samples), (result.workload.key, samples)
            else:
                assert all(value > 0 for value in samples), (result.workload.key, samples)


def test_ratios_are_medians_of_per_round_ratios() -> None:
    result = Result(
        workload("invoke_10"), {"plain": [1.0, 4.0, 4.0], "leanchain": [3.0, 4.0, 20.0]}
    )
    assert result.median("plain") == 4.0
    assert result.median("leanchain") == 4.0
    assert result.ratio("leanchain", "plain") == 3.0
    assert result.ratio("langchain", "leanchain") is None
    assert result.median("langchain") is None


def test_numbers_are_formatted_for_people() -> None:
    assert [format_value(v) for v in (None, 0.1234, 2.345, 12.34, 1234.5)] == [
        "-",
        "0.123",
        "2.35",
        "12.3",
        "1,234",
    ]
    assert [format_ratio(r) for r in (None, 0.5, 3.44, 42.4, 1250.0)] == [
        "-",
        "0.50x",
        "3.4x",
        "42x",
        "1,250x",
    ]


def test_json_has_the_environment_and_one_entry_per_workload(results: list[Result]) -> None:
    env = environment(QUICK)
    data = json.loads(json.dumps(to_json(results, env)))
    assert sorted(data) == [
        "columns",
        "concurrent_rounds",
        "date",
        "machine",
        "python",
        "quick",
        "rounds",
        "versions",
        "workloads",
    ]
    assert data["columns"] == list(IMPLEMENTATIONS)
    assert data["quick"] is True
    assert data["rounds"] == 2
    assert data["concurrent_rounds"] == 1
    assert sorted(data["machine"]) == ["cpu_count", "machine", "platform"]
    assert sorted(data["python"]) == ["implementation", "version"]
    assert data["versions"]["leanchain"] is not None
    assert data["versions"]["langchain-core"] is None
    assert data["versions"]["openai-agents"] is None
    assert [entry["key"] for entry in data["workloads"]] == [w.key for w in WORKLOADS]
    for entry, result in zip(data["workloads"], results, strict=True):
        assert sorted(entry) == [
            "errors",
            "group",
            "key",
            "leanchain_over_plain",
            "median",
            "note",
            "over_leanchain",
            "samples",
            "title",
            "unit",
        ]
        assert entry["median"] == {name: result.median(name) for name in IMPLEMENTATIONS}
        assert entry["leanchain_over_plain"] == result.ratio("leanchain", "plain")
        made_up = _ratio_columns(result)
        assert entry["over_leanchain"] == {
            name: (FACTOR[name] if name in made_up else None) for name in PEERS
        }


def test_markdown_has_the_summary_and_a_row_per_workload(results: list[Result]) -> None:
    env = environment(QUICK)
    lines = to_markdown(results, env).splitlines()
    assert lines[0] == (
        "## leanchain vs LangChain, pydantic-ai, the OpenAI Agents SDK and plain Python"
    )
    assert lines[2].startswith(f"Measured {env['date']} on ")
    python = env["python"]
    assert f"; {python['implementation']} {python['version']}; leanchain " in lines[2]
    assert lines[6] == "**Quick mode: the numbers are not meaningful.**"
    assert lines[8] == "| " + " | ".join(HEADER) + " |"
    assert HEADER == (
        "workload",
        "unit",
        "plain",
        "leanchain",
        "LangChain",
        "create_agent",
        "pydantic-ai",
        "OpenAI Agents",
        "leanchain / plain",
        "LangChain / leanchain",
        "create_agent / leanchain",
        "pydantic-ai / leanchain",
        "OpenAI Agents / leanchain",
    )
    assert lines[9] == "|---|---|" + "---:|" * 11
    rows = lines[10 : 10 + len(results)]
    notes = footnotes(results)
    assert notes[0].startswith("from `leanchain.runnables` vs `langchain_core.runnables`")
    assert len(notes) == len({w.note for w in WORKLOADS if w.note})
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == [
        w.title + (f" [{notes.index(w.note) + 1}]" if w.note else "") for w in WORKLOADS
    ]
    for row, result in zip(rows, results, strict=True):
        cells = row.removeprefix("| ").removesuffix(" |").split(" | ")
        assert len(cells) == len(HEADER)
        assert cells[1] == result.workload.unit
        made_up = _ratio_columns(result)
        assert cells[9:] == [
            (format_ratio(FACTOR[name]) if name in made_up else "-") for name in PEERS
        ]
    assert lines[10 + len(results) :] == [
        "",
        "Notes:",
        "",
        *(f"{i}. {note}" for i, note in enumerate(notes, 1)),
    ]


def test_printed_table_has_a_row_per_workload(
    results: list[Result], capsys: pytest.CaptureFixture[str]
) -> None:
    print_table(results, environment(QUICK))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        "leanchain vs LangChain, pydantic-ai, the OpenAI Agents SDK and plain Python: "
    )
    assert lines[1] == "(quick mode: the numbers are not meaningful)"
    assert lines[2].split("  ")[0] == "workload"
    assert [line[: len(w.title)] for line, w in zip(lines[3:], WORKLOADS, strict=True)] == [
        w.title for w in WORKLOADS
    ]
    assert len(lines) == 3 + len(WORKLOADS)


def test_outputs_are_written_as_json_and_markdown(results: list[Result], tmp_path: Path) -> None:
    env = environment(QUICK)
    written = write_outputs(results, env, tmp_path / "results", png=False)
    assert written == [tmp_path / "results" / "latest.json", tmp_path / "results" / "latest.md"]
    assert json.loads(written[0].read_text()) == json.loads(json.dumps(to_json(results, env)))
    assert written[1].read_text() == to_markdown(results, env)


def test_saved_json_redraws_the_same_reports(results: list[Result]) -> None:
    env = environment(QUICK)
    data = json.loads(json.dumps(to_json(results, env)))
    again, env_again = from_json(data)
    assert env_again == env
    assert [(r.workload, r.samples, r.errors) for r in again] == [
        (r.workload, r.samples, r.errors) for r in results
    ]
    assert to_markdown(again, env_again) == to_markdown(results, env)


def test_a_failing_case_is_recorded_not_raised() -> None:
    def broken(settings: Settings) -> Call:
        return Call(lambda: 2, 1)

    result_of = measure_all(
        [workload("invoke_1")], {"plain": plain.CASES, "leanchain": {"invoke_1": broken}}, QUICK
    )
    assert result_of[0].errors == {"leanchain": "AssertionError: expected 1, got 2"}
    assert sorted(result_of[0].samples) == ["plain"]


def test_workload_titles_and_keys_are_unique() -> None:
    titles = [w.title for w in WORKLOADS]
    assert len(set(titles)) == len(titles)
    assert len(ALL_KEYS) == len(WORKLOADS)
    assert all(isinstance(w, Workload) for w in WORKLOADS)
