"""Durable runs: saving a run as it goes, and resuming a paused or interrupted one.

`run_events`/`arun_events` are the loop's events (`_loop.steps`/`asteps`) with the run's
state saved to the executor's checkpointer when the run starts, after every step, when it
pauses and when it finishes; a paused run's outputs get its `RunState` as ``"state"``.
With no checkpointer and no middleware that can pause a run they are the loop itself.

`resumed_run` builds the `AgentRun` of ``executor.resume(...)`` (or of a `Resume` input):
the saved inputs, steps, iteration, elapsed time, middleware state and pending calls, with
``resumed`` set; each middleware that defines ``on_resume(run, decisions)`` takes the
decisions for the calls it paused. Then the ordinary loop drives it.
"""

from __future__ import annotations

import copy
import os
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from leanchain.agents._loop import Event, Finished, Stepped, asteps, steps
from leanchain.agents._run import AgentRun
from leanchain.agents._state import RunState, RunStatus, StateWriter
from leanchain.errors import AgentConfigurationError, ApprovalError, RunStateError
from leanchain.runnables.config import RunnableConfig, merge_configs

if TYPE_CHECKING:
    from leanchain.agents._checkpoint import BaseCheckpointer
    from leanchain.agents.executor import AgentExecutor
    from leanchain.agents.schema import AgentFinish

__all__ = ["Durability", "Resume", "arun_events", "resumed_run", "run_events", "thread_id_of"]


