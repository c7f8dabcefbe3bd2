"""`ToolSelector`: show the model only the few tools a run needs, chosen once per run.

Fifty tool schemas on every call cost tokens and confuse a model. Before the first planning
call of a run (and again only when `reselect` says so), `ToolSelector` chooses at most
`max_tools` tools, plus the ones it must always include, by one of three means: a lexical
ranking of the tools' names, descriptions and arguments against the run's input (BM25, no
dependency, no model call: the default), a model asked to pick, or your own function. The
choice is kept in the run's state, so the following calls reuse it for free.

It works in `before_model`, answering ``request.replace(tools=...)``: the executor rebuilds a
factory-built agent for that tool set (`AgentExecutor.agent_for`, once per set), so the bound
tool schemas or the rendered tool text change. The tools are shown in the executor's order,
whatever their ranks, so the prompt is the same from call to call and provider prompt caches
keep hitting. A call to a tool that was not shown still runs, if the executor has it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from leanchain.agents.middleware._base import AgentMiddleware, ModelRequest
from leanchain.agents.middleware._lexical import LexicalIndex, tool_words
from leanchain.agents.middleware._prompt import checked_prompt, task_text
from leanchain.errors import AgentConfigurationError
from leanchain.messages import BaseMessage
from leanchain.prompts import BasePromptTemplate
from leanchain.runnables import Runnable, RunnableConfig

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun
    from leanchain.agents.executor import AgentExecutor
    from leanchain.tools import BaseTool

__all__ = ["ToolSelector"]

EVENT = "leanchain.tool_selector"
By = Literal["lexical", "model", "function"]

PROMPT: Final = """\
Choose the tools an AI agent will need for the task below: at most {max_tools}, the most \
useful first. Answer with the tools' names only, one per line.

The task:
{task}

