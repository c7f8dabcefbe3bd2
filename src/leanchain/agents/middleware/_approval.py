"""`HumanApproval`: a person approves, edits or rejects a tool call before it runs.

Which calls need a decision: the calls of the named tools, or of those for which a function
of the call's arguments says so. The decisions allowed: approve, edit the arguments (checked
against the tool's schema), reject (the model is told so, or is given the person's message).

Two ways to get the decision:

- inline, ``HumanApproval(tools=[...], ask=fn)``: `fn` (sync or async) is asked for each
  call that needs it, in call order, on the loop's thread, and the run goes on;
- pause, no `ask`: the run stops before the step's calls and returns (not raises) outputs
  with ``"interrupted": True``, the waiting calls in ``outputs["interrupt"]["data"]
  ["pending"]`` (id, tool, arguments, fingerprint, allowed decisions) and the run's
  `RunState` in ``outputs["state"]``; ``executor.resume(state or thread id, decisions)``
  continues it, in this process or another.

Correct by construction:

- Fail closed. A call that needs a decision runs only when `wrap_tool_call` finds one for
  it in the run's state; a missing, unknown or not-allowed decision is refused
  (`ApprovalError`) before anything runs, and a call that reaches the tool step without a
  decision is answered "not run" instead.
- A decision is bound to its call: the call's position in its step, its id and a fingerprint
  (SHA-256) of its tool and arguments. A decision made for other arguments (its
  ``fingerprint`` differs) is refused; a call whose arguments changed after the decision
  does not run.
- Exactly once: after a resume the step's calls run once; with a checkpointer each of them
  is journaled (started, done with its observation) under the pause's id, so a run resumed
  again after its process died in the middle of that step never repeats a call that ran.
  The calls of the step that needed no decision run with them, once.

Each decision taken is an ``on_custom_event`` named ``"leanchain.approval"``, with an
``"action"`` (``"interrupt"``, ``"approved"``, ``"edited"``, ``"rejected"``, ``"blocked"``)
and a ``"message"``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import inspect
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from pydantic import BaseModel, ValidationError

from leanchain.agents._state import dump_value, load_value
from leanchain.agents.middleware._base import (
    AgentMiddleware,
    AToolHandler,
    Interrupt,
    Plan,
    ToolCallRequest,
    ToolHandler,
)
from leanchain.agents.schema import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AgentStep,
    ToolAgentAction,
)
from leanchain.errors import (
    AgentConfigurationError,
    ApprovalError,
    RunStateError,
    ToolInputValidationError,
)
from leanchain.messages import AIMessage, BaseMessage, message_chunk_to_message

if TYPE_CHECKING:
    from leanchain.agents._checkpoint import BaseCheckpointer
    from leanchain.agents._run import AgentRun
    from leanchain.agents.executor import AgentExecutor

__all__ = ["ApprovalRequest", "Decision", "DecisionKind", "HumanApproval", "fingerprint"]

EVENT: Final = "leanchain.approval"

DecisionKind: TypeAlias = Literal["approve", "edit", "reject"]
DECISIONS: Final[tuple[DecisionKind, ...]] = ("approve", "edit", "reject")

Rule: TypeAlias = bool | Callable[[Any], bool]
"""Whether a tool's calls need a decision: always, never, or when a function of the
arguments says so."""


def fingerprint(tool: str, tool_input: Any) -> str:
    """A stable fingerprint of one call, its tool and arguments (SHA-256, 32 hex digits).

    Key order and spacing do not matter; the same call has the same fingerprint in every
    process and every version that reads this state format.
    """
    try:
        data: Any = dump_value(tool_input)
    except RunStateError:
        data = repr(tool_input)
    text = json.dumps(
        [tool, data], sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Decision:
    """A person's decision on one tool call.

    Build one with `Decision.approve`, `Decision.edit` or `Decision.reject` (or the
    `ApprovalRequest` methods of the same names, which bind it to the call's arguments).

    Args:
        kind: ``"approve"``, ``"edit"`` or ``"reject"``.
        arguments: the arguments to run the call with instead (``"edit"`` only).
        message: what the model is told instead of the tool's result (``"reject"`` only;
            default: that a person rejected the call).
        fingerprint: the `fingerprint` of the call as the person saw it; when given, the
            decision applies only if the call waiting has those very arguments.

    Raises:
        ValueError: an unknown kind, or arguments/message given for a kind without them.
    """

    __slots__ = ("arguments", "fingerprint", "kind", "message")

    def __init__(
        self,
        kind: DecisionKind,
        *,
        arguments: str | dict[str, Any] | None = None,
        message: str | None = None,
        fingerprint: str | None = None,
    ) -> None:
        if kind not in DECISIONS:
            raise ValueError(f"A decision is one of {list(DECISIONS)}, got {kind!r}")
        if kind == "edit":
            if not isinstance(arguments, (str, dict)):
                raise ValueError(
                    f"An 'edit' decision needs the new arguments (a dict or a str), got "
                    f"{arguments!r}"
                )
        elif arguments is not None:
            raise ValueError(f"Only an 'edit' decision takes arguments, not {kind!r}")
        if message is not None and (kind != "reject" or not isinstance(message, str)):
            raise ValueError(f"Only a 'reject' decision takes a message (a str), got {message!r}")
        if fingerprint is not None and not isinstance(fingerprint, str):
            raise ValueError(f"fingerprint must be a str, got {fingerprint!r}")
        self.kind: DecisionKind = kind
        self.arguments = arguments
        self.message = message
        self.fingerprint = fingerprint

    @classmethod
    def approve(cls, *, fingerprint: str | None = None) -> Decision:
        """Run the call as the model asked."""
        return cls("approve", fingerprint=fingerprint)

    @classmethod
    def edit(cls, arguments: str | dict[str, Any], *, fingerprint: str | None = None) -> Decision:
        """Run the call with `arguments` instead (validated by the tool's schema)."""
        return cls("edit", arguments=arguments, fingerprint=fingerprint)

    @classmethod
    def reject(cls, message: str | None = None, *, fingerprint: str | None = None) -> Decision:
        """Do not run the call; the model sees `message` (or that a person rejected it)."""
        return cls("reject", message=message, fingerprint=fingerprint)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Decision:
        """A decision from its dict form: ``{"type": "edit", "arguments": {...}}``, ...

        Raises:
            ValueError: unknown keys, or what the constructor refuses.
        """
        unknown = sorted(set(data) - {"type", "arguments", "message", "fingerprint"})
        if unknown:
            raise ValueError(
                f"A decision dict has the keys 'type', 'arguments', 'message' and "
                f"'fingerprint', got unknown keys {unknown}"
            )
        return cls(
            data.get("type"),  # type: ignore[arg-type]
            arguments=data.get("arguments"),
            message=data.get("message"),
            fingerprint=data.get("fingerprint"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The decision as plain data (what `from_dict` reads)."""
        out: dict[str, Any] = {"type": self.kind}
        if self.arguments is not None:
            out["arguments"] = self.arguments
        if self.message is not None:
            out["message"] = self.message
        if self.fingerprint is not None:
            out["fingerprint"] = self.fingerprint
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "type")
        return f"Decision({self.kind!r}{', ' if fields else ''}{fields})"


class ApprovalRequest:
    """One tool call waiting for a decision: what `ask` receives.

    Attributes:
        id: the call's id: the provider's tool-call id, or ``"call-<iteration>-<index>"``
            for agents whose calls have none (or share one).
        tool: the tool's name.
        arguments: the call's arguments (``tool_input``).
        fingerprint: the `fingerprint` of the tool and arguments.
        allowed: the decisions allowed.
        iteration: the iteration the call belongs to (1-based).
        index: the call's position in its step (0-based).
        action: the agent's action.
    """

    __slots__ = (
        "action",
        "allowed",
        "arguments",
        "fingerprint",
        "id",
        "index",
        "iteration",
        "tool",
    )

    def __init__(
        self,
        action: AgentAction,
        *,
        id: str,
        iteration: int,
        index: int,
        allowed: Sequence[DecisionKind],
    ) -> None:
        self.action = action
        self.id = id
        self.tool = action.tool
        self.arguments = action.tool_input
        self.fingerprint = fingerprint(action.tool, action.tool_input)
        self.iteration = iteration
        self.index = index
        self.allowed = tuple(allowed)

    @property
    def tool_call_id(self) -> str | None:
        """The provider's id of the call, if it has one."""
        return getattr(self.action, "tool_call_id", None)

    def approve(self) -> Decision:
        """Approve this call (bound to its arguments' fingerprint)."""
        return Decision.approve(fingerprint=self.fingerprint)

    def edit(self, arguments: str | dict[str, Any]) -> Decision:
        """Run this call with `arguments` instead (bound to its arguments' fingerprint)."""
        return Decision.edit(arguments, fingerprint=self.fingerprint)

    def reject(self, message: str | None = None) -> Decision:
        """Reject this call (bound to its arguments' fingerprint)."""
        return Decision.reject(message, fingerprint=self.fingerprint)

    def to_dict(self) -> dict[str, Any]:
        """What a paused run lists for this call: id, tool, arguments, fingerprint, allowed."""
        return {
            "id": self.id,
            "tool": self.tool,
            "arguments": self.arguments,
            "fingerprint": self.fingerprint,
            "allowed": list(self.allowed),
        }

    def __repr__(self) -> str:
        return f"ApprovalRequest(id={self.id!r}, tool={self.tool!r}, arguments={self.arguments!r})"


Ask: TypeAlias = Callable[[ApprovalRequest], Any]
"""Asked for each call that needs a decision: returns (or, async, resolves to) ``True``,
``False``, a `Decision`, ``"approve"``/``"reject"`` or a decision dict."""


def _call_ids(plan: Sequence[AgentAction], iteration: int) -> list[str]:
    """Each call's id: the provider's when it has a unique one, else a positional one."""
    given = [getattr(a, "tool_call_id", None) for a in plan]
    counts: dict[str | None, int] = {}
    for call_id in given:
        counts[call_id] = counts.get(call_id, 0) + 1
    ids: list[str] = []
    for index, call_id in enumerate(given):
        if isinstance(call_id, str) and call_id and counts[call_id] == 1:
            ids.append(call_id)
            continue
        made = f"call-{iteration}-{index}"
        while made in counts or made in ids:
            made += "'"
        ids.append(made)
    return ids


def _slot(iteration: int, index: int) -> str:
    return f"{iteration}:{index}"


def _edited_log(action: AgentAction, arguments: Any) -> str:
    if isinstance(action, ToolAgentAction):
        return action.log.replace(f"with `{action.tool_input}`", f"with `{arguments}`", 1)
    return action.log


def edit_plan(plan: Sequence[AgentAction], edits: Mapping[int, Any]) -> list[AgentAction]:
    """`plan` with the calls at the positions of `edits` given those arguments.

    The model's own message is edited too (the tool call's ``args`` in the ``message_log``
    of every action of the step that shares it), so that the model later sees the call that
    ran; a text agent's ``log`` keeps the model's words.
    """
    by_id = {
        plan[i].tool_call_id: args  # type: ignore[attr-defined]
        for i, args in edits.items()
        if isinstance(plan[i], ToolAgentAction)
        and plan[i].tool_call_id is not None  # type: ignore[attr-defined]
        and isinstance(args, dict)
    }
    fixed: dict[int, BaseMessage] = {}

    def fix(message: BaseMessage) -> BaseMessage:
        done = fixed.get(id(message))
        if done is not None:
            return done
        result = message
        if isinstance(message, AIMessage) and any(c.get("id") in by_id for c in message.tool_calls):
            whole = message_chunk_to_message(message)
            assert isinstance(whole, AIMessage)
            calls = [
                {**c, "args": dict(by_id[c["id"]])} if c.get("id") in by_id else c
                for c in whole.tool_calls
            ]
            result = whole.model_copy(update={"tool_calls": calls})
        fixed[id(message)] = result
        return result

    out: list[AgentAction] = []
    for index, action in enumerate(plan):
        if by_id and isinstance(action, AgentActionMessageLog):
            action = dataclasses.replace(
                action, message_log=tuple(fix(m) for m in action.message_log)
            )
        if index in edits:
            action = dataclasses.replace(
                action, tool_input=edits[index], log=_edited_log(action, edits[index])
            )
        out.append(action)
    return out


def _coerce(answer: Any, request: ApprovalRequest) -> Decision:
    """`answer` (what `ask` returned, or a resume value) as a `Decision`.

    Raises:
        ApprovalError: not a decision (fail closed: the call does not run).
    """
    if isinstance(answer, Decision):
        return answer
    if answer is True or answer == "approve":
        return Decision.approve()
    if answer is False or answer == "reject":
        return Decision.reject()
    if isinstance(answer, Mapping):
        try:
            return Decision.from_dict(answer)
        except ValueError as exc:
            raise ApprovalError(
                f"Cannot read the decision for call {request.id!r} ({request.tool!r}): {exc}"
            ) from None
    raise ApprovalError(
        f"Unknown decision for call {request.id!r} ({request.tool!r}): {answer!r}; expected "
        "True (approve), False (reject), 'approve', 'reject', a Decision or a decision dict "
        "such as {'type': 'edit', 'arguments': {...}}; the call did not run"
    )


def _check_edit(executor: AgentExecutor, request: ApprovalRequest, arguments: Any) -> None:
    """Check edited `arguments` against the tool's schema (what the model would be held to).

    Raises:
        ApprovalError: they do not match it; names the call and each wrong argument.
    """
    tool = executor.tools_by_name.get(request.tool)
    where = f"The edited arguments for call {request.id!r} ({request.tool!r})"
    if tool is None:
        raise ApprovalError(f"{where} cannot be checked: the executor has no such tool")
    schema = tool.tool_call_schema
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        value = arguments
        if isinstance(arguments, str):  # as the tool reads it: the text is its first argument
            fields = list(schema.model_fields.items())
            value = {fields[0][1].alias or fields[0][0]: arguments} if fields else {}
        try:
            schema.model_validate(value)
        except ValidationError as exc:
            error = ToolInputValidationError(request.tool, exc)
            raise ApprovalError(f"{where} do not match the tool's schema: {error}") from error
        return
    if isinstance(arguments, str):
        if schema.get("required") == ["__arg1"] or not schema.get("properties"):
            return
        raise ApprovalError(f"{where} are a string, but the tool takes a dict of arguments")
    missing = [k for k in schema.get("required", ()) if k not in arguments and k != "__arg1"]
    if missing:
        raise ApprovalError(f"{where} lack the required arguments {missing}")
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(arguments) - set(schema.get("properties", {})))
        if unknown:
            raise ApprovalError(f"{where} have arguments the tool does not take: {unknown}")


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - an object with an async __call__
    )


class HumanApproval(AgentMiddleware):
    """Ask a person before the calls of some tools run: approve, edit or reject each one.

    Args:
        tools: the tools whose calls need a decision: their names, or a mapping of name to
            ``True``/``False`` or to a function of the call's arguments that says whether
            this call needs one (an error in it counts as "needs one").
        ask: asked for each call that needs a decision (sync or async), with an
            `ApprovalRequest`; returns ``True`` (approve), ``False`` (reject) or a
            `Decision`. Without it the run pauses before the step and is resumed with
            `AgentExecutor.resume`.
        allowed: the decisions a person may take (default: approve, edit and reject).
        name: this middleware's key in the run's state (default ``"HumanApproval"``).

    Raises:
        AgentConfigurationError: tools that are not names or rules, no tools, an unknown
            decision kind, an `ask` that is not callable; when the executor is built, a
            named tool it does not have.
    """

    def __init__(
        self,
        tools: Iterable[str] | Mapping[str, Rule],
        *,
        ask: Ask | None = None,
        allowed: Sequence[DecisionKind] = DECISIONS,
        name: str | None = None,
    ) -> None:
        self.rules = _rules(tools)
        if ask is not None and not callable(ask):
            raise AgentConfigurationError(f"ask must be a function, got {ask!r}")
        bad = [kind for kind in allowed if kind not in DECISIONS]
        if bad or not allowed or isinstance(allowed, str):
            raise AgentConfigurationError(
                f"allowed must name some of {list(DECISIONS)}, got {allowed!r}"
            )
        self.ask = ask
        self.allowed: tuple[DecisionKind, ...] = tuple(k for k in DECISIONS if k in allowed)
        self._async_ask = ask is not None and _is_async(ask)
        if name is not None:
            self.name = name

    def __repr__(self) -> str:
        mode = "pause" if self.ask is None else "ask"
        return f"HumanApproval(tools={sorted(self.rules)!r}, mode={mode!r})"

    def setup(self, executor: AgentExecutor) -> None:
        unknown = sorted(set(self.rules) - set(executor.tool_names))
        if unknown:
            raise AgentConfigurationError(
                f"HumanApproval names tools the executor does not have: {unknown} (it has "
                f"{list(executor.tool_names)})"
            )

    # -- which calls --------------------------------------------------------------------------

    def needs_approval(self, action: AgentAction) -> bool:
        """Whether `action` needs a person's decision (an error deciding means yes)."""
        rule = self.rules.get(action.tool, False)
        if isinstance(rule, bool):
            return rule
        try:
            return bool(rule(action.tool_input))
        except Exception:
            return True

    def _requests(self, run: AgentRun, plan: Plan) -> list[ApprovalRequest]:
        """A request for each call of `plan` that needs approval (none for an answer)."""
        if isinstance(plan, AgentFinish):
            return []
        gated = [i for i, action in enumerate(plan) if self.needs_approval(action)]
        if not gated:
            return []
        iteration = run.iterations + 1
        ids = _call_ids(plan, iteration)
        return [
            ApprovalRequest(plan[i], id=ids[i], iteration=iteration, index=i, allowed=self.allowed)
            for i in gated
        ]

    def _key(self, run: AgentRun) -> str:
        return run.executor.hooks.keys[id(self)]

    # -- deciding -----------------------------------------------------------------------------

    def _record(self, run: AgentRun, request: ApprovalRequest, answer: Any) -> dict[str, Any]:
        """The decision on `request` as the plain data `wrap_tool_call` obeys.

        Raises:
            ApprovalError: not a decision, not allowed, made for other arguments, or edited
                arguments the tool's schema refuses.
        """
        decision = _coerce(answer, request)
        if decision.kind not in self.allowed:
            raise ApprovalError(
                f"The decision {decision.kind!r} is not allowed for call {request.id!r} "
                f"({request.tool!r}); allowed: {list(self.allowed)}"
            )
        if decision.fingerprint is not None and decision.fingerprint != request.fingerprint:
            raise ApprovalError(
                f"The decision for call {request.id!r} ({request.tool!r}) was made for other "
                f"arguments (fingerprint {decision.fingerprint!r}; the call waiting has "
                f"{request.fingerprint!r}: {request.arguments!r}); the call did not run"
            )
        record: dict[str, Any] = {
            "id": request.id,
            "tool_call_id": request.tool_call_id,
            "tool": request.tool,
            "type": decision.kind,
            "fingerprint": request.fingerprint,
        }
        if decision.kind == "edit":
            _check_edit(run.executor, request, decision.arguments)
            record["arguments"] = decision.arguments
            record["fingerprint"] = fingerprint(request.tool, decision.arguments)
        elif decision.kind == "reject":
            record["message"] = (
                decision.message
                if decision.message is not None
                else f"A person rejected this call to {request.tool!r}, so it did not run."
            )
        return record

    def _decided(
        self,
        run: AgentRun,
        plan: Plan,
        requests: list[ApprovalRequest],
        records: list[dict[str, Any]],
    ) -> list[AgentAction] | None:
        assert isinstance(plan, list)  # an answer asks for no approval (`_requests`)
        state = run.state_for(self)
        state.pop("waiting", None)
        state.pop("resumed", None)
        state["decisions"] = {
            _slot(r.iteration, r.index): record for r, record in zip(requests, records, strict=True)
        }
        edits = {
            r.index: record["arguments"]
            for r, record in zip(requests, records, strict=True)
            if record["type"] == "edit"
        }
        return edit_plan(plan, edits) if edits else None

    def _pause(
        self, run: AgentRun, requests: list[ApprovalRequest]
    ) -> tuple[Interrupt, dict[str, Any]]:
        state = run.state_for(self)
        state.pop("decisions", None)
        state.pop("resumed", None)
        state["pause"] = os.urandom(8).hex()
        state["waiting"] = [
            {
                **r.to_dict(),
                "tool_call_id": r.tool_call_id,
                "iteration": r.iteration,
                "index": r.index,
            }
            for r in requests
        ]
        pending = [r.to_dict() for r in requests]
        names = ", ".join(f"{r.tool} ({r.id})" for r in requests)
        event = {
            "action": "interrupt",
            "message": f"Paused for a person's decision on {len(requests)} call(s): {names}",
            "pending": pending,
        }
        return Interrupt("approval", {"pending": pending}), event

    def _sync_ask(self, request: ApprovalRequest) -> Any:
        assert self.ask is not None
        if self._async_ask:
            raise AgentConfigurationError(
                "HumanApproval's ask is async: run the executor with ainvoke, astream or "
                "astream_events, or give a sync ask"
            )
        answer = self.ask(request)
        if inspect.isawaitable(answer):
            close = getattr(answer, "close", None)
            if callable(close):
                close()
            raise AgentConfigurationError(
                "HumanApproval's ask returned an awaitable in a sync run: run the executor "
                "with ainvoke, astream or astream_events, or give a sync ask"
            )
        return answer

    def after_model(self, run: AgentRun, plan: Plan) -> Plan | Interrupt | None:
        requests = self._requests(run, plan)
        if not requests:
            return None
        if self.ask is None:
            interrupt, event = self._pause(run, requests)
            run.emit(EVENT, event)
            return interrupt
        records = [self._record(run, r, self._sync_ask(r)) for r in requests]
        return self._decided(run, plan, requests, records)

    async def aafter_model(self, run: AgentRun, plan: Plan) -> Plan | Interrupt | None:
        requests = self._requests(run, plan)
        if not requests:
            return None
        if self.ask is None:
            interrupt, event = self._pause(run, requests)
            await run.aemit(EVENT, event)
            return interrupt
        records = []
        for request in requests:
            if self._async_ask:
                answer = await self.ask(request)
            else:
                # A sync ask may block (a terminal prompt): never on the event loop.
                answer = await asyncio.to_thread(self.ask, request)
                if inspect.isawaitable(answer):
                    answer = await answer
            records.append(self._record(run, request, answer))
        return self._decided(run, plan, requests, records)

    def on_resume(self, run: AgentRun, decisions: Mapping[str, Any]) -> set[str]:
        """Take the decisions for the calls this middleware paused the run for.

        Called by `AgentExecutor.resume` before the run goes on; every waiting call needs
        one. Edited arguments replace the pending call's.

        Returns:
            The ids of the calls decided.

        Raises:
            ApprovalError: a waiting call has no decision, or one this middleware cannot
                apply; nothing has changed and nothing has run.
        """
        key = self._key(run)
        state = run.state.get(key)
        waiting = state.get("waiting") if isinstance(state, dict) else None
        if not waiting:
            return set()
        assert isinstance(state, dict)
        ids = [w["id"] for w in waiting]
        missing = [i for i in ids if i not in decisions]
        if missing:
            raise ApprovalError(
                f"No decision for the calls {missing!r} waiting for approval; give one per "
                f"call ({list(self.allowed)}): nothing ran"
            )
        pending = run.pending or []
        records, requests = [], []
        for entry in waiting:
            request = _waiting_request(entry, pending, self.allowed)
            requests.append(request)
            records.append(self._record(run, request, decisions[entry["id"]]))
        run.state[key] = {
            "pause": state.get("pause"),
            "resumed": {"iteration": requests[0].iteration, "pause": state.get("pause")},
            "decisions": {
                _slot(r.iteration, r.index): record
                for r, record in zip(requests, records, strict=True)
            },
        }
        edits = {
            r.index: record["arguments"]
            for r, record in zip(requests, records, strict=True)
            if record["type"] == "edit"
        }
        if edits:
            run.pending = edit_plan(pending, edits)
        return set(ids)

    # -- running ------------------------------------------------------------------------------

    def _verdict(
        self, run: AgentRun, request: ToolCallRequest
    ) -> tuple[str, dict[str, Any] | None, tuple[Any, ...] | None]:
        """What to do with one call: ``"run"``, ``"reject"`` or ``"block"``; the decision's
        record; the journal ``(checkpointer, thread, run_id, key)`` for a resumed step."""
        state = run.state.get(self._key(run))
        action = request.action
        if not isinstance(state, dict):
            return ("block" if self.needs_approval(action) else "run"), None, None
        journal = None
        resumed = state.get("resumed")
        durable = run.checkpoint
        if (
            isinstance(resumed, dict)
            and resumed.get("iteration") == request.iteration
            and durable is not None
            and getattr(durable, "checkpointer", None) is not None
        ):
            key = f"{resumed.get('pause')}:{request.index}"
            journal = (durable.checkpointer, durable.thread_id, durable.run_id, key)
        decisions = state.get("decisions")
        record = (
            decisions.get(_slot(request.iteration, request.index))
            if isinstance(decisions, dict)
            else None
        )
        if record is None:
            return ("block" if self.needs_approval(action) else "run"), None, journal
        bound = (
            isinstance(record, dict)
            and record.get("tool") == action.tool
            and record.get("tool_call_id") == getattr(action, "tool_call_id", None)
            and record.get("fingerprint") == fingerprint(action.tool, action.tool_input)
            and record.get("type") in DECISIONS
        )
        if not bound:
            return "block", record if isinstance(record, dict) else None, journal
        return ("reject" if record["type"] == "reject" else "run"), record, journal

    @staticmethod
    def _outcome(
        verdict: str, record: dict[str, Any] | None, action: AgentAction
    ) -> tuple[dict[str, Any] | None, AgentStep | None]:
        """The event to emit and, for a call that does not run, its step."""
        tool = action.tool
        call = {"tool": tool, "id": (record or {}).get("id")}
        if verdict == "block":
            if record is None:
                text = (
                    f"Tool {tool!r} was not run: it needs a person's approval and there was "
                    "no decision for this call."
                )
            else:
                text = (
                    f"Tool {tool!r} was not run: the decision given was made for another "
                    "call or other arguments."
                )
            return {"action": "blocked", "message": text, **call}, AgentStep(action, text)
        if verdict == "reject":
            assert record is not None
            message = record.get("message")
            text = message if isinstance(message, str) else f"A person rejected {tool!r}."
            event = {
                "action": "rejected",
                "message": f"A person rejected a call to {tool!r}",
                **call,
            }
            return event, AgentStep(action, text)
        if record is None:
            return None, None
        kind = "edited" if record.get("type") == "edit" else "approved"
        return {"action": kind, "message": f"A person {kind} a call to {tool!r}", **call}, None

    def wrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: ToolHandler
    ) -> AgentStep:
        verdict, record, journal = self._verdict(run, request)
        event, step = self._outcome(verdict, record, request.action)
        if event is not None:
            run.emit(EVENT, event)
        if step is not None:
            return step
        if journal is None:
            return handler(request)
        checkpointer, thread, run_id, key = journal
        done = checkpointer.get_call(thread, run_id, key)
        if done is not None:
            return _journaled(request.action, done)
        checkpointer.put_call(thread, run_id, key, _started(request.action))
        step = handler(request)
        checkpointer.put_call(thread, run_id, key, _done(step))
        return step

    async def awrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: AToolHandler
    ) -> AgentStep:
        verdict, record, journal = self._verdict(run, request)
        event, step = self._outcome(verdict, record, request.action)
        if event is not None:
            await run.aemit(EVENT, event)
        if step is not None:
            return step
        if journal is None:
            return await handler(request)
        checkpointer: BaseCheckpointer
        checkpointer, thread, run_id, key = journal
        done = await checkpointer.aget_call(thread, run_id, key)
        if done is not None:
            return _journaled(request.action, done)
        await checkpointer.aput_call(thread, run_id, key, _started(request.action))
        step = await handler(request)
        await checkpointer.aput_call(thread, run_id, key, _done(step))
        return step


