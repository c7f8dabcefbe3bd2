"""StdOutCallbackHandler (LangChain's words and colours) and set_debug/set_verbose."""

from __future__ import annotations

import pytest

from leanchain.agents import AgentAction, AgentFinish
from leanchain.callbacks import StdOutCallbackHandler, default_handlers
from leanchain.globals import get_debug, get_verbose, set_debug, set_verbose
from leanchain.runnables import RunnableLambda


def test_chain_runs_print_entering_and_finished(capsys: pytest.CaptureFixture[str]) -> None:
    RunnableLambda(lambda x: x + 1, name="add_one").invoke(
        1, {"callbacks": [StdOutCallbackHandler()]}
    )
    assert capsys.readouterr().out == (
        "\n\n\x1b[1m> Entering new add_one chain...\x1b[0m\n\n\x1b[1m> Finished chain.\x1b[0m\n"
    )


def test_agent_and_tool_events_print_logs_and_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    handler = StdOutCallbackHandler(color="green")
    handler.on_agent_action(AgentAction("t", "i", "Thought: use t"))
    handler.on_tool_end(42, observation_prefix="Observation: ", llm_prefix="Thought:")
    handler.on_text("plain", color="blue", end="!")
    handler.on_agent_finish(AgentFinish({"output": "x"}, "Final Answer: x"))
    assert capsys.readouterr().out == (
        "\x1b[32;1m\x1b[1;3mThought: use t\x1b[0m"
        "\nObservation: \x1b[32;1m\x1b[1;3m42\x1b[0m\nThought:"
        "\x1b[36;1m\x1b[1;3mplain\x1b[0m!"
        "\x1b[32;1m\x1b[1;3mFinal Answer: x\x1b[0m\n"
    )


def test_an_unknown_colour_is_refused() -> None:
    with pytest.raises(ValueError, match="color must be one of"):
        StdOutCallbackHandler(color="purple")


def test_set_debug_prints_every_run_until_turned_off(capsys: pytest.CaptureFixture[str]) -> None:
    before = default_handlers()
    set_debug(True)
    try:
        set_debug(True)
        assert get_debug() is True
        assert len(default_handlers()) == len(before) + 1
        RunnableLambda(lambda x: x * 2, name="double").invoke(3)
        out = capsys.readouterr().out
        assert "double" in out
        assert "6" in out
    finally:
        set_debug(False)
    assert (get_debug(), default_handlers()) == (False, before)
    RunnableLambda(lambda x: x * 2, name="double").invoke(3)
    assert capsys.readouterr().out == ""


def test_set_verbose_is_a_flag() -> None:
    assert get_verbose() is False
    set_verbose(True)
    try:
        assert get_verbose() is True
    finally:
        set_verbose(False)
    assert get_verbose() is False
