"""`HumanApproval` with every agent type, sync and async: pause and resume, ask inline;
approve, edit, reject, partial decisions; the run's state read back from SQLite."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_approval_support import (
    IDS,
    KINDS,
    MODES,
    MULTI,
    Kind,
    Ledger,
    Mode,
    build,
    observations,
    resume,
    run,
    thread,
)

from leanchain.agents import (
    Decision,
    HumanApproval,
    Resume,
    RunState,
    SqliteCheckpointer,
    ToolAgentAction,
)
from leanchain.agents.middleware import ApprovalRequest
from leanchain.agents.middleware._approval import fingerprint
from leanchain.callbacks import BaseCallbackHandler
from leanchain.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, tool_call

REJECTED = "A person rejected this call to 'send_mail', so it did not run."
ALLOWED = ["approve", "edit", "reject"]
STOPPED = "Agent stopped due to iteration limit or time limit."


def call_id(kind: Kind, iteration: int = 1, index: int = 0, number: int = 1) -> str:
    """The id a paused run gives a call of `kind`."""
    if kind.name in ("tool-calling", "openai-tools"):
        return f"call_{number}"
    return f"call-{iteration}-{index}"


def pending_entry(kind: Kind, to: str, **where: int) -> dict[str, Any]:
    arguments = kind.input_of({"to": to})
    return {
        "id": call_id(kind, **where),
        "tool": "send_mail",
        "arguments": arguments,
        "fingerprint": fingerprint("send_mail", arguments),
        "allowed": ALLOWED,
    }


def paused(kind: Kind, ledger: Ledger, **kwargs: Any) -> Any:
    script = [kind.call("send_mail", {"to": "ana"}), kind.answer("done")]
    return build(kind, script, ledger, middleware=[HumanApproval(["send_mail"])], **kwargs)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_gated_call_pauses_the_run_and_runs_once_approved(kind: Kind, mode: Mode) -> None:
    ledger = Ledger()
    executor, model = paused(kind, ledger, return_intermediate_steps=True)
    result = await run(executor, {"input": "mail ana"}, mode)
    state = result.pop("state")
    assert result == {
        "input": "mail ana",
        "output": None,
        "interrupted": True,
        "interrupt": {"reason": "approval", "data": {"pending": [pending_entry(kind, "ana")]}},
        "intermediate_steps": [],
    }
    assert isinstance(state, RunState)
    assert state.status == "interrupted"
    assert ledger.ran == []
    assert len(model.requests) == 1

    done = await resume(executor, state, {call_id(kind): True}, mode)
    assert done["output"] == "done"
    assert observations(done) == [("send_mail", kind.input_of({"to": "ana"}), "sent to ana")]
    assert ledger.ran == [("send_mail", "ana")]
    assert len(model.requests) == 2
    assert "sent to ana" in "\n".join(m.text for m in model.requests[-1].messages)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_an_edited_call_runs_with_the_new_arguments(kind: Kind, mode: Mode) -> None:
    ledger = Ledger()
    executor, model = paused(kind, ledger, return_intermediate_steps=True)
    first = await run(executor, {"input": "mail ana"}, mode)
    done = await resume(
        executor, first["state"], {call_id(kind): Decision.edit({"to": "bob"})}, mode
    )
    assert done["output"] == "done"
    assert ledger.ran == [("send_mail", "bob")]
    assert observations(done) == [("send_mail", {"to": "bob"}, "sent to bob")]
    seen = model.requests[-1].messages
    if kind.multi:  # the model's own message now asks for the call that ran
        assert seen[2:] == [
            AIMessage(
                content="",
                tool_calls=[tool_call(name="send_mail", args={"to": "bob"}, id="call_1")],
            ),
            ToolMessage(
                "sent to bob",
                tool_call_id="call_1",
                name="send_mail",
                additional_kwargs={"name": "send_mail"},
            ),
        ]
        action = done["intermediate_steps"][0][0]
        assert isinstance(action, ToolAgentAction)
        assert action.log == "\nInvoking: `send_mail` with `{'to': 'bob'}`\n\n\n"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_rejected_call_never_runs_and_the_model_sees_why(kind: Kind, mode: Mode) -> None:
    ledger = Ledger()
    executor, model = paused(kind, ledger, return_intermediate_steps=True)
    first = await run(executor, {"input": "mail ana"}, mode)
    done = await resume(
        executor, first["state"], {call_id(kind): Decision.reject("Do not mail Ana.")}, mode
    )
    assert done["output"] == "done"
    assert ledger.ran == []
    assert observations(done) == [("send_mail", kind.input_of({"to": "ana"}), "Do not mail Ana.")]
    assert "Do not mail Ana." in "\n".join(m.text for m in model.requests[-1].messages)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_rejecting_with_false_tells_the_model_a_person_rejected_it(
    kind: Kind, mode: Mode
) -> None:
    ledger = Ledger()
    executor, _ = paused(kind, ledger, return_intermediate_steps=True)
    first = await run(executor, {"input": "mail ana"}, mode)
    done = await resume(executor, first["state"], {call_id(kind): False}, mode)
    assert observations(done) == [("send_mail", kind.input_of({"to": "ana"}), REJECTED)]
    assert ledger.ran == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_inline_ask_approves_edits_and_rejects_without_stopping(
    kind: Kind, mode: Mode
) -> None:
    ledger = Ledger()
    asked: list[ApprovalRequest] = []
    answers: list[Any] = [True, Decision.edit({"to": "dan"}), False]

    def ask(request: ApprovalRequest) -> Any:
        asked.append(request)
        return answers[len(asked) - 1]

    async def aask(request: ApprovalRequest) -> Any:
        return ask(request)

    script = [
        kind.call("send_mail", {"to": "ana"}),
        kind.call("lookup", {"text": "x"}),
        kind.call("send_mail", {"to": "bob"}),
        kind.call("send_mail", {"to": "cat"}),
        kind.answer("done"),
    ]
    approval = HumanApproval(["send_mail"], ask=ask if mode == "sync" else aask)
    executor, _ = build(kind, script, ledger, middleware=[approval], return_intermediate_steps=True)
    result = await run(executor, {"input": "q"}, mode)
    assert result["output"] == "done"
    assert "interrupted" not in result
    assert ledger.ran == [("send_mail", "ana"), ("lookup", "x"), ("send_mail", "dan")]
    assert [obs for _, _, obs in observations(result)] == [
        "sent to ana",
        "found x",
        "sent to dan",
        REJECTED,
    ]
    assert [(r.id, r.tool, r.arguments, r.iteration, r.index) for r in asked] == [
        (call_id(kind, 1, number=1), "send_mail", kind.input_of({"to": "ana"}), 1, 0),
        (call_id(kind, 3, number=3), "send_mail", kind.input_of({"to": "bob"}), 3, 0),
        (call_id(kind, 4, number=4), "send_mail", kind.input_of({"to": "cat"}), 4, 0),
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_a_sync_ask_in_an_async_run_does_not_block_the_event_loop(mode: Mode) -> None:
    import threading

    kind = KINDS[0]
    threads: list[str] = []

    def ask(request: ApprovalRequest) -> bool:
        threads.append(threading.current_thread().name)
        return True

    script = [kind.call("send_mail", {"to": "ana"}), kind.answer("done")]
    executor, _ = build(kind, script, Ledger(), middleware=[HumanApproval(["send_mail"], ask=ask)])
    assert (await run(executor, {"input": "q"}, mode))["output"] == "done"
    on_main = threads == [threading.main_thread().name]
    assert on_main is (mode == "sync")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", MULTI, ids=[k.name for k in MULTI])
async def test_partial_decisions_in_one_step(kind: Kind, mode: Mode) -> None:
    ledger = Ledger()
    script = [
        kind.calls(
            ("send_mail", {"to": "ana"}),
            ("send_mail", {"to": "bob"}),
            ("lookup", {"text": "x"}),
            ("send_mail", {"to": "cat"}),
        ),
        kind.answer("done"),
    ]
    executor, model = build(
        kind,
        script,
        ledger,
        middleware=[HumanApproval(["send_mail"])],
        return_intermediate_steps=True,
    )
    first = await run(executor, {"input": "q"}, mode)
    pending = first["interrupt"]["data"]["pending"]
    assert [(p["id"], p["arguments"]) for p in pending] == [
        ("call_1", {"to": "ana"}),
        ("call_2", {"to": "bob"}),
        ("call_4", {"to": "cat"}),
    ]
    assert ledger.ran == []  # the step's ungated call waits with the others
    decisions = {"call_1": "approve", "call_2": Decision.edit({"to": "ben"}), "call_4": "reject"}
    done = await resume(executor, first["state"], decisions, mode)
    assert sorted(ledger.ran) == [("lookup", "x"), ("send_mail", "ana"), ("send_mail", "ben")]
    assert observations(done) == [
        ("send_mail", {"to": "ana"}, "sent to ana"),
        ("send_mail", {"to": "ben"}, "sent to ben"),
        ("lookup", {"text": "x"}, "found x"),
        ("send_mail", {"to": "cat"}, REJECTED),
    ]
    edited = AIMessage(
        content="",
        tool_calls=[
            tool_call(name="send_mail", args={"to": "ana"}, id="call_1"),
            tool_call(name="send_mail", args={"to": "ben"}, id="call_2"),
            tool_call(name="lookup", args={"text": "x"}, id="call_3"),
            tool_call(name="send_mail", args={"to": "cat"}, id="call_4"),
        ],
    )
    seen = model.requests[-1].messages
    assert isinstance(seen[0], SystemMessage)
    assert seen[1:3] == [HumanMessage("q"), edited]
    assert [(m.tool_call_id, m.content) for m in seen[3:]] == [  # type: ignore[attr-defined]
        ("call_1", "sent to ana"),
        ("call_2", "sent to ben"),
        ("call_3", "found x"),
        ("call_4", REJECTED),
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_resume_after_rebuilding_everything_from_sqlite(
    kind: Kind, mode: Mode, tmp_path: Any
) -> None:
    ledger = Ledger()
    path = tmp_path / "runs.db"
    with SqliteCheckpointer(path) as saver:
        executor, _ = paused(kind, ledger, checkpointer=saver)
        first = await run(executor, {"input": "mail ana"}, mode, thread("t-1"))
    assert first["interrupted"] is True
    del executor

    # A new process: new tools, a new model (with what is left of the script), a new
    # checkpointer on the same file.
    with SqliteCheckpointer(path) as saver:
        fresh, model = build(
            kind,
            [kind.answer("done")],
            ledger,
            middleware=[HumanApproval(["send_mail"])],
            checkpointer=saver,
            return_intermediate_steps=True,
        )
        done = await resume(fresh, "t-1", {call_id(kind): "approve"}, mode)
        assert done["input"] == "mail ana"
        assert done["output"] == "done"
        assert observations(done) == [("send_mail", kind.input_of({"to": "ana"}), "sent to ana")]
        saved = saver.get("t-1")
    assert ledger.ran == [("send_mail", "ana")]
    assert len(model.requests) == 1
    assert saved is not None
    assert saved.status == "finished"


@pytest.mark.parametrize("mode", MODES)
async def test_a_rule_on_the_arguments_decides_which_calls_need_approval(mode: Mode) -> None:
    kind = KINDS[0]
    ledger = Ledger()
    script = [kind.call("pay", {"amount": 50}), kind.call("pay", {"amount": 500}), "done"]
    approval = HumanApproval({"pay": lambda args: args["amount"] > 100, "send_mail": False})
    executor, _ = build(kind, script, ledger, middleware=[approval])
    first = await run(executor, {"input": "q"}, mode)
    assert ledger.ran == [("pay", "50")]
    assert [p["arguments"] for p in first["interrupt"]["data"]["pending"]] == [{"amount": 500}]
    done = await resume(executor, first["state"], {"call_2": True}, mode)
    assert done["output"] == "done"
    assert ledger.ran == [("pay", "50"), ("pay", "500")]


def test_a_rule_that_fails_counts_as_needing_approval() -> None:
    def broken(args: Any) -> bool:
        raise KeyError("amount")

    approval = HumanApproval({"pay": broken})
    assert approval.needs_approval(ToolAgentAction("pay", {}, "", (), tool_call_id="c"))
    assert not approval.needs_approval(ToolAgentAction("lookup", {}, "", (), tool_call_id="c"))


@pytest.mark.parametrize("mode", MODES)
async def test_time_spent_paused_does_not_count_against_the_time_limit(mode: Mode) -> None:
    kind = KINDS[0]
    ledger = Ledger()
    executor, _ = paused(kind, ledger, max_execution_time=0.25)
    first = await run(executor, {"input": "q"}, mode)
    assert first["state"].elapsed < 0.25
    await asyncio.sleep(0.3)  # paused longer than the run may run
    done = await resume(executor, first["state"], {"call_1": True}, mode)
    assert done["output"] == "done"
    assert ledger.ran == [("send_mail", "ana")]


@pytest.mark.parametrize("mode", MODES)
async def test_the_time_the_run_ran_before_it_paused_still_counts(mode: Mode) -> None:
    kind = KINDS[0]
    ledger = Ledger()
    executor, _ = paused(kind, ledger, max_execution_time=5)
    first = await run(executor, {"input": "q"}, mode)
    data = first["state"].to_dict()
    data["elapsed"] = 10.0
    done = await resume(executor, data, {"call_1": True}, mode)
    assert done["output"] == STOPPED
    assert ledger.ran == []


class Events(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.events.append((name, data))


@pytest.mark.parametrize("mode", MODES)
async def test_each_decision_reaches_the_callbacks(mode: Mode) -> None:
    kind = KINDS[0]
    script = [
        kind.calls(("send_mail", {"to": "ana"}), ("send_mail", {"to": "bob"})),
        kind.calls(("send_mail", {"to": "cat"}), ("lookup", {"text": "x"})),
        "done",
    ]
    executor, _ = build(kind, script, Ledger(), middleware=[HumanApproval(["send_mail"])])
    handler = Events()
    config: Any = {"callbacks": [handler]}
    first = await run(executor, {"input": "q"}, mode, config)
    entries = first["interrupt"]["data"]["pending"]
    second = await resume(
        executor,
        first["state"],
        {"call_1": True, "call_2": Decision.edit({"to": "b"})},
        mode,
        config,
    )
    await resume(executor, second["state"], {"call_3": False}, mode, config)
    assert handler.events == [
        (
            "leanchain.approval",
            {
                "action": "interrupt",
                "message": "Paused for a person's decision on 2 call(s): send_mail (call_1), "
                "send_mail (call_2)",
                "pending": entries,
            },
        ),
        *sorted(
            [
                (
                    "leanchain.approval",
                    {
                        "action": "approved",
                        "message": "A person approved a call to 'send_mail'",
                        "tool": "send_mail",
                        "id": "call_1",
                    },
                ),
                (
                    "leanchain.approval",
                    {
                        "action": "edited",
                        "message": "A person edited a call to 'send_mail'",
                        "tool": "send_mail",
                        "id": "call_2",
                    },
                ),
            ],
            key=lambda e: e[1]["id"],
        ),
        (
            "leanchain.approval",
            {
                "action": "interrupt",
                "message": "Paused for a person's decision on 1 call(s): send_mail (call_3)",
                "pending": second["interrupt"]["data"]["pending"],
            },
        ),
        (
            "leanchain.approval",
            {
                "action": "rejected",
                "message": "A person rejected a call to 'send_mail'",
                "tool": "send_mail",
                "id": "call_3",
            },
        ),
    ]


# -- the interrupt in every view -----------------------------------------------------------


def _final_chunk_checked(chunk: dict[str, Any], kind: Kind) -> None:
    state = chunk.pop("state")
    assert isinstance(state, RunState)
    assert chunk == {
        "output": None,
        "interrupted": True,
        "interrupt": {"reason": "approval", "data": {"pending": [pending_entry(kind, "ana")]}},
        "messages": [],
    }


@pytest.mark.parametrize("mode", MODES)
async def test_the_interrupt_is_the_last_chunk_of_stream(mode: Mode) -> None:
    kind = KINDS[0]
    executor, _ = paused(kind, Ledger())
    if mode == "sync":
        chunks = list(executor.stream({"input": "q"}))
    else:
        chunks = [c async for c in executor.astream({"input": "q"})]
    assert len(chunks) == 1
    _final_chunk_checked(dict(chunks[0]), kind)


@pytest.mark.parametrize("mode", MODES)
async def test_the_interrupt_is_the_last_item_of_iter(mode: Mode) -> None:
    kind = KINDS[3]
    script = [kind.call("lookup", {"text": "x"}), kind.call("send_mail", {"to": "ana"})]
    executor, _ = build(kind, script, Ledger(), middleware=[HumanApproval(["send_mail"])])
    if mode == "sync":
        items = list(executor.iter({"input": "q"}))
    else:
        items = [i async for i in executor.iter({"input": "q"})]
    assert len(items) == 2
    [(action, observation)] = items[0]["intermediate_step"]
    assert (action.tool, observation) == ("lookup", "found x")
    final = dict(items[1])
    state = final.pop("state")
    assert state.steps == [(action, "found x")]
    assert final == {
        "output": None,
        "interrupted": True,
        "interrupt": {
            "reason": "approval",
            "data": {"pending": [pending_entry(kind, "ana", iteration=2)]},
        },
        "messages": [],
    }


@pytest.mark.parametrize("mode", MODES)
async def test_the_interrupt_is_in_stream_events(mode: Mode) -> None:
    kind = KINDS[0]
    executor, _ = paused(kind, Ledger())
    if mode == "sync":
        events = list(executor.stream_events({"input": "q"}))
    else:
        events = [e async for e in executor.astream_events({"input": "q"})]
    custom = [(e["name"], e["data"]["action"]) for e in events if e["event"] == "on_custom_event"]
    assert custom == [("leanchain.approval", "interrupt")]
    end = events[-1]
    assert end["event"] == "on_chain_end"
    assert end["name"] == "AgentExecutor"
    assert end["data"]["output"]["interrupted"] is True
    assert end["data"]["output"]["interrupt"]["data"]["pending"] == [pending_entry(kind, "ana")]


@pytest.mark.parametrize("mode", MODES)
async def test_a_resumed_run_streams_like_any_other(mode: Mode) -> None:
    kind = KINDS[0]
    ledger = Ledger()
    executor, _ = paused(kind, ledger)
    first = await run(executor, {"input": "q"}, mode)
    again = Resume(first["state"], {"call_1": True})
    if mode == "sync":
        chunks = list(executor.stream(again))
    else:
        chunks = [c async for c in executor.astream(again)]
    assert [sorted(c) for c in chunks] == [
        ["actions", "messages"],
        ["messages", "steps"],
        ["messages", "output"],
    ]
    assert chunks[1]["steps"][0].observation == "sent to ana"
    assert chunks[2]["output"] == "done"
    assert ledger.ran == [("send_mail", "ana")]


@pytest.mark.parametrize("mode", MODES)
async def test_a_resumed_run_has_its_events_too(mode: Mode) -> None:
    kind = KINDS[0]
    executor, _ = paused(kind, Ledger())
    first = await run(executor, {"input": "q"}, mode)
    again = Resume(first["state"], {"call_1": True})
    if mode == "sync":
        events = list(executor.stream_events(again))
    else:
        events = [e async for e in executor.astream_events(again)]
    custom = [(e["name"], e["data"]["action"]) for e in events if e["event"] == "on_custom_event"]
    assert custom == [("leanchain.approval", "approved")]
    tools = [(e["name"], e["data"]["output"]) for e in events if e["event"] == "on_tool_end"]
    assert tools == [("send_mail", "sent to ana")]
    assert events[-1]["event"] == "on_chain_end"
    assert events[-1]["data"]["output"] == {"input": "q", "output": "done"}
