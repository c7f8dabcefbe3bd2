"""``leanchain demo --loop``: the offline model repeats itself; LoopGuard warns, then stops it."""

from __future__ import annotations

import pytest

from leanchain.cli import main
from leanchain.cli._demo_models import AGENT_TYPES, DEMO_QUESTION

WARNING = (
    "[LoopGuard] You already called city_facts with these arguments and got the same result "
    "('Paris population: 2102650'). Change your approach: use different arguments or another "
    "tool, or give your final answer."
)

TOOL_CALLING_LOOP = f"""\
=== tool-calling agent (create_tool_calling_agent, offline demo model) ===
Question: {DEMO_QUESTION}
Step 1
  | I need the population of Paris and the height of the Eiffel Tower.
  -> city_facts(city='Paris', fact='population')
  -> city_facts(city='Paris', fact='landmark_height')
  <- city_facts: Paris population: 2102650
  <- city_facts: Paris landmark_height: 330 m
Step 2
  | I need the population of Paris and the height of the Eiffel Tower.
  -> city_facts(city='Paris', fact='population')
  -> city_facts(city='Paris', fact='landmark_height')
  <- city_facts: Paris population: 2102650

{WARNING}
  <- city_facts: Paris landmark_height: 330 m
Step 3
  | I need the population of Paris and the height of the Eiffel Tower.
  -> city_facts(city='Paris', fact='population')
  -> city_facts(city='Paris', fact='landmark_height')
  <- city_facts: Paris population: 2102650
  <- city_facts: Paris landmark_height: 330 m
Final answer: Agent stopped by LoopGuard: the agent kept repeating the calls \
city_facts(city='Paris', fact='landmark_height') → city_facts(city='Paris', fact='population') \
with the same results.
"""


def test_the_guard_warns_once_then_stops_the_tool_calling_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--loop", "--agent", "tool-calling"]) == 0
    assert capsys.readouterr().out == TOOL_CALLING_LOOP


@pytest.mark.parametrize("agent_type", [t for t in AGENT_TYPES if t != "tool-calling"])
def test_every_text_agent_is_stopped_after_three_identical_calls(
    agent_type: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--loop", "--agent", agent_type]) == 0
    out = capsys.readouterr().out
    assert out.count("\nStep ") == 3
    assert out.count("[LoopGuard] You already called city_facts with these arguments") == 1
    assert out.endswith(
        "Final answer: Agent stopped by LoopGuard: the agent called city_facts 3 times with the "
        "same arguments and got the same result.\n"
    )