The tools:
{tools}"""

_INDEXES_KEPT: Final = 32


def _description(tool: BaseTool) -> str:
    first = (tool.description or "").strip().split("\n", 1)[0]
    return first if len(first) <= 200 else first[:199] + "…"


def _named_in(text: str, tools: Sequence[BaseTool]) -> list[str]:
    """The tools named in `text`, in the order they are first named."""
    found: list[tuple[int, str]] = []
    for tool in tools:
        match = re.search(rf"(?<![\w-]){re.escape(tool.name)}(?![\w-])", text)
        if match is not None:
            found.append((match.start(), tool.name))
    return [name for _, name in sorted(found)]


class ToolSelector(AgentMiddleware):
    """Choose, once per run, the at most `max_tools` tools the model is shown.

    Args:
        max_tools: how many tools to choose (the ones in `always_include` come on top). An
            executor with no more tools than that shows them all, with no selection.
        always_include: names of tools that are always shown.
        model: choose with this chat model instead of the lexical ranking: it is asked
            (`prompt`) for the names of the tools the task needs; names it makes up are
            ignored, and when it names none the lexical ranking chooses.
        select: choose with your function instead: ``select(query, tools)`` returns the
            chosen tools or their names, best first (the first `max_tools` are kept).
        prompt: the model's prompt (a template string, or a prompt with the variables
            ``tools`` (required), ``task`` and ``max_tools``); `ToolSelector.PROMPT` by
            default.
        query: what the tools are ranked against: ``query(run)``; the run's ``input`` by
            default.
        reselect: ``reselect(run)`` is asked before every planning call after the first;
            ``True`` chooses again (with `query` of the run as it is then).
        name: the key of its state in a run.

    The lexical ranking fills the choice up to `max_tools` in the executor's order when fewer
    tools share a word with the query. A model's choice is made in `before_model`, so a
    `UsageLimits` does not count it (it counts the planning calls' model calls).

    Raises:
        AgentConfigurationError: a bad setting; in `setup`, a name in `always_include` that
            the executor has no tool for, or an agent that cannot be rebuilt for other tools
            (one not built by a ``create_*_agent`` factory).
    """

    PROMPT = PROMPT
    """The default prompt of a model's choice (leanchain's own words)."""

    def __init__(
        self,
        max_tools: int = 5,
        *,
        always_include: Collection[str] = (),
        model: Runnable[Any, Any] | None = None,
        select: Callable[[str, Sequence[BaseTool]], Sequence[str | BaseTool]] | None = None,
        prompt: str | BasePromptTemplate = PROMPT,
        query: Callable[[AgentRun], str] | None = None,
        reselect: Callable[[AgentRun], bool] | None = None,
        name: str | None = None,
    ) -> None:
        if isinstance(max_tools, bool) or not isinstance(max_tools, int) or max_tools < 1:
            raise AgentConfigurationError(
                f"ToolSelector max_tools must be an int >= 1, got {max_tools!r}"
            )
        if model is not None and select is not None:
            raise AgentConfigurationError(
                "ToolSelector takes a model or a select function, not both"
            )
        if model is not None and not isinstance(model, Runnable):
            raise AgentConfigurationError(
                f"ToolSelector model must be a chat model (or a Runnable), got {model!r}"
            )
        for label, value in (("select", select), ("query", query), ("reselect", reselect)):
            if value is not None and not callable(value):
                raise AgentConfigurationError(
                    f"ToolSelector {label} must be a function, got {value!r}"
                )
        if isinstance(always_include, str):
            always_include = [always_include]
        self.max_tools = max_tools
        self.always_include = frozenset(always_include)
        self.model = model
        self.select = select
        self.prompt = checked_prompt(prompt, "ToolSelector", "tools", ("task", "max_tools"))
        self.query = query
        self.reselect = reselect
        self.name = name
        self._indexes: dict[tuple[str, ...], LexicalIndex] = {}

    def __repr__(self) -> str:
        by = "model" if self.model else "function" if self.select else "lexical"
        return f"ToolSelector(max_tools={self.max_tools}, by={by!r})"

    def setup(self, executor: AgentExecutor) -> None:
        missing = sorted(self.always_include - set(executor.tool_names))
        if missing:
            raise AgentConfigurationError(
                f"ToolSelector always_include names tools the executor does not have: "
                f"{missing!r} (it has {list(executor.tool_names)!r})"
            )
        if not callable(getattr(executor.agent, "with_tools", None)):
            raise AgentConfigurationError(
                "ToolSelector changes the tools the model is shown, so the agent must be "
                "rebuilt for them: build it with a create_*_agent factory"
            )

    # -- choosing ---------------------------------------------------------------------------

    def _query(self, run: AgentRun) -> str:
        return self.query(run) if self.query is not None else task_text(run.inputs)

    def lexical(self, query: str, tools: Sequence[BaseTool]) -> list[str]:
        """The names of the `max_tools` tools that rank best for `query`."""
        key = tuple(t.name for t in tools)
        index = self._indexes.get(key)
        if index is None:
            index = LexicalIndex([tool_words(t.name, t.description, t.args) for t in tools])
            if len(self._indexes) >= _INDEXES_KEPT:
                self._indexes.clear()
            self._indexes[key] = index
        return [tools[i].name for i in index.ranked(query)[: self.max_tools]]

    def _by_function(self, query: str, tools: Sequence[BaseTool]) -> list[str]:
        assert self.select is not None
        known = {t.name for t in tools}
        names = [c if isinstance(c, str) else c.name for c in self.select(query, tools)]
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(
                f"ToolSelector select returned tools it was not offered: {unknown!r} "
                f"(offered: {sorted(known)!r})"
            )
        return list(dict.fromkeys(names))[: self.max_tools]

    def _model_prompt(self, query: str, tools: Sequence[BaseTool]) -> Any:
        listing = "\n".join(f"- {t.name}: {_description(t)}" for t in tools)
        values = {"task": query, "tools": listing, "max_tools": str(self.max_tools)}
        return self.prompt.invoke(
            {k: v for k, v in values.items() if k in self.prompt.input_variables}
        )

    def _from_reply(
        self, reply: Any, query: str, tools: Sequence[BaseTool]
    ) -> tuple[list[str], By]:
        text = reply.text if isinstance(reply, BaseMessage) else str(reply)
        names = _named_in(text, tools)[: self.max_tools]
        if not names:
            return self.lexical(query, tools), "lexical"
        return names, "model"

    def _chosen(
        self, run: AgentRun, request: ModelRequest, names: list[str], by: By
    ) -> ModelRequest | None:
        """Keep the choice in the run's state, tell the callbacks; the request to make."""
        run.state_for(self)["tools"] = names
        request_tools = request.tools
        shown = self._shown(run, request)
        count = len(request_tools) if shown is None else len(shown.tools)
        run.emit(
            EVENT,
            {
                "action": "select",
                "message": f"Showing {count} of {len(request_tools)} tools ({by} choice)",
                "tools": [t.name for t in (request_tools if shown is None else shown.tools)],
                "by": by,
            },
        )
        return shown

    def _shown(self, run: AgentRun, request: ModelRequest) -> ModelRequest | None:
        """`request` with only the chosen tools, in their order (``None``: it has no others)."""
        chosen = set(run.state_for(self)["tools"])
        shown = [t for t in request.tools if t.name in chosen]
        return None if len(shown) == len(request.tools) else request.replace(tools=shown)

    def _work(
        self, run: AgentRun, request: ModelRequest
    ) -> tuple[list[str], list[BaseTool], str] | None:
        """What to choose from now: ``(always, candidates, query)``; ``None``: reuse the
        run's choice (it has one, and `reselect` does not ask for another)."""
        state = run.state_for(self)
        if "tools" in state and not (self.reselect is not None and self.reselect(run)):
            return None
        always = [t.name for t in request.tools if t.name in self.always_include]
        candidates = [t for t in request.tools if t.name not in self.always_include]
        return always, candidates, self._query(run)

    def _without_model(
        self,
        run: AgentRun,
        request: ModelRequest,
        always: list[str],
        candidates: list[BaseTool],
        query: str,
    ) -> ModelRequest | None:
        if len(candidates) <= self.max_tools:
            return self._chosen(run, request, always + [t.name for t in candidates], "lexical")
        if self.select is not None:
            return self._chosen(
                run, request, always + self._by_function(query, candidates), "function"
            )
        return self._chosen(run, request, always + self.lexical(query, candidates), "lexical")

    def _decide(self, run: AgentRun, request: ModelRequest) -> ModelRequest | _Question | None:
        """The request to make, or the question for the selector model that decides it."""
        work = self._work(run, request)
        if work is None:
            return self._shown(run, request)
        always, candidates, query = work
        if self.model is None or len(candidates) <= self.max_tools:
            return self._without_model(run, request, always, candidates, query)
        prompt = self._model_prompt(query, candidates)
        config: RunnableConfig = {**run.config, "run_name": "ToolSelector"}
        return _Question(self.model, prompt, config, always, candidates, query)

    def _answered(
        self, run: AgentRun, request: ModelRequest, question: _Question, reply: Any
    ) -> ModelRequest | None:
        names, by = self._from_reply(reply, question.query, question.candidates)
        return self._chosen(run, request, question.always + names, by)

    def before_model(self, run: AgentRun, request: ModelRequest) -> ModelRequest | None:
        question = self._decide(run, request)
        if not isinstance(question, _Question):
            return question
        reply = question.model.invoke(question.prompt, question.config)
        return self._answered(run, request, question, reply)

    async def abefore_model(self, run: AgentRun, request: ModelRequest) -> ModelRequest | None:
        question = self._decide(run, request)
        if not isinstance(question, _Question):
            return question
        reply = await question.model.ainvoke(question.prompt, question.config)
        return self._answered(run, request, question, reply)


class _Question(NamedTuple):
    """What the selector model is asked: `prompt`, sent with `config`, and what its answer is
    read against (the names kept in any case, the candidates, the task)."""

    model: Runnable[Any, Any]
    prompt: Any
    config: RunnableConfig
    always: list[str]
    candidates: list[BaseTool]
    query: str
