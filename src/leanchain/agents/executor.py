"""`AgentExecutor`: runs an agent runnable and its tools until the agent gives a final answer.

The loop itself is in `_loop` (one sync and one async generator of events); this module holds
the configuration, its validation, and the views of the loop: `invoke`, `stream`, `iter` and
their async twins.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from leanchain.agents._loop import Event, Finished, Interrupted, Planned, Stepped
from leanchain.agents._resume import Resume, arun_events, resumed_run, run_events
from leanchain.agents._run import AgentRun
from leanchain.agents._stopping import final_answer_chain
from leanchain.agents.middleware._base import AgentMiddleware
from leanchain.agents.middleware._table import HookTable
from leanchain.agents.schema import AgentAction
from leanchain.callbacks.console import ConsoleCallbackHandler
from leanchain.callbacks.manager import Callbacks
from leanchain.errors import AgentConfigurationError
from leanchain.globals import get_verbose
from leanchain.runnables.base import Runnable, coerce_to_runnable
from leanchain.runnables.config import RunnableConfig, ensure_config, merge_configs
from leanchain.runnables.utils import AddableDict
from leanchain.tools import BaseTool

if TYPE_CHECKING:
    from leanchain.agents._checkpoint import BaseCheckpointer
    from leanchain.agents._state import RunState

__all__ = ["AgentExecutor", "AgentExecutorIterator"]

Steps = list[tuple[AgentAction, Any]]


def _is_handler(value: object) -> bool:
    return isinstance(value, (bool, str)) or callable(value)


def _prompt_keys(agent: Runnable[Any, Any]) -> list[str] | None:
    """The input keys the agent's prompt asks the caller for, when they can be found.

    The prompt is looked for through sequences (their steps, in order) and bindings.
    """
    pending: list[Any] = [agent]
    while pending:
        node = pending.pop(0)
        variables = getattr(node, "input_variables", None)
        if isinstance(variables, list) and all(isinstance(v, str) for v in variables):
            optional = getattr(node, "optional_variables", None) or ()
            own = {"agent_scratchpad", "intermediate_steps", *optional}
            return [v for v in variables if v not in own]
        children = getattr(node, "steps", None)
        if isinstance(children, tuple):
            pending[:0] = [c for c in children if isinstance(c, Runnable)]
        bound = getattr(node, "bound", None)
        if isinstance(bound, Runnable):
            pending.insert(0, bound)
    return None


class AgentExecutor(Runnable[dict[str, Any] | str | Resume, dict[str, Any]]):
    """Runs an agent: plan, call tools (concurrently), feed back observations, until it finishes.

    Args:
        agent: a runnable that takes the inputs plus ``intermediate_steps`` (a list of
            ``(action, observation)`` pairs) and returns an `AgentAction`, a list of them, or an
            `AgentFinish` — what every ``create_*_agent`` factory builds.
        tools: the tools the agent may call, by name.
        max_iterations: planning calls allowed before stopping (``None``: no limit).
        max_execution_time: seconds allowed before stopping (``None``: no limit); holds even
            when a tool hangs.
        early_stopping_method: what a stopped run answers: "force" (a fixed text) or
            "generate" (one more model call for a final answer; factory-built agents only).
        handle_parsing_errors: what an unparsable reply becomes: ``False`` raises; ``True``,
            a str or a callable turn it into an observation the agent sees next.
        handle_tool_errors: what a tool's exception becomes: ``False`` raises; ``True`` (its
            message), a str or a callable turn it into the observation.
        return_intermediate_steps: add ``"intermediate_steps"`` to the output.
        trim_intermediate_steps: what the agent sees of the steps: the last N (an int > 0), a
            function of the list, or all (-1). The output keeps them all.
        max_tool_concurrency: how many tool calls of one step run at once (1: one by one;
            ``None``: all).
        verbose: print each run as it happens to standard output, through a
            `ConsoleCallbackHandler` (coloured on a terminal unless ``NO_COLOR`` is set);
            ``None`` (the default) reads `leanchain.globals.get_verbose` when the executor is
            built, as LangChain's does.
        callbacks: callback handlers (or a manager) added to every run's config.
        tags: tags added to every run's config.
        metadata: metadata added to every run's config.
        stream_runnable: stream the agent runnable while callbacks listen, so its model
            tokens reach them as they come (with no handler it is invoked: same result).
        middleware: what governs the run beyond these settings (`LoopGuard`, `UsageLimits`,
            your own `AgentMiddleware`), in order: the first wraps the others.
        checkpointer: where to save each run's state (when it starts, after every step,
            when it pauses and when it finishes), under the config's
            ``configurable["thread_id"]``, so that `resume` can continue it later, in this
            process or another (`InMemoryCheckpointer`, `SqliteCheckpointer`).

    An exception that ends a run (a provider error, a tool's error when
    ``handle_tool_errors`` is off) propagates unchanged, so ``except`` clauses work as usual;
    it carries a note (``exc.__notes__``) naming the iteration and the agent's model or the
    tool that failed.

    Raises:
        AgentConfigurationError: a setting is invalid (duplicate tool names, a tool the
            factory-built agent knows but the executor was not given, an unsupported early
            stopping method, a handler of the wrong type, a negative limit, a middleware that
            cannot work with this agent...).
    """

    __slots__ = (
        "_agents_by_tools",
        "_config",
        "_generate_chain",
        "_prompt_keys",
        "agent",
        "callbacks",
        "checkpointer",
        "early_stopping_method",
        "final_answer_chain",
        "handle_parsing_errors",
        "handle_tool_errors",
        "hooks",
        "max_execution_time",
        "max_iterations",
        "max_tool_concurrency",
        "metadata",
        "middleware",
        "return_intermediate_steps",
        "stream_runnable",
        "tags",
        "tool_names",
        "tools",
        "tools_by_name",
        "trim_intermediate_steps",
        "verbose",
    )

    def __init__(
        self,
        *,
        agent: Runnable[Any, Any] | Callable[..., Any],
        tools: Sequence[BaseTool],
        max_iterations: int | None = 15,
        max_execution_time: float | None = None,
        early_stopping_method: str = "force",
        handle_parsing_errors: bool | str | Callable[[Any], Any] = False,
        handle_tool_errors: bool | str | Callable[[Exception], Any] = False,
        return_intermediate_steps: bool = False,
        trim_intermediate_steps: int | Callable[[Steps], Steps] = -1,
        max_tool_concurrency: int | None = 8,
        verbose: bool | None = None,
        callbacks: Callbacks = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        stream_runnable: bool = True,
        middleware: Sequence[AgentMiddleware] = (),
        checkpointer: BaseCheckpointer | None = None,
    ) -> None:
        if not isinstance(agent, Runnable) and not callable(agent):
            raise AgentConfigurationError(
                f"agent must be a Runnable (or a function), got {type(agent).__name__}"
            )
        self.agent: Runnable[Any, Any] = coerce_to_runnable(agent)
        self.tools: tuple[BaseTool, ...] = tuple(tools)
        names = [getattr(t, "name", None) for t in self.tools]
        for tool, name in zip(self.tools, names, strict=True):
            if not isinstance(name, str) or not name:
                raise AgentConfigurationError(f"Every tool needs a name, got {tool!r}")
        duplicates = sorted({n for n in names if names.count(n) > 1})  # type: ignore[type-var]
        if duplicates:
            raise AgentConfigurationError(
                f"Tool names must be unique, got duplicates: {duplicates}"
            )
        self.tool_names: tuple[str, ...] = tuple(cast(list[str], names))
        self.tools_by_name: dict[str, BaseTool] = dict(
            zip(self.tool_names, self.tools, strict=True)
        )
        _check_agent_tools(self.agent, self.tool_names)
        self.max_iterations = _limit("max_iterations", max_iterations, 0, int)
        self.max_execution_time = _limit("max_execution_time", max_execution_time, 0, (int, float))
        self.max_tool_concurrency = _limit("max_tool_concurrency", max_tool_concurrency, 1, int)
        self.early_stopping_method = early_stopping_method
        self.final_answer_chain = final_answer_chain(self.agent, early_stopping_method)
        self._generate_chain = self.final_answer_chain
        self._agents_by_tools: dict[tuple[str, ...], Runnable[Any, Any]] = {}
        if not _is_handler(handle_parsing_errors):
            raise AgentConfigurationError("Got unexpected type of `handle_parsing_errors`")
        if not _is_handler(handle_tool_errors):
            raise AgentConfigurationError("Got unexpected type of `handle_tool_errors`")
        self.handle_parsing_errors = handle_parsing_errors
        self.handle_tool_errors = handle_tool_errors
        if isinstance(trim_intermediate_steps, bool) or not (
            isinstance(trim_intermediate_steps, int) or callable(trim_intermediate_steps)
        ):
            raise AgentConfigurationError(
                "trim_intermediate_steps must be an int or a callable, "
                f"got {trim_intermediate_steps!r}"
            )
        self.trim_intermediate_steps = trim_intermediate_steps
        self.return_intermediate_steps = return_intermediate_steps
        self.verbose = get_verbose() if verbose is None else bool(verbose)
        self.stream_runnable = stream_runnable
        self.callbacks = callbacks
        self.tags = tags
        self.metadata = metadata
        own: RunnableConfig = {}
        if callbacks:
            own["callbacks"] = callbacks
        if tags:
            own["tags"] = list(tags)
        if metadata:
            own["metadata"] = dict(metadata)
        self._config: RunnableConfig | None = own or None
        self._prompt_keys = _prompt_keys(self.agent)
        self.middleware: tuple[AgentMiddleware, ...] = tuple(middleware)
        self.hooks = HookTable(self.middleware)
        self.checkpointer = _checked_checkpointer(checkpointer)
        for m in self.middleware:
            m.setup(self)

    @classmethod
    def from_agent_and_tools(
        cls,
        agent: Runnable[Any, Any] | Callable[..., Any],
        tools: Sequence[BaseTool],
        callbacks: Callbacks = None,
        **kwargs: Any,
    ) -> AgentExecutor:
        """LangChain's constructor spelling: ``AgentExecutor(agent=..., tools=..., ...)``."""
        return cls(agent=agent, tools=tools, callbacks=callbacks, **kwargs)

    def __repr__(self) -> str:
        return f"AgentExecutor(agent={self.agent!r}, tools={list(self.tool_names)!r})"

    def lookup_tool(self, name: str) -> BaseTool:
        """The tool called `name`.

        Raises:
            KeyError: there is no such tool.
        """
        return self.tools_by_name[name]

    def enable_generate(self, who: str) -> None:
        """Make sure a "generate" early stop can write a final answer (a middleware's `setup`
        calls it when it may stop a run that way).

        Raises:
            AgentConfigurationError: the agent cannot make the final-answer call (it was not
                built by a ``create_*_agent`` factory); the message names `who` asked.
        """
        if self._generate_chain is not None:
            return
        try:
            self._generate_chain = final_answer_chain(self.agent, "generate")
        except AgentConfigurationError:
            raise AgentConfigurationError(
                f"{who} needs an agent that can write a final answer (one built by a "
                "create_*_agent factory); use 'force' or 'raise' with this agent"
            ) from None

    def final_answer_chain_for_stop(self) -> Runnable[Any, Any]:
        """The final-answer call of a "generate" stop (there is one: see `enable_generate`)."""
        chain = self._generate_chain
        if chain is None:
            raise AgentConfigurationError(
                "This run was stopped with 'generate', but the agent cannot write a final "
                "answer; the middleware that stopped it should call enable_generate in setup"
            )
        return chain

    def agent_for(self, tools: Sequence[BaseTool]) -> Runnable[Any, Any]:
        """The agent built for `tools` (a middleware chose them), made once per tool set.

        Raises:
            AgentConfigurationError: the agent cannot be rebuilt for other tools.
        """
        names = tuple(tool.name for tool in tools)
        agent = self._agents_by_tools.get(names)
        if agent is None:
            rebuild = getattr(self.agent, "with_tools", None)
            if not callable(rebuild):
                raise AgentConfigurationError(
                    f"A middleware changed the tools the model is shown to {list(names)!r}, "
                    "but this agent cannot be rebuilt for them: build it with a "
                    "create_*_agent factory"
                )
            agent = self._agents_by_tools[names] = rebuild(list(tools))
        return agent

    def invalid_tool_observation(self, name: str) -> str:
        """What the agent is told when it calls a tool that does not exist."""
        return f"{name} is not a valid tool, try one of [{', '.join(self.tool_names)}]."

    # -- inputs -----------------------------------------------------------------------------

    def prepare_inputs(self, input: dict[str, Any] | str) -> dict[str, Any]:
        """The input as a dict: a plain string becomes ``{"input": s}`` when the prompt takes it.

        Raises:
            TypeError: a string when the prompt has no ``input`` variable, or not a dict at all.
        """
        if isinstance(input, dict):
            return input
        if isinstance(input, str):
            keys = self._prompt_keys
            if keys is None or "input" in keys:
                return {"input": input}
            raise TypeError(
                "AgentExecutor got a plain string, but the agent's prompt has no 'input' "
                f"variable; pass a dict with the keys {sorted(keys)!r}"
            )
        raise TypeError(
            f"AgentExecutor expects a dict of inputs (or a str), got {type(input).__name__}"
        )

    def _new_run(
        self,
        input: dict[str, Any] | str | Resume,
        config: RunnableConfig | None,
        *,
        warn_on_stop: bool = False,
    ) -> AgentRun:
        inputs = {} if isinstance(input, Resume) else self.prepare_inputs(input)
        config = ensure_config(config)
        if self._config is not None:
            config = merge_configs(self._config, config)
        if self.verbose:
            # A handler per run: it decides on colour when the run starts, for the stdout of then.
            config = merge_configs(config, {"callbacks": [ConsoleCallbackHandler()]})
        if isinstance(input, Resume):
            return resumed_run(self, input, config, warn_on_stop=warn_on_stop)
        return AgentRun(self, inputs, config, warn_on_stop=warn_on_stop)

    # -- views of the loop ------------------------------------------------------------------

    def invoke(
        self,
        input: dict[str, Any] | str | Resume,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Run the agent to the end; the inputs merged with the outputs."""
        run = self._new_run(input, config)
        # Running through the events runs the loop; only the last one (its end) is kept. A
        # quiet run has no other (a saved one may), so a plain loop beats a deque here.
        for last in run_events(run, quiet=True):  # noqa: B007 (the last one is the result)
            pass
        return _result(run, last)

    async def ainvoke(
        self,
        input: dict[str, Any] | str | Resume,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Async `invoke`: tool calls run as tasks and the time limit cancels a hung step."""
        run = self._new_run(input, config)
        last: Event | None = None
        async for event in arun_events(run, quiet=True):
            last = event
        return _result(run, last)

    def stream(
        self,
        input: dict[str, Any] | str | Resume,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[dict[str, Any]]:
        """Yield ``{"actions", "messages"}`` per planned action, ``{"steps", "messages"}`` per
        step, then the outputs with ``"messages"`` (all `AddableDict`, so ``+`` sums them)."""
        return iter(AgentExecutorIterator(self, input, config, yield_actions=True))

    def astream(
        self,
        input: dict[str, Any] | str | Resume,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """Async `stream`."""
        return aiter(AgentExecutorIterator(self, input, config, yield_actions=True))

    def iter(
        self,
        input: dict[str, Any] | str | Resume,
        config: RunnableConfig | None = None,
        *,
        callbacks: Callbacks = None,
    ) -> AgentExecutorIterator:
        """Iterate the run (``for`` or ``async for``): one ``{"intermediate_step": [...]}`` per
        iteration, then the outputs with ``"messages"``."""
        if callbacks:
            config = merge_configs(config, {"callbacks": callbacks})
        return AgentExecutorIterator(self, input, config)

    def resume(
        self,
        state: str | RunState | dict[str, Any],
        decisions: dict[str, Any] | None = None,
        config: RunnableConfig | None = None,
    ) -> dict[str, Any]:
        """Continue a paused or interrupted run to its end (``invoke(Resume(state, ...))``).

        Args:
            state: a thread id (its latest state is read from the checkpointer), a paused
                run's ``outputs["state"]``, or that state's JSON form as a dict.
            decisions: for a run paused for approval: a decision per waiting call, by call id
                (``True``/``"approve"``, ``False``/``"reject"``, a `Decision`, or its dict).
            config: the run's config (callbacks, ...); its thread id is the one resumed.

        Raises:
            RunStateError: nothing to resume (no saved run, a finished run, a stale state).
            ApprovalError: decisions that cannot be applied; nothing has run.
        """
        return self.invoke(Resume(state, decisions), config)

    async def aresume(
        self,
        state: str | RunState | dict[str, Any],
        decisions: dict[str, Any] | None = None,
        config: RunnableConfig | None = None,
    ) -> dict[str, Any]:
        """Async `resume`."""
        return await self.ainvoke(Resume(state, decisions), config)


class AgentExecutorIterator:
    """One agent run, iterated step by step with ``for`` or ``async for``.

    Args:
        agent_executor: the executor to run.
        inputs: its input (a plain string follows `AgentExecutor.prepare_inputs`; a
            `Resume` continues a saved run).
        config: the run's config.
        yield_actions: yield `stream`'s chunks (actions and steps one by one) instead of one
            ``{"intermediate_step": [...]}`` per iteration.
    """

    __slots__ = ("_run", "agent_executor", "config", "inputs", "yield_actions")

    def __init__(
        self,
        agent_executor: AgentExecutor,
        inputs: dict[str, Any] | str | Resume,
        config: RunnableConfig | None = None,
        *,
        yield_actions: bool = False,
    ) -> None:
        self.agent_executor = agent_executor
        self.inputs = (
            inputs if isinstance(inputs, Resume) else agent_executor.prepare_inputs(inputs)
        )
        self.config = config
        self.yield_actions = yield_actions
        self._run: AgentRun | None = None

    @property
    def intermediate_steps(self) -> Steps:
        """The ``(action, observation)`` pairs so far."""
        return self._run.steps if self._run else []

    @property
    def iterations(self) -> int:
        """The iterations so far."""
        return self._run.iterations if self._run else 0

    @property
    def time_elapsed(self) -> float:
        """Seconds since the current run started."""
        return self._run.time_elapsed if self._run else 0.0

    def __iter__(self) -> Iterator[AddableDict]:
        # LangChain warns about a limit that ended the run from here, not from invoke.
        self._run = run = self.agent_executor._new_run(self.inputs, self.config, warn_on_stop=True)
        for event in run_events(run):
            yield from _chunks(event, self.yield_actions)

    async def __aiter__(self) -> AsyncIterator[AddableDict]:
        self._run = run = self.agent_executor._new_run(self.inputs, self.config, warn_on_stop=True)
        async for event in arun_events(run):
            for chunk in _chunks(event, self.yield_actions):
                yield chunk


def _chunks(event: Event, yield_actions: bool) -> list[AddableDict]:
    if isinstance(event, Planned):
        if not yield_actions:
            return []
        return [AddableDict(actions=[a], messages=a.messages) for a in event.actions]
    if isinstance(event, Stepped):
        if yield_actions:
            return [AddableDict(steps=[s], messages=s.messages) for s in event.steps]
        if event.last:
            return []
        return [AddableDict(intermediate_step=[(s.action, s.observation) for s in event.steps])]
    if isinstance(event, Interrupted):
        return []
    final = AddableDict(event.outputs)
    final["messages"] = event.finish.messages if event.finish is not None else []
    return [final]


def _checked_checkpointer(checkpointer: Any) -> BaseCheckpointer | None:
    if checkpointer is None:
        return None
    from leanchain.agents._checkpoint import BaseCheckpointer

    if not isinstance(checkpointer, BaseCheckpointer):
        raise AgentConfigurationError(
            "checkpointer must be a BaseCheckpointer (InMemoryCheckpointer, "
            f"SqliteCheckpointer, ...), got {type(checkpointer).__name__}"
        )
    return checkpointer


def _check_agent_tools(agent: Runnable[Any, Any], names: tuple[str, ...]) -> None:
    """Refuse tools that a factory-built agent was told about but the executor lacks.

    Raises:
        AgentConfigurationError: names the missing tools and the ones the executor has.
    """
    known = getattr(agent, "tool_names", None)
    if not isinstance(known, list):
        return
    missing = [name for name in known if name not in names]
    if missing:
        raise AgentConfigurationError(
            f"The agent was built with tools the executor was not given: {missing!r} "
            f"(the executor has {list(names)!r}); pass the same tools to both"
        )


def _limit(name: str, value: Any, minimum: int, kind: type | tuple[type, ...]) -> Any:
    if value is None:
        return None
    number: Any = value
    if isinstance(number, bool) or not isinstance(value, kind) or not number >= minimum:
        raise AgentConfigurationError(
            f"{name} must be None or a number >= {minimum}, got {value!r}"
        )
    return value


def _result(run: AgentRun, last: Event | None) -> dict[str, Any]:
    """What `invoke` returns once the run's events are out: the inputs and the outputs."""
    assert isinstance(last, Finished)
    return {**run.inputs, **last.outputs}
