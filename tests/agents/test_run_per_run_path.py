"""What a run does once, around its iterations, is the same on `invoke`'s short way as on
every other entry point: the inputs a dict (or a plain string) becomes, the config the agent
and the tools run with (the caller's ``run_name`` and ``run_id`` name the executor's run
only), and the result `invoke` reads off the run's last event, saved or not."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanchain.agents import AgentAction, AgentExecutor, AgentFinish, InMemoryCheckpointer
from leanchain.callbacks import BaseCallbackHandler
from leanchain.runnables import RunnableConfig, RunnableLambda
from leanchain.tools import tool

PER_RUN_KEYS = ("run_name", "run_id")


@tool
def seen_keys(text: str, config: RunnableConfig) -> str:
    """The per-run keys of the config the tool runs with."""
    return repr(sorted(k for k in PER_RUN_KEYS if k in config))


class Keyed(dict[str, Any]):
    """A dict subclass as the input: kept as it is, as `prepare_inputs` keeps it."""


def _executor(**kwargs: Any) -> tuple[AgentExecutor, list[list[str]]]:
    """An executor whose agent records the per-run keys of its config, calls the tool once,
    then answers."""
    agent_saw: list[list[str]] = []

    def agent(inputs: dict[str, Any], config: RunnableConfig) -> Any:
        agent_saw.append(sorted(k for k in PER_RUN_KEYS if k in config))
        if not inputs["intermediate_steps"]:
            return AgentAction("seen_keys", {"text": "a"}, "")
        return AgentFinish({"output": inputs["intermediate_steps"][0][1]}, "")

    return AgentExecutor(agent=RunnableLambda(agent), tools=[seen_keys], **kwargs), agent_saw


configs = st.fixed_dictionaries(
    {},
    optional={
        "run_name": st.sampled_from(["mine", "other"]),
        "run_id": st.uuids(),
        "tags": st.lists(st.sampled_from(["a", "b"]), max_size=2),
        "callbacks": st.just([BaseCallbackHandler()]),
    },
)


@given(config=configs)
def test_the_agent_and_tools_never_see_the_executors_run_keys(config: dict[str, Any]) -> None:
    executor, agent_saw = _executor()
    assert executor.invoke({"input": "q"}, config)["output"] == "[]"  # type: ignore[arg-type]
    assert agent_saw == [[], []]


@pytest.mark.parametrize("given_input", ["q", {"input": "q"}, Keyed(input="q")])
def test_invoke_result_equals_every_other_entry_point(given_input: Any) -> None:
    """The same result from `invoke` (the quiet run's one event), `stream`'s last chunk,
    `batch`, and a saved run (whose events `invoke` runs through to the last)."""
    expected = {"input": "q", "output": "[]"}
    executor, _ = _executor()
    assert executor.invoke(given_input) == expected
    assert executor.batch([given_input]) == [expected]
    last = list(executor.stream(given_input))[-1]
    assert {k: v for k, v in last.items() if k != "messages"} == {"output": "[]"}
    saved, _ = _executor(checkpointer=InMemoryCheckpointer())
    assert saved.invoke(given_input, {"configurable": {"thread_id": "t"}}) == expected


def test_a_dict_subclass_input_is_the_runs_inputs() -> None:
    executor, _ = _executor(return_intermediate_steps=True)
    given_input = Keyed(input="q")
    run = executor._new_run(given_input, None)
    assert run.inputs is given_input
    assert run.warn_on_stop is False
    assert executor._new_run(given_input, None, warn_on_stop=True).warn_on_stop is True


def test_a_string_input_without_an_input_variable_still_fails_first() -> None:
    """A plain string is checked before the config is resolved, as before."""
    from leanchain.prompts import PromptTemplate

    prompt = PromptTemplate.from_template("{question} {agent_scratchpad}")
    executor = AgentExecutor(agent=prompt | RunnableLambda(lambda _: AgentFinish({}, "")), tools=[])
    with pytest.raises(TypeError, match="no 'input' variable"):
        executor.invoke("q")


def test_a_subclass_prepare_inputs_sees_dict_inputs_too() -> None:
    class Defaults(AgentExecutor):
        def prepare_inputs(self, input: dict[str, Any] | str) -> dict[str, Any]:
            return {"input": "default", **super().prepare_inputs(input)}

    agent = RunnableLambda(lambda inputs: AgentFinish({"output": inputs["input"]}, ""))
    executor = Defaults(agent=agent, tools=[])
    assert executor.invoke({}) == {"input": "default", "output": "default"}
    assert executor.invoke({"input": "q"}) == {"input": "q", "output": "q"}
