"""Checkpointers (in memory, SQLite) and durable runs: saved after every step, resumed after
the executor was rebuilt, after a crash, after the process was killed; concurrent threads."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from test_approval_support import KINDS, MODES, Ledger, Mode, build, resume, run, thread

from leanchain.agents import (
    AgentAction,
    BaseCheckpointer,
    InMemoryCheckpointer,
    RunState,
    SqliteCheckpointer,
)
from leanchain.agents._state import TAG
from leanchain.errors import AgentConfigurationError, RunStateError
from leanchain.language_models import FunctionChatModel, ScriptedChatModel

KIND = KINDS[0]


@pytest.fixture(params=["memory", "sqlite"])
def saver(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        yield InMemoryCheckpointer()
    else:
        with SqliteCheckpointer(tmp_path / "runs.db") as checkpointer:
            yield checkpointer


def _state(run_id: str = "r1", seq: int = 1, **kwargs: Any) -> RunState:
    return RunState(inputs={"input": "q"}, run_id=run_id, seq=seq, **kwargs)


def test_a_state_is_stored_and_read_back_by_thread(saver: BaseCheckpointer) -> None:
    state = _state(steps=[(AgentAction("lookup", "x", "l"), "found x")], iterations=1)
    saver.put("a", state)
    saver.put("b", _state("r2"))
    back = saver.get("a")
    assert back == state
    assert back is not state
    assert saver.get("nope") is None
    assert saver.threads() == ["a", "b"]
    saver.delete("a")
    assert saver.get("a") is None
    assert saver.threads() == ["b"]


def test_a_saved_state_does_not_change_with_the_run(saver: BaseCheckpointer) -> None:
    state = _state(middleware={"M": {"count": 1}})
    saver.put("a", state)
    state.middleware["M"]["count"] = 2
    state.steps.append((AgentAction("t", "i", "l"), "o"))
    back = saver.get("a")
    assert back is not None
    assert back.middleware == {"M": {"count": 1}}
    assert back.steps == []


def test_the_latest_state_wins(saver: BaseCheckpointer) -> None:
    saver.put("a", _state(seq=1))
    saver.put("a", _state(seq=2, iterations=3))
    back = saver.get("a")
    assert back is not None
    assert (back.seq, back.iterations) == (2, 3)


def test_the_call_journal_is_kept_per_run_and_dropped_by_a_new_run(
    saver: BaseCheckpointer,
) -> None:
    saver.put("a", _state("r1"))
    saver.put_call("a", "r1", "p:0", {"status": "started", "tool": "pay"})
    saver.put_call("a", "r1", "p:0", {"status": "done", "tool": "pay", "observation": "ok"})
    saver.put_call("b", "r1", "p:0", {"status": "started"})
    assert saver.get_call("a", "r1", "p:0") == {
        "status": "done",
        "tool": "pay",
        "observation": "ok",
    }
    assert saver.get_call("a", "r9", "p:0") is None
    saver.put("a", _state("r1", seq=2))  # the same run goes on: the journal stays
    assert saver.get_call("a", "r1", "p:0") is not None
    saver.put("a", _state("r2", seq=1))  # a new run on the thread
    assert saver.get_call("a", "r1", "p:0") is None
    assert saver.get_call("b", "r1", "p:0") == {"status": "started"}
    saver.delete("b")
    assert saver.get_call("b", "r1", "p:0") is None


async def test_the_async_methods_store_the_same(saver: BaseCheckpointer) -> None:
    await saver.aput("a", _state())
    assert await saver.aget("a") == _state()
    await saver.aput_call("a", "r1", "k", {"status": "started"})
    assert await saver.aget_call("a", "r1", "k") == {"status": "started"}


def test_any_thread_id_is_stored_verbatim(tmp_path: Path) -> None:
    odd = "t'); DROP TABLE runs; --\u00e9"
    with SqliteCheckpointer(tmp_path / "runs.db") as saver:
        saver.put(odd, _state())
        saver.put_call(odd, "r1", "k'", {"status": "started"})
        assert saver.threads() == [odd]
        assert saver.get(odd) == _state()
        assert saver.get_call(odd, "r1", "k'") == {"status": "started"}


def test_sqlite_keeps_the_states_across_connections(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with SqliteCheckpointer(path) as saver:
        saver.put("a", _state(iterations=4))
    with SqliteCheckpointer(str(path)) as saver:
        back = saver.get("a")
        assert repr(saver) == f"SqliteCheckpointer({str(path)!r})"
    assert back is not None
    assert back.iterations == 4
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA user_version").fetchone() == (1,)
        [(text,)] = conn.execute("SELECT state FROM runs").fetchall()
    assert json.loads(text)["version"] == 1


def test_sqlite_in_memory_works() -> None:
    with SqliteCheckpointer(":memory:") as saver:
        saver.put("a", _state())
        assert saver.get("a") == _state()


def test_tables_of_a_newer_leanchain_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 7")
    with pytest.raises(RunStateError) as info:
        SqliteCheckpointer(path)
    assert str(info.value) == (
        f"The checkpoint database {str(path)!r} has tables of version 7, written by a newer "
        "leanchain; this one reads version 1"
    )


def test_a_stored_state_that_is_not_a_run_state_is_refused(saver: BaseCheckpointer) -> None:
    saver.put_json("a", "r1", 1, json.dumps({"lc": 1, "type": "constructor", "id": ["os"]}))
    with pytest.raises(RunStateError, match=r"^Not a leanchain run state: "):
        saver.get("a")


# -- the executor saves its runs -----------------------------------------------------------


class Spy(InMemoryCheckpointer):
    """Remembers what each save held: (status, iterations, steps, pending)."""

    def __init__(self) -> None:
        super().__init__()
        self.saves: list[tuple[str, int, int, int | None]] = []

    def put_json(self, thread_id: str, run_id: str, seq: int, text: str) -> None:
        state = RunState.from_json(text)
        assert (state.run_id, state.seq) == (run_id, seq)
        pending = None if state.pending is None else len(state.pending)
        self.saves.append((state.status, state.iterations, len(state.steps), pending))
        super().put_json(thread_id, run_id, seq, text)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
async def test_the_run_is_saved_when_it_starts_after_every_step_and_at_the_end(
    kind: Any, mode: Mode
) -> None:
    spy = Spy()
    script = [
        kind.call("lookup", {"text": "a"}),
        kind.call("lookup", {"text": "b"}),
        kind.answer("42"),
    ]
    executor, _ = build(kind, script, Ledger(), checkpointer=spy)
    result = await run(executor, {"input": "q"}, mode, thread("t"))
    assert result["output"] == "42"
    assert spy.saves == [
        ("running", 0, 0, None),
        ("running", 1, 1, None),
        ("running", 2, 2, None),
        ("finished", 2, 2, None),
    ]
    saved = spy.get("t")
    assert saved is not None
    assert [(a.tool, obs) for a, obs in saved.steps] == [
        ("lookup", "found a"),
        ("lookup", "found b"),
    ]
    assert saved.finish is not None
    assert saved.finish.return_values == {"output": "42"}


@pytest.mark.parametrize("mode", MODES)
async def test_a_checkpointer_needs_a_thread_id(mode: Mode) -> None:
    executor, model = build(KIND, ["hi"], Ledger(), checkpointer=InMemoryCheckpointer())
    with pytest.raises(AgentConfigurationError) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == (
        "This executor saves its runs (it has a checkpointer), so each run needs a thread id: "
        "pass config={'configurable': {'thread_id': '...'}}"
    )
    with pytest.raises(AgentConfigurationError) as bad:
        await run(executor, {"input": "q"}, mode, {"configurable": {"thread_id": 7}})
    assert str(bad.value) == "config['configurable']['thread_id'] must be a non-empty str, got 7"
    assert model.requests == []


def test_a_checkpointer_must_be_one() -> None:
    with pytest.raises(AgentConfigurationError) as info:
        build(KIND, [], Ledger(), checkpointer={})
    assert str(info.value) == (
        "checkpointer must be a BaseCheckpointer (InMemoryCheckpointer, SqliteCheckpointer, "
        "...), got dict"
    )


def test_inputs_that_are_not_data_fail_before_the_model_is_called() -> None:
    executor, model = build(KIND, ["hi"], Ledger(), checkpointer=InMemoryCheckpointer())
    with pytest.raises(RunStateError, match=r"^Cannot save the run's state: inputs\['when'\] is a"):
        executor.invoke({"input": "q", "when": object()}, thread("t"))
    assert model.requests == []


def test_resuming_a_thread_needs_a_checkpointer_and_a_saved_run() -> None:
    plain, _ = build(KIND, [], Ledger())
    with pytest.raises(AgentConfigurationError) as info:
        plain.resume("t")
    assert str(info.value) == (
        "Resuming thread 't' needs the executor's checkpointer: build the executor with "
        "checkpointer=..., or pass the run's RunState instead"
    )
    saving, _ = build(KIND, [], Ledger(), checkpointer=InMemoryCheckpointer())
    with pytest.raises(RunStateError) as missing:
        saving.resume("t")
    assert str(missing.value) == "There is no saved run on thread 't' to resume"
    with pytest.raises(AgentConfigurationError) as other:
        saving.resume("t", None, thread("u"))
    assert str(other.value) == "Asked to resume thread 't' with a config for thread 'u'"


class ModelDown(Exception):
    pass


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
async def test_a_run_that_failed_resumes_from_its_last_step(kind: Any, mode: Mode) -> None:
    ledger = Ledger()
    saver = InMemoryCheckpointer()
    script = [kind.call("lookup", {"text": "a"}), ModelDown("503")]
    executor, _ = build(kind, script, ledger, checkpointer=saver)
    with pytest.raises(ModelDown):
        await run(executor, {"input": "q"}, mode, thread("t"))
    assert ledger.ran == [("lookup", "a")]

    fresh, model = build(
        kind, [kind.answer("done")], ledger, checkpointer=saver, return_intermediate_steps=True
    )
    done = await resume(fresh, "t", None, mode)
    assert done["output"] == "done"
    assert [(a.tool, obs) for a, obs in done["intermediate_steps"]] == [("lookup", "found a")]
    assert ledger.ran == [("lookup", "a")]  # the step that was saved is not run again
    assert "found a" in "\n".join(m.text for m in model.requests[0].messages)


CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from leanchain.agents import AgentExecutor, SqliteCheckpointer, create_tool_calling_agent
    from leanchain.agents.prompts import TOOL_CALLING_PROMPT
    from leanchain.language_models import FunctionChatModel
    from leanchain.tools import tool

    @tool
    def lookup(text: str) -> str:
        \"\"\"Look something up.\"\"\"
        with open(sys.argv[2], "a") as ran:
            ran.write(text + "\\n")
        return f"found {text}"

    def reply(messages, request):
        if sum(m.type == "tool" for m in messages) == 0:
            return FunctionChatModel.tool_call("lookup", {"text": "a"})
        os.kill(os.getpid(), signal.SIGKILL)  # the process dies between two steps

    saver = SqliteCheckpointer(sys.argv[1])
    agent = create_tool_calling_agent(FunctionChatModel(reply), [lookup], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[lookup], checkpointer=saver)
    executor.invoke({"input": "q"}, {"configurable": {"thread_id": "job-7"}})
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_process_killed_between_steps_is_resumed_by_another(tmp_path: Path) -> None:
    script, db, ran = tmp_path / "child.py", tmp_path / "runs.db", tmp_path / "ran.txt"
    script.write_text(CHILD)
    child = subprocess.run(
        [sys.executable, str(script), str(db), str(ran)], capture_output=True, timeout=120
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    assert ran.read_text() == "a\n"

    from leanchain.tools import tool

    @tool
    def lookup(text: str) -> str:
        """Look something up."""
        raise AssertionError("the step that was saved must not run again")

    model = ScriptedChatModel(["the answer"])
    from leanchain.agents import AgentExecutor

    with SqliteCheckpointer(db) as saver:
        saved = saver.get("job-7")
        assert saved is not None
        assert (saved.status, saved.iterations) == ("running", 1)
        executor = AgentExecutor(
            agent=KIND.build(model, [lookup]),
            tools=[lookup],
            checkpointer=saver,
            return_intermediate_steps=True,
        )
        done = executor.resume("job-7")
        final = saver.get("job-7")
    assert done["output"] == "the answer"
    assert [(a.tool, a.tool_input, obs) for a, obs in done["intermediate_steps"]] == [
        ("lookup", {"text": "a"}, "found a")
    ]
    assert [m.type for m in model.requests[0].messages] == ["system", "human", "ai", "tool"]
    assert ran.read_text() == "a\n"
    assert final is not None
    assert final.status == "finished"


def test_concurrent_runs_keep_their_own_threads(tmp_path: Path) -> None:
    def reply(messages: list[Any], request: Any) -> Any:
        asked = messages[1].text
        done = sum(m.type == "tool" for m in messages)
        if done < 3:
            return FunctionChatModel.tool_call("lookup", {"text": f"{asked}-{done}"})
        return f"{asked} done"

    ledger = Ledger()
    with SqliteCheckpointer(tmp_path / "runs.db") as saver:
        from test_approval_support import make_tools

        from leanchain.agents import AgentExecutor

        tools = make_tools(ledger)
        executor = AgentExecutor(
            agent=KIND.build(FunctionChatModel(reply, delay=0.005), tools),  # type: ignore[arg-type]
            tools=tools,
            checkpointer=saver,
        )
        results: dict[str, Any] = {}

        def one(name: str) -> None:
            results[name] = executor.invoke({"input": name}, thread(name))

        workers = [threading.Thread(target=one, args=(f"u{i}",)) for i in range(6)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=60)
        states = {name: saver.get(name) for name in saver.threads()}
    assert sorted(results) == [f"u{i}" for i in range(6)]
    assert all(results[n]["output"] == f"{n} done" for n in results)
    assert sorted(states) == sorted(results)
    for name, state in states.items():
        assert state is not None
        assert state.status == "finished"
        assert [obs for _, obs in state.steps] == [f"found {name}-{i}" for i in range(3)]
    assert len(ledger.ran) == 18


async def test_concurrent_async_runs_keep_their_own_threads() -> None:
    def reply(messages: list[Any], request: Any) -> Any:
        asked = messages[1].text
        done = sum(m.type == "tool" for m in messages)
        if done < 2:
            return FunctionChatModel.tool_call("lookup", {"text": f"{asked}-{done}"})
        return f"{asked} done"

    ledger = Ledger()
    saver = InMemoryCheckpointer()
    from test_approval_support import make_tools

    from leanchain.agents import AgentExecutor

    tools = make_tools(ledger)
    executor = AgentExecutor(
        agent=KIND.build(FunctionChatModel(reply), tools),  # type: ignore[arg-type]
        tools=tools,
        checkpointer=saver,
    )
    names = [f"a{i}" for i in range(8)]
    results = await asyncio.gather(*(executor.ainvoke({"input": n}, thread(n)) for n in names))
    assert [r["output"] for r in results] == [f"{n} done" for n in names]
    for name in names:
        state = saver.get(name)
        assert state is not None
        assert [obs for _, obs in state.steps] == [f"found {name}-0", f"found {name}-1"]


def test_the_saved_json_holds_only_known_tagged_types(tmp_path: Path) -> None:
    with SqliteCheckpointer(tmp_path / "runs.db") as saver:
        script = [KIND.call("lookup", {"text": "a"}), "done"]
        executor, _ = build(KIND, script, Ledger(), checkpointer=saver)
        executor.invoke({"input": "q", "meta": {TAG: "AgentFinish"}}, thread("t"))
        text = saver.get_json("t")
    assert text is not None
    tags: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if TAG in node and isinstance(node[TAG], str):
                tags.add(node[TAG])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    data = json.loads(text)
    walk(data)
    assert tags == {"ToolAgentAction", "message", "AgentFinish", "dict"}
    assert data["inputs"]["meta"] == {TAG: "dict", "items": [[TAG, "AgentFinish"]]}
