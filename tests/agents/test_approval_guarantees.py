"""The guarantees of `HumanApproval`, each on its own: fail closed, decisions bound to their
call, edited arguments checked by the tool's schema, exactly once after a resume."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from test_approval_support import KINDS, MODES, Ledger, Mode, build, resume, run, thread

from leanchain.agents import (
    AgentExecutor,
    Decision,
    HumanApproval,
    InMemoryCheckpointer,
    RunState,
    ToolAgentAction,
)
from leanchain.agents.middleware._approval import fingerprint
from leanchain.errors import AgentConfigurationError, ApprovalError, RunStateError
from leanchain.tools import StructuredTool

KIND = KINDS[0]  # tool calling: several calls per step, provider call ids


def two_calls(ledger: Ledger, **kwargs: Any) -> tuple[AgentExecutor, Any]:
    script = [
        KIND.calls(("send_mail", {"to": "ana"}), ("lookup", {"text": "x"})),
        KIND.answer("done"),
    ]
    kwargs.setdefault("middleware", [HumanApproval(["send_mail"])])
    return build(KIND, script, ledger, return_intermediate_steps=True, **kwargs)


# -- fail closed ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_missing_decision_runs_nothing_and_the_state_stays_resumable(mode: Mode) -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    first = await run(executor, {"input": "q"}, mode)
    with pytest.raises(ApprovalError) as info:
        await resume(executor, first["state"], {}, mode)
    assert str(info.value) == (
        "No decision for the calls ['call_1'] waiting for approval; give one per call "
        "(['approve', 'edit', 'reject']): nothing ran"
    )
    with pytest.raises(ApprovalError):
        await resume(executor, first["state"], None, mode)
    assert ledger.ran == []
    done = await resume(executor, first["state"], {"call_1": True}, mode)
    assert done["output"] == "done"
    assert sorted(ledger.ran) == [("lookup", "x"), ("send_mail", "ana")]


UNKNOWN = (
    "Unknown decision for call 'call_1' ('send_mail'): {!r}; expected True (approve), False "
    "(reject), 'approve', 'reject', a Decision or a decision dict such as {{'type': 'edit', "
    "'arguments': {{...}}}}; the call did not run"
)


@pytest.mark.parametrize(
    ("decision", "message"),
    [
        ("maybe", UNKNOWN.format("maybe")),
        (1, UNKNOWN.format(1)),
        (None, UNKNOWN.format(None)),
        (["approve"], UNKNOWN.format(["approve"])),
        (
            {"type": "delete"},
            "Cannot read the decision for call 'call_1' ('send_mail'): A decision is one of "
            "['approve', 'edit', 'reject'], got 'delete'",
        ),
        (
            {"type": "edit"},
            "Cannot read the decision for call 'call_1' ('send_mail'): An 'edit' decision needs "
            "the new arguments (a dict or a str), got None",
        ),
        (
            {"type": "approve", "force": True},
            "Cannot read the decision for call 'call_1' ('send_mail'): A decision dict has the "
            "keys 'type', 'arguments', 'message' and 'fingerprint', got unknown keys ['force']",
        ),
    ],
)
def test_an_unknown_decision_runs_nothing(decision: Any, message: str) -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    first = executor.invoke({"input": "q"})
    with pytest.raises(ApprovalError) as info:
        executor.resume(first["state"], {"call_1": decision})
    assert str(info.value) == message
    assert ledger.ran == []


def test_a_decision_for_a_call_that_does_not_wait_is_refused() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    first = executor.invoke({"input": "q"})
    with pytest.raises(ApprovalError) as info:
        executor.resume(first["state"], {"call_1": True, "call_2": True})
    assert str(info.value) == (
        "Decisions for calls that are not waiting for one: ['call_2']; the run waits for ['call_1']"
    )
    assert ledger.ran == []


def test_a_decision_that_is_not_allowed_is_refused() -> None:
    ledger = Ledger()
    approval = HumanApproval(["send_mail"], allowed=["approve", "reject"])
    executor, _ = two_calls(ledger, middleware=[approval])
    first = executor.invoke({"input": "q"})
    assert first["interrupt"]["data"]["pending"][0]["allowed"] == ["approve", "reject"]
    with pytest.raises(ApprovalError) as info:
        executor.resume(first["state"], {"call_1": Decision.edit({"to": "eve"})})
    assert str(info.value) == (
        "The decision 'edit' is not allowed for call 'call_1' ('send_mail'); allowed: "
        "['approve', 'reject']"
    )
    assert ledger.ran == []


def test_an_inline_answer_that_is_not_a_decision_raises_and_runs_nothing() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger, middleware=[HumanApproval(["send_mail"], ask=lambda r: None)])
    with pytest.raises(ApprovalError, match=r"^Unknown decision for call 'call_1' \('send_mail'\)"):
        executor.invoke({"input": "q"})
    assert ledger.ran == []


def test_an_ask_that_fails_runs_nothing() -> None:
    def ask(request: Any) -> bool:
        raise TimeoutError("nobody answered")

    ledger = Ledger()
    executor, _ = two_calls(ledger, middleware=[HumanApproval(["send_mail"], ask=ask)])
    with pytest.raises(TimeoutError, match=r"^nobody answered$"):
        executor.invoke({"input": "q"})
    assert ledger.ran == []


def test_an_async_ask_in_a_sync_run_is_refused_before_anything_runs() -> None:
    async def ask(request: Any) -> bool:
        return True

    ledger = Ledger()
    executor, _ = two_calls(ledger, middleware=[HumanApproval(["send_mail"], ask=ask)])
    with pytest.raises(AgentConfigurationError) as info:
        executor.invoke({"input": "q"})
    assert str(info.value) == (
        "HumanApproval's ask is async: run the executor with ainvoke, astream or "
        "astream_events, or give a sync ask"
    )
    assert ledger.ran == []


def _running_state(middleware: dict[str, Any]) -> RunState:
    """A saved running state whose pending call mails Eve."""
    action = ToolAgentAction("send_mail", {"to": "eve"}, "", (), tool_call_id="call_1")
    return RunState(inputs={"input": "q"}, pending=[action], middleware=middleware)


@pytest.mark.parametrize("mode", MODES)
async def test_a_gated_call_that_reaches_the_tool_without_a_decision_does_not_run(
    mode: Mode,
) -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    done = await resume(executor, _running_state({}), None, mode)
    assert [obs for _, obs in done["intermediate_steps"]] == [
        "Tool 'send_mail' was not run: it needs a person's approval and there was no decision "
        "for this call."
    ]
    assert ledger.ran == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_decision_made_for_other_arguments_does_not_run_the_call(mode: Mode) -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    record = {
        "id": "call_1",
        "tool_call_id": "call_1",
        "tool": "send_mail",
        "type": "approve",
        "fingerprint": fingerprint("send_mail", {"to": "ana"}),
    }
    state = _running_state({"HumanApproval": {"decisions": {"1:0": record}}})
    done = await resume(executor, state, None, mode)
    assert [obs for _, obs in done["intermediate_steps"]] == [
        "Tool 'send_mail' was not run: the decision given was made for another call or other "
        "arguments."
    ]
    assert ledger.ran == []


def test_a_decision_for_another_call_id_does_not_run_the_call() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    record = {
        "id": "call_9",
        "tool_call_id": "call_9",
        "tool": "send_mail",
        "type": "approve",
        "fingerprint": fingerprint("send_mail", {"to": "eve"}),
    }
    done = executor.resume(_running_state({"HumanApproval": {"decisions": {"1:0": record}}}))
    assert done["intermediate_steps"][0][1].startswith("Tool 'send_mail' was not run: the ")
    assert ledger.ran == []


def test_a_decision_bound_to_a_fingerprint_applies_only_to_those_arguments() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    first = executor.invoke({"input": "q"})
    [entry] = first["interrupt"]["data"]["pending"]
    stale = Decision.approve(fingerprint=fingerprint("send_mail", {"to": "bob"}))
    with pytest.raises(ApprovalError) as info:
        executor.resume(first["state"], {"call_1": stale})
    assert str(info.value) == (
        "The decision for call 'call_1' ('send_mail') was made for other arguments (fingerprint "
        f"{stale.fingerprint!r}; the call waiting has {entry['fingerprint']!r}: {{'to': 'ana'}}); "
        "the call did not run"
    )
    assert ledger.ran == []
    bound = {"type": "approve", "fingerprint": entry["fingerprint"]}
    assert executor.resume(first["state"], {"call_1": bound})["output"] == "done"
    assert sorted(ledger.ran) == [("lookup", "x"), ("send_mail", "ana")]


def test_a_saved_state_whose_pending_call_was_altered_runs_nothing() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    first = executor.invoke({"input": "q"})
    data = first["state"].to_dict()
    data["pending"][0]["tool_input"] = {"to": "eve"}  # the waiting entry still says Ana
    with pytest.raises(ApprovalError) as info:
        executor.resume(data, {"call_1": True})
    assert str(info.value) == (
        "The pending call 0 ('send_mail') does not match the call 'call_1' that waits for "
        "approval; the saved state is inconsistent, so nothing runs"
    )
    assert ledger.ran == []


def test_a_call_added_to_the_plan_after_the_decisions_is_not_run() -> None:
    from leanchain.agents.middleware import AgentMiddleware

    class AddsACall(AgentMiddleware):
        def after_model(self, run: Any, plan: Any) -> Any:
            if isinstance(plan, list):
                extra = ToolAgentAction("send_mail", {"to": "eve"}, "", (), tool_call_id="evil")
                return [*plan, extra]
            return None

    ledger = Ledger()
    approval = HumanApproval(["send_mail"], ask=lambda r: True)
    executor, _ = two_calls(ledger, middleware=[approval, AddsACall()])
    result = executor.invoke({"input": "q"})
    assert [obs for _, obs in result["intermediate_steps"]] == [
        "sent to ana",
        "found x",
        "Tool 'send_mail' was not run: it needs a person's approval and there was no decision "
        "for this call.",
    ]
    assert sorted(ledger.ran) == [("lookup", "x"), ("send_mail", "ana")]


# -- edited arguments ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"amount": "lots"},
            "The edited arguments for call 'call_1' ('pay') do not match the tool's schema: "
            "Tool 'pay' got invalid arguments: 'amount': Input should be a valid integer, "
            "unable to parse string as an integer (got 'lots')",
        ),
        (
            {},
            "The edited arguments for call 'call_1' ('pay') do not match the tool's schema: "
            "Tool 'pay' got invalid arguments: 'amount': Field required",
        ),
    ],
)
def test_edited_arguments_are_checked_by_the_tool_schema(
    arguments: dict[str, Any], message: str
) -> None:
    ledger = Ledger()
    script = [KIND.call("pay", {"amount": 5}), "done"]
    executor, _ = build(KIND, script, ledger, middleware=[HumanApproval(["pay"])])
    first = executor.invoke({"input": "q"})
    with pytest.raises(ApprovalError) as info:
        executor.resume(first["state"], {"call_1": Decision.edit(arguments)})
    assert str(info.value) == message
    assert ledger.ran == []
    assert executor.resume(first["state"], {"call_1": Decision.edit({"amount": "7"})})[
        "output"
    ] == ("done")
    assert ledger.ran == [("pay", "7")]


def test_a_string_edit_fills_a_one_argument_tool() -> None:
    ledger = Ledger()
    script = [KIND.call("send_mail", {"to": "ana"}), "done"]
    executor, _ = build(KIND, script, ledger, middleware=[HumanApproval(["send_mail"])])
    first = executor.invoke({"input": "q"})
    assert executor.resume(first["state"], {"call_1": Decision.edit("zoe")})["output"] == "done"
    assert ledger.ran == [("send_mail", "zoe")]


def test_a_string_edit_is_the_first_argument_as_the_tool_reads_it() -> None:
    def transfer(source: str, target: str) -> str:
        """Move money."""
        return "moved"

    tools = [StructuredTool.from_function(transfer)]
    from leanchain.language_models import ScriptedChatModel

    model = ScriptedChatModel(
        [ScriptedChatModel.tool_call("transfer", {"source": "a", "target": "b"})]
    )
    executor = AgentExecutor(
        agent=KIND.build(model, tools), tools=tools, middleware=[HumanApproval(["transfer"])]
    )
    first = executor.invoke({"input": "q"})
    with pytest.raises(ApprovalError) as info:
        executor.resume(first["state"], {"call_1": Decision.edit("c")})
    assert str(info.value) == (
        "The edited arguments for call 'call_1' ('transfer') do not match the tool's schema: "
        "Tool 'transfer' got invalid arguments: 'target': Field required"
    )


# -- exactly once --------------------------------------------------------------------------


def test_a_run_state_cannot_be_resumed_twice() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    first = executor.invoke({"input": "q"})
    executor.resume(first["state"], {"call_1": True})
    with pytest.raises(RunStateError) as info:
        executor.resume(first["state"], {"call_1": True})
    assert str(info.value) == (
        "This RunState was already resumed once; resuming it again would run its pending "
        "calls again. Resume the run's latest state (or its thread) instead"
    )
    assert sorted(ledger.ran) == [("lookup", "x"), ("send_mail", "ana")]


def test_a_finished_thread_cannot_be_resumed_again() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger, checkpointer=InMemoryCheckpointer())
    executor.invoke({"input": "q"}, thread("t"))
    executor.resume("t", {"call_1": True})
    with pytest.raises(RunStateError) as info:
        executor.resume("t", {"call_1": True})
    assert str(info.value) == "The run on thread 't' has finished; there is nothing to resume"
    assert sorted(ledger.ran) == [("lookup", "x"), ("send_mail", "ana")]


def test_an_old_state_of_a_thread_that_moved_on_is_refused() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger, checkpointer=InMemoryCheckpointer())
    first = executor.invoke({"input": "q"}, thread("t"))
    copy = first["state"].to_dict()  # e.g. kept by a web page
    executor.resume("t", {"call_1": True})
    with pytest.raises(RunStateError) as info:
        executor.resume(copy, {"call_1": True}, thread("t"))
    assert str(info.value) == (
        "Thread 't' has moved on since this state was saved (save 2, latest 5); resume the "
        "thread instead, so that no call runs twice"
    )
    assert sorted(ledger.ran) == [("lookup", "x"), ("send_mail", "ana")]


class Crash(BaseException):
    """Stands for the process dying in the middle of a step."""


@pytest.mark.parametrize("mode", MODES)
async def test_a_step_cut_short_after_a_resume_never_repeats_a_call_that_ran(mode: Mode) -> None:
    ledger = Ledger()
    crashes = [True]

    def pay(amount: int) -> str:
        """Pay an amount."""
        ledger.note("pay", str(amount))
        if crashes.pop() if crashes else False:
            raise Crash
        return f"paid {amount}"

    from test_approval_support import make_tools

    from leanchain.language_models import ScriptedChatModel

    tools = [*make_tools(ledger)[:2], StructuredTool.from_function(pay)]
    model = ScriptedChatModel(
        [
            ScriptedChatModel.tool_calls(
                ("send_mail", {"to": "ana"}), ("lookup", {"text": "x"}), ("pay", {"amount": 5})
            ),
            "done",
        ]
    )
    executor = AgentExecutor(
        agent=KIND.build(model, tools),
        tools=tools,
        middleware=[HumanApproval(["send_mail", "pay"])],
        checkpointer=InMemoryCheckpointer(),
        max_tool_concurrency=1,
        return_intermediate_steps=True,
    )
    await run(executor, {"input": "q"}, mode, thread("t"))
    with pytest.raises(Crash):
        await resume(executor, "t", {"call_1": True, "call_3": True}, mode)
    assert ledger.ran == [("send_mail", "ana"), ("lookup", "x"), ("pay", "5")]

    done = await resume(executor, "t", None, mode)  # after a restart: no new decisions
    assert done["output"] == "done"
    assert ledger.ran == [("send_mail", "ana"), ("lookup", "x"), ("pay", "5")]
    assert [obs for _, obs in done["intermediate_steps"]] == [
        "sent to ana",
        "found x",
        "This call to 'pay' was started before the run stopped and may have run already; it "
        "was not run again.",
    ]


def test_decisions_for_a_run_that_was_saved_while_running_are_refused() -> None:
    ledger = Ledger()
    executor, _ = two_calls(ledger)
    with pytest.raises(ApprovalError) as info:
        executor.resume(_running_state({}), {"call_1": True})
    assert str(info.value) == (
        "The run is not waiting for decisions (it was saved while running), got decisions "
        "for ['call_1']; resume it without decisions"
    )
    assert ledger.ran == []


# -- settings ------------------------------------------------------------------------------


def test_a_tool_the_executor_lacks_is_refused_when_it_is_built() -> None:
    with pytest.raises(AgentConfigurationError) as info:
        two_calls(Ledger(), middleware=[HumanApproval(["send_mail", "wire_money"])])
    assert str(info.value) == (
        "HumanApproval names tools the executor does not have: ['wire_money'] (it has "
        "['send_mail', 'lookup', 'pay'])"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"tools": "send_mail"},
            "tools must be a list of tool names or a mapping of name to rule, got 'send_mail'",
        ),
        ({"tools": []}, "HumanApproval needs at least one tool to ask about"),
        ({"tools": [1]}, "HumanApproval's tools are named by str, got 1"),
        (
            {"tools": {"pay": "yes"}},
            "The rule for tool 'pay' must be True, False or a function of the call's arguments, "
            "got 'yes'",
        ),
        (
            {"tools": ["pay"], "allowed": ["approve", "ignore"]},
            "allowed must name some of ['approve', 'edit', 'reject'], got ['approve', 'ignore']",
        ),
        (
            {"tools": ["pay"], "allowed": []},
            "allowed must name some of ['approve', 'edit', 'reject'], got []",
        ),
        ({"tools": ["pay"], "ask": "terminal"}, "ask must be a function, got 'terminal'"),
    ],
)
def test_bad_settings_fail_when_built(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(AgentConfigurationError) as info:
        HumanApproval(**kwargs)
    assert str(info.value) == message


def test_decision_values() -> None:
    assert Decision.approve().to_dict() == {"type": "approve"}
    assert Decision.edit({"a": 1}, fingerprint="f").to_dict() == {
        "type": "edit",
        "arguments": {"a": 1},
        "fingerprint": "f",
    }
    assert Decision.reject("no") == Decision.from_dict({"type": "reject", "message": "no"})
    assert repr(Decision.reject("no")) == "Decision('reject', message='no')"
    with pytest.raises(
        ValueError, match=r"^Only an 'edit' decision takes arguments, not 'approve'$"
    ):
        Decision("approve", arguments={})
    with pytest.raises(ValueError, match=r"^Only a 'reject' decision takes a message \(a str\)"):
        Decision("approve", message="x")


def test_fingerprints_ignore_key_order_and_tell_calls_apart() -> None:
    assert fingerprint("t", {"a": 1, "b": [2]}) == fingerprint("t", {"b": [2], "a": 1})
    assert fingerprint("t", {"a": 1}) != fingerprint("u", {"a": 1})
    assert fingerprint("t", {"a": 1}) != fingerprint("t", {"a": "1"})
    # The format: SHA-256 of the compact JSON [tool, arguments] (sorted keys), 32 hex digits.
    expected = hashlib.sha256('["t",{"a":1,"é":null}]'.encode()).hexdigest()[:32]
    assert fingerprint("t", {"é": None, "a": 1}) == expected