class Resume:
    """An `AgentExecutor` input that resumes a saved run instead of starting one.

    ``executor.invoke(Resume("thread-1", {"call_1": True}))`` is ``executor.resume(...)``;
    `stream`, `iter` and `stream_events` take it too.

    Args:
        state: the run to resume: a thread id (read from the executor's checkpointer), a
            `RunState`, or its JSON form as a dict.
        decisions: for a run paused for approval, a decision per waiting call, by call id.
    """

    __slots__ = ("decisions", "state")

    def __init__(
        self,
        state: str | RunState | Mapping[str, Any],
        decisions: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(state, (str, RunState, Mapping)):
            raise TypeError(
                "Resume takes a thread id (str), a RunState or its JSON form (a dict), got "
                f"{type(state).__name__}"
            )
        if decisions is not None and not isinstance(decisions, Mapping):
            raise TypeError(
                "decisions must be a mapping of call id to decision, got "
                f"{type(decisions).__name__}"
            )
        self.state = state
        self.decisions = decisions

    def __repr__(self) -> str:
        what = repr(self.state) if isinstance(self.state, (str, RunState)) else "{...}"
        ids = None if self.decisions is None else sorted(self.decisions)
        return f"Resume({what}, decisions={ids!r})"


def thread_id_of(config: RunnableConfig) -> str | None:
    """The thread id of a run's config (``config["configurable"]["thread_id"]``).

    Raises:
        AgentConfigurationError: a thread id that is not a non-empty string.
    """
    thread = (config.get("configurable") or {}).get("thread_id")
    if thread is None:
        return None
    if not isinstance(thread, str) or not thread:
        raise AgentConfigurationError(
            f"config['configurable']['thread_id'] must be a non-empty str, got {thread!r}"
        )
    return thread


def _new_run_id() -> str:
    return os.urandom(16).hex()


class Durability:
    """A run's identity across pauses and restarts, and where (if anywhere) it is saved.

    Attributes:
        checkpointer: the executor's checkpointer, or ``None`` (the run is only snapshotted
            when it pauses).
        thread_id: the thread the run is saved under (``None`` without a checkpointer).
        run_id: the run's id, kept across pauses and resumes.
        seq: how many times the run has been saved.
    """

    __slots__ = ("checkpointer", "run_id", "seq", "thread_id", "writer")

    def __init__(
        self,
        checkpointer: BaseCheckpointer | None,
        thread_id: str | None,
        run_id: str,
        seq: int = 0,
    ) -> None:
        self.checkpointer = checkpointer
        self.thread_id = thread_id
        self.run_id = run_id
        self.seq = seq
        self.writer = StateWriter()

    @classmethod
    def of_new_run(cls, run: AgentRun) -> Durability | None:
        """The durability of a run that starts now, or ``None`` when nothing needs it.

        Raises:
            AgentConfigurationError: the executor has a checkpointer but the config has no
                thread id.
        """
        executor = run.executor
        checkpointer = executor.checkpointer
        if checkpointer is None:
            return cls(None, None, _new_run_id()) if executor.hooks.after_model else None
        thread = thread_id_of(run.config)
        if thread is None:
            raise AgentConfigurationError(
                "This executor saves its runs (it has a checkpointer), so each run needs a "
                "thread id: pass config={'configurable': {'thread_id': '...'}}"
            )
        return cls(checkpointer, thread, _new_run_id())

    def snapshot(
        self, run: AgentRun, status: RunStatus, finish: AgentFinish | None = None
    ) -> RunState:
        """The run's state now, numbered as the next save.

        A paused run's state is a copy (the caller keeps it); any other is a view of the
        run's own values, written at once and dropped.
        """
        self.seq += 1
        return RunState.of_run(
            run,
            status=status,
            run_id=self.run_id,
            seq=self.seq,
            finish=finish,
            copied=status == "interrupted",
        )

    def save(self, run: AgentRun, status: RunStatus, finish: AgentFinish | None = None) -> RunState:
        """Snapshot the run and store it (when there is a checkpointer)."""
        state = self.snapshot(run, status, finish)
        if self.checkpointer is not None and self.thread_id is not None:
            text = self.writer.write(state)
            self.checkpointer.put_json(self.thread_id, self.run_id, self.seq, text)
        return state

    async def asave(
        self, run: AgentRun, status: RunStatus, finish: AgentFinish | None = None
    ) -> RunState:
        """Async `save`."""
        state = self.snapshot(run, status, finish)
        if self.checkpointer is not None and self.thread_id is not None:
            text = self.writer.write(state)
            await self.checkpointer.aput_json(self.thread_id, self.run_id, self.seq, text)
        return state


def _durability(run: AgentRun) -> Durability | None:
    durable = run.checkpoint
    if durable is None:
        executor = run.executor
        if executor.checkpointer is None and not executor.hooks.after_model:
            return None  # what `of_new_run` finds, without the call (every plain run)
        durable = run.checkpoint = Durability.of_new_run(run)
    return durable if isinstance(durable, Durability) else None


def run_events(run: AgentRun, *, quiet: bool = False) -> Iterator[Event]:
    """The sync loop's events, with the run saved as it goes (see the module docstring).

    `quiet`: the caller reads only the `Finished` event (`invoke`); an unsaved run then
    makes no other event.

    Raises:
        AgentConfigurationError: a checkpointer but no thread id in the config.
    """
    durable = _durability(run)
    if durable is None:
        run.quiet = quiet
        return steps(run)
    return _saving(run, durable)


def _saving(run: AgentRun, durable: Durability) -> Iterator[Event]:
    if durable.checkpointer is not None:
        durable.save(run, "running")
    for event in steps(run):
        if isinstance(event, Stepped):
            if durable.checkpointer is not None:
                durable.save(run, "running")
        elif isinstance(event, Finished):
            if event.finish is None:
                event.outputs["state"] = durable.save(run, "interrupted")
            elif durable.checkpointer is not None:
                durable.save(run, "finished", event.finish)
        yield event


def arun_events(run: AgentRun, *, quiet: bool = False) -> AsyncIterator[Event]:
    """Async `run_events`."""
    durable = _durability(run)
    if durable is None:
        run.quiet = quiet
        return asteps(run)
    return _asaving(run, durable)


async def _asaving(run: AgentRun, durable: Durability) -> AsyncIterator[Event]:
    if durable.checkpointer is not None:
        await durable.asave(run, "running")
    async for event in asteps(run):
        if isinstance(event, Stepped):
            if durable.checkpointer is not None:
                await durable.asave(run, "running")
        elif isinstance(event, Finished):
            if event.finish is None:
                event.outputs["state"] = await durable.asave(run, "interrupted")
            elif durable.checkpointer is not None:
                await durable.asave(run, "finished", event.finish)
        yield event


# -- resuming ------------------------------------------------------------------------------


def _saved_state(
    executor: AgentExecutor, resume: Resume, config: RunnableConfig
) -> tuple[RunState, RunnableConfig, str | None]:
    """The state to resume, the run's config (with its thread id) and that thread id."""
    checkpointer = executor.checkpointer
    given = resume.state
    if isinstance(given, str):
        if checkpointer is None:
            raise AgentConfigurationError(
                f"Resuming thread {given!r} needs the executor's checkpointer: build the "
                "executor with checkpointer=..., or pass the run's RunState instead"
            )
        configured = thread_id_of(config)
        if configured is not None and configured != given:
            raise AgentConfigurationError(
                f"Asked to resume thread {given!r} with a config for thread {configured!r}"
            )
        state = checkpointer.get(given)
        if state is None:
            raise RunStateError(f"There is no saved run on thread {given!r} to resume")
        config = merge_configs(config, {"configurable": {"thread_id": given}})
        return state, config, given
    state = given if isinstance(given, RunState) else RunState.from_dict(given)
    if state._resumed:
        raise RunStateError(
            "This RunState was already resumed once; resuming it again would run its "
            "pending calls again. Resume the run's latest state (or its thread) instead"
        )
    thread = thread_id_of(config) if checkpointer is not None else None
    if thread is not None and checkpointer is not None:
        latest = checkpointer.get(thread)
        if latest is not None and latest.run_id == state.run_id and latest.seq > state.seq:
            raise RunStateError(
                f"Thread {thread!r} has moved on since this state was saved (save "
                f"{state.seq}, latest {latest.seq}); resume the thread instead, so that no "
                "call runs twice"
            )
    return state, config, thread


def resumed_run(
    executor: AgentExecutor,
    resume: Resume,
    config: RunnableConfig,
    *,
    warn_on_stop: bool = False,
) -> AgentRun:
    """The run that continues `resume`'s saved state, decisions applied, ready for the loop.

    Raises:
        RunStateError: nothing to resume (no saved run, a finished run, a state already
            resumed or older than its thread's latest).
        ApprovalError: decisions that cannot be applied (missing, unknown, for no waiting
            call); nothing has run.
        AgentConfigurationError: a thread id without a checkpointer.
    """
    state, config, thread = _saved_state(executor, resume, config)
    if state.status == "finished":
        where = f" on thread {thread!r}" if thread else ""
        raise RunStateError(f"The run{where} has finished; there is nothing to resume")
    # Copies: the run goes on without changing the state it came from (which the caller
    # may keep, or resume again after a refused attempt).
    run = AgentRun(executor, dict(state.inputs), config, warn_on_stop=warn_on_stop)
    run.steps = list(state.steps)
    run.iterations = state.iterations
    run.elapsed_before = state.elapsed
    run.state = copy.deepcopy(state.middleware)
    run.output_extras = copy.deepcopy(state.output_extras)
    run.pending = None if state.pending is None else list(state.pending)
    run.resumed = True
    decisions = resume.decisions
    if state.status == "interrupted":
        used: set[str] = set()
        for m in executor.middleware:
            used |= set(m.on_resume(run, {} if decisions is None else decisions))
        unknown = sorted(set(decisions or ()) - used)
        if unknown:
            raise ApprovalError(
                f"Decisions for calls that are not waiting for one: {unknown!r}; the run "
                f"waits for {sorted(used) or 'none'}"
            )
    elif decisions:
        raise ApprovalError(
            f"The run is not waiting for decisions (it was saved while running), got "
            f"decisions for {sorted(decisions)!r}; resume it without decisions"
        )
    if isinstance(resume.state, RunState):
        resume.state._resumed = True
    checkpointer = executor.checkpointer if thread is not None else None
    run.checkpoint = Durability(checkpointer, thread, state.run_id or _new_run_id(), state.seq)
    return run