def _rules(tools: Any) -> dict[str, Rule]:
    if isinstance(tools, str) or tools is None:
        raise AgentConfigurationError(
            f"tools must be a list of tool names or a mapping of name to rule, got {tools!r}"
        )
    if isinstance(tools, Mapping):
        rules = dict(tools)
    else:
        try:
            rules = {name: True for name in tools}
        except TypeError:
            raise AgentConfigurationError(
                f"tools must be a list of tool names or a mapping of name to rule, got {tools!r}"
            ) from None
    for name, rule in rules.items():
        if not isinstance(name, str) or not name:
            raise AgentConfigurationError(f"HumanApproval's tools are named by str, got {name!r}")
        if not (isinstance(rule, bool) or callable(rule)):
            raise AgentConfigurationError(
                f"The rule for tool {name!r} must be True, False or a function of the call's "
                f"arguments, got {rule!r}"
            )
    if not rules:
        raise AgentConfigurationError("HumanApproval needs at least one tool to ask about")
    return rules


def _waiting_request(
    entry: Any, pending: Sequence[AgentAction], allowed: Sequence[DecisionKind]
) -> ApprovalRequest:
    """The `ApprovalRequest` of a saved waiting call, checked against the pending call.

    Raises:
        ApprovalError: the saved call and the pending one differ (the state was altered).
    """
    index = entry.get("index") if isinstance(entry, dict) else None
    if not isinstance(index, int) or not 0 <= index < len(pending):
        raise ApprovalError(
            f"A call waiting for approval ({entry!r}) is not among the run's pending calls; "
            "the saved state is inconsistent, so nothing runs"
        )
    call_id, iteration = entry.get("id"), entry.get("iteration")
    if not isinstance(call_id, str) or not isinstance(iteration, int):
        raise ApprovalError(
            f"A call waiting for approval has no valid id and iteration ({entry!r}); the "
            "saved state is inconsistent, so nothing runs"
        )
    request = ApprovalRequest(
        pending[index], id=call_id, iteration=iteration, index=index, allowed=allowed
    )
    if request.fingerprint != entry.get("fingerprint") or request.tool_call_id != entry.get(
        "tool_call_id"
    ):
        raise ApprovalError(
            f"The pending call {index} ({request.tool!r}) does not match the call {entry['id']!r} "
            "that waits for approval; the saved state is inconsistent, so nothing runs"
        )
    return request


def _started(action: AgentAction) -> dict[str, Any]:
    return {"status": "started", "tool": action.tool}


def _done(step: AgentStep) -> dict[str, Any]:
    try:
        return {
            "status": "done",
            "tool": step.action.tool,
            "observation": dump_value(step.observation),
        }
    except RunStateError:
        return {"status": "done", "tool": step.action.tool}


def _journaled(action: AgentAction, record: dict[str, Any]) -> AgentStep:
    """The step of a call the journal says was already started or done (never run again)."""
    if record.get("status") == "done" and "observation" in record:
        try:
            return AgentStep(action, load_value(record["observation"]))
        except RunStateError:
            pass
    return AgentStep(
        action,
        f"This call to {action.tool!r} was started before the run stopped and may have run "
        "already; it was not run again.",
    )
