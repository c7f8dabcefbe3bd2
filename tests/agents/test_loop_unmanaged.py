"""A run with no callbacks is the loop's own flow (no run manager around it): its events,
outputs and errors are exactly those of the same run under a handler that listens."""

from __future__ import annotations

from typing import Any

import pytest

from leanchain.agents import AgentAction, AgentExecutor, AgentFinish
from leanchain.callbacks import BaseCallbackHandler
from leanchain.runnables import RunnableLambda
from leanchain.tools import tool


@tool
def echo(text: str) -> str:
    """Echo."""
    return text


class Listener(BaseCallbackHandler):
    """Listens to the agent's run (so the loop runs under a run manager)."""

    def __init__(self) -> None:
        self.ends: list[Any] = []

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.ends.append(outputs)


def _executor(last: Any) -> AgentExecutor:
    def plan(inputs: dict[str, Any]) -> Any:
        if not inputs["intermediate_steps"]:
            return [AgentAction("echo", {"text": "a"}, "log")]
        if isinstance(last, Exception):
            raise last
        return last

    return AgentExecutor(agent=RunnableLambda(plan), tools=[echo], return_intermediate_steps=True)


def _config(listen: bool) -> dict[str, Any]:
    return {"callbacks": [Listener()]} if listen else {}


@pytest.mark.parametrize("listen", [False, True])
def test_stream_and_invoke_equal_with_and_without_a_listener(listen: bool) -> None:
    executor = _executor(AgentFinish({"output": "done"}, ""))
    chunks = list(executor.stream({"input": "q"}, _config(listen)))
    assert [sorted(c) for c in chunks] == [
        ["actions", "messages"],
        ["messages", "steps"],
        ["intermediate_steps", "messages", "output"],
    ]
    assert chunks[-1]["output"] == "done"
    result = executor.invoke({"input": "q"}, _config(listen))
    assert result["output"] == "done"
    assert [(a.tool, o) for a, o in result["intermediate_steps"]] == [("echo", "a")]


@pytest.mark.parametrize("listen", [False, True])
def test_an_agent_error_propagates_unchanged(listen: bool) -> None:
    error = RuntimeError("boom")
    with pytest.raises(RuntimeError) as caught:
        _executor(error).invoke({"input": "q"}, _config(listen))
    assert caught.value is error
    assert caught.value.__notes__[0].startswith("AgentExecutor iteration 2: the agent failed")


def test_a_stream_closed_early_ends_the_run_for_the_listener() -> None:
    listener = Listener()
    executor = _executor(AgentFinish({"output": "done"}, ""))
    stream = executor.stream({"input": "q"}, {"callbacks": [listener]})
    first = next(iter(stream))
    assert sorted(first) == ["actions", "messages"]
    stream.close()  # type: ignore[attr-defined]
    assert listener.ends[-1] == {"input": "q"}
    unheard = executor.stream({"input": "q"})
    assert sorted(next(iter(unheard))) == ["actions", "messages"]
    unheard.close()  # type: ignore[attr-defined]
